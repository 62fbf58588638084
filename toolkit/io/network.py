"""The one network-deadline policy: how long any call to another machine may take.

Object storage (fsspec back-ends) and live judge endpoints (the vendors' SDKs) each get a
*connect* deadline (the TCP and TLS handshake) and a *read* deadline (the longest wait for
the answer of one request), and a bounded number of retries, so an endpoint that accepts
the connection and never answers fails in seconds, with the deadline named in the error,
never after minutes of silent retries. The defaults can be changed per command:

========================  =======  ==================================================
variable                  default  what it bounds
========================  =======  ==================================================
TOOLKIT_CONNECT_TIMEOUT   5 s      opening a connection (storage and judges)
TOOLKIT_READ_TIMEOUT      10 s     one storage request's answer
TOOLKIT_STORAGE_RETRIES   1        retries of a storage request that timed out
========================  =======  ==================================================

A judge call waits ``--judge-timeout`` seconds (default :data:`JUDGE_TIMEOUT`) for its
answer after connecting within the connect deadline, and is retried ``--judge-retries``
times (default 2) by the SDK: an endpoint that never answers fails open after about
``(retries + 1) x timeout`` (90 s by default), naming both. ``--storage-option`` values
the user gives win over the storage defaults (``config_kwargs.read_timeout=120``). A
leaf module: it imports only the toolkit's errors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.errors import InputError

CONNECT_ENV = "TOOLKIT_CONNECT_TIMEOUT"
READ_ENV = "TOOLKIT_READ_TIMEOUT"
RETRIES_ENV = "TOOLKIT_STORAGE_RETRIES"

DEFAULT_CONNECT = 5.0
DEFAULT_READ = 10.0
DEFAULT_RETRIES = 1
#: Seconds a live judge call waits for its answer (``--judge-timeout``).
JUDGE_TIMEOUT = 30.0


@dataclass(frozen=True)
class Deadlines:
    """The deadlines in force (seconds) and the retries of a storage request."""

    connect: float
    read: float
    retries: int

    @property
    def total(self) -> float:
        """The longest a storage request may take, retries included (backoff aside)."""
        return (self.connect + self.read) * (self.retries + 1)

    def said(self) -> str:
        """The deadlines in words, for an error message."""
        return (
            f"deadlines: connect {self.connect:g}s ({CONNECT_ENV}), read {self.read:g}s "
            f"({READ_ENV}), {self.retries} retries ({RETRIES_ENV})"
        )


def _seconds(variable: str, default: float) -> float:
    raw = os.environ.get(variable, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if 0 < value < 86_400 else default  # NaN, inf, 0, negatives: the default


def deadlines() -> Deadlines:
    """The deadlines in force: the defaults, changed by the environment variables above
    (a value that is not a positive number of seconds is ignored)."""
    raw = os.environ.get(RETRIES_ENV, "").strip()
    retries = int(raw) if raw.isascii() and raw.isdigit() and int(raw) <= 10 else DEFAULT_RETRIES
    return Deadlines(_seconds(CONNECT_ENV, DEFAULT_CONNECT), _seconds(READ_ENV, DEFAULT_READ),
                     retries)  # fmt: skip


def _merged(defaults: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` over ``defaults``, nested mappings merged key by key."""
    out = dict(defaults)
    for key, value in given.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def storage_options(protocol: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """fsspec options for ``protocol`` with the deadlines set where the user set none.

    S3 (s3fs on botocore): ``config_kwargs`` connect and read timeouts, botocore's own
    retries off (s3fs retries, see :func:`filesystem`: the two multiplied made 25
    attempts of 15 s each). Google Cloud Storage (gcsfs): ``timeout``. Other back-ends
    get the options as given.
    """
    d = deadlines()
    if protocol in ("s3", "s3a"):
        config = {
            "connect_timeout": d.connect,
            "read_timeout": d.read,
            "retries": {"max_attempts": 1, "mode": "standard"},
        }
        return _merged({"config_kwargs": config}, given)
    if protocol in ("gs", "gcs"):
        return _merged({"timeout": d.connect + d.read}, given)
    return dict(given)


def filesystem(protocol: str, given: Mapping[str, Any]) -> Any:
    """The fsspec filesystem for ``protocol`` with the deadlines of :func:`deadlines`.

    Raises:
        InputError: the back-end refuses the options (``max_concurrency=0``, an unknown
            or mistyped option), naming ``--storage-option``.
    """
    import fsspec  # fsspec: only when a URL is used (tests/test_startup_imports.py)

    options = storage_options(protocol, given)
    try:
        fs = fsspec.filesystem(protocol, **options)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        said = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise InputError(
            None, f"the {protocol}:// back-end refuses these options ({said})",
            field="--storage-option", value=_shown(given),
        ) from None  # fmt: skip
    if protocol in ("s3", "s3a") and hasattr(fs, "retries"):
        fs.retries = deadlines().retries + 1  # s3fs: attempts of a request that timed out
    return fs


def _shown(options: Mapping[str, Any]) -> str:
    text = ",".join(f"{k}={v!r}" for k, v in options.items())
    return text if len(text) <= 80 else text[:77] + "..."


def is_timeout(exc: BaseException) -> bool:
    """Whether a failure is a deadline passing (any back-end's or SDK's timeout type)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, TimeoutError) or "Timeout" in type(current).__name__:
            return True
        current = current.__cause__ or current.__context__
    return False


def judge_timeout(read: float, timeout_type: Any) -> Any:
    """The ``timeout`` for a judge SDK client: ``read`` seconds for the answer of one call
    and the policy's connect deadline, built with the SDK's own ``Timeout`` class
    (``anthropic.Timeout``, ``openai.Timeout``)."""
    return timeout_type(read, connect=min(read, deadlines().connect))
