"""The measurement epoch of a result: which scores may be compared.

A number depends on what decided it (the rubric's name, version and every parameter, the
judge's provider, model, prompt template and cassette, the toolkit's version) and on what
it was scored from. The **epoch** is a short hash (12 hex digits of SHA-256 over canonical
JSON) of the first; the **input digest** a short hash of the second (the bytes of the files,
or the rows as loaded). Two scores of one epoch were measured the same way; two scores of
one input digest were measured on the same input.

A leaf: it imports only :mod:`toolkit.scorecard` and the version, so every family's scorer,
view and face can use it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit._version import __version__
from toolkit.scorecard import Scorecard

#: Hex digits kept of each SHA-256 (48 bits: a collision among 10^5 epochs is ~1 in 10^5).
SHORT = 12
#: The ``meta`` keys a stamped scorecard carries (and its JSON form).
EPOCH_KEY, INPUTS_KEY = "epoch", "input_digest"


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON bytes: keys sorted, no spaces, UTF-8 (a value JSON
    cannot hold is written as its ``str``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return text.encode("utf-8")


def short_hash(value: Any) -> str:
    """The first :data:`SHORT` hex digits of SHA-256 over :func:`canonical_json`."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:SHORT]


def input_digest(parts: Iterable[tuple[str, bytes]]) -> str:
    """A content hash of what a result was scored from: ``(name, bytes)`` pairs (a file's
    path relative to its run and its bytes, or a table's name and its rows), hashed in
    name order so the order they were read in does not matter."""
    h = hashlib.sha256()
    for name, blob in sorted(parts, key=lambda p: p[0]):
        digest_part(h, name, blob)
    return h.hexdigest()[:SHORT]


def digest_part(h: Any, name: str, blob: bytes | memoryview) -> None:
    """Feed one ``(name, bytes)`` part of :func:`input_digest` to the SHA-256 ``h``: the
    name and the bytes, each after its length (a digest built a part at a time, in name
    order, as :mod:`toolkit.rubrics.simulation.digests` does, equals ``input_digest``'s)."""
    for piece in (name.encode("utf-8"), blob):
        h.update(len(piece).to_bytes(8, "big"))
        h.update(piece)


def rows_bytes(frame: Any) -> bytes:
    """The rows of a Polars frame as bytes that depend on their values alone: newline-
    delimited JSON, one object a row (never the in-memory layout: two loads of the same
    file may chunk, buffer or pad their arrays differently, and Arrow IPC writes those
    buffers as they are)."""
    text: str = frame.write_ndjson()
    return text.encode("utf-8")


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for key in value:
            _flatten(value[key], f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value


@record  # eq, hash, repr: toolkit._record
class Epoch(FieldsEqual, FieldsRepr):
    """What decides a number, and its short hash :attr:`id`.

    Attributes:
        rubric, version: the rubric's name and version.
        parameters: the rubric's data as loaded (thresholds and weights included) and any
            scoring option that changes a number (a simulation's window).
        judge: the judge's provider, model, prompt template and cassette digest (empty
            without a judge).
        scorer: the toolkit's version.
    """

    rubric: str
    version: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    judge: Mapping[str, Any] = field(default_factory=dict)
    scorer: str = __version__

    def basis(self) -> dict[str, Any]:
        """Everything the epoch hashes, flat: ``rubric``, ``version``, ``scorer``,
        ``parameters.<path>`` and ``judge.<field>``."""
        flat: dict[str, Any] = {
            "rubric": self.rubric,
            "version": self.version,
            "scorer": self.scorer,
        }
        _flatten(dict(self.parameters), "parameters", flat)
        _flatten(dict(self.judge), "judge", flat)
        return flat

    @property
    def id(self) -> str:
        """The epoch: :func:`short_hash` of :meth:`basis`."""
        return short_hash(self.basis())

    def differences(self, other: Epoch) -> list[str]:
        """What differs from ``other``, one line a parameter (``name: mine → theirs``),
        in name order; empty when both are one epoch."""
        mine, theirs = self.basis(), other.basis()
        missing = object()
        lines = []
        for key in sorted(set(mine) | set(theirs)):
            a, b = mine.get(key, missing), theirs.get(key, missing)
            if a != b:
                shown = ["(absent)" if v is missing else json.dumps(v, default=str) for v in (a, b)]
                lines.append(f"{key}: {shown[0]} → {shown[1]}")
        return lines


def spec_epoch(spec: Any, **options: Any) -> Epoch:
    """The epoch of a rubric spec (a pydantic model with ``rubric`` and ``version``, as
    :class:`toolkit.rubrics._spec.RubricSpec`): its data as loaded, plus ``options``
    (scoring options that change a number; ``None`` ones are left out)."""
    data = spec.model_dump(mode="json", exclude={"rubric", "version"})
    extra = {k: v for k, v in options.items() if v is not None}
    return Epoch(spec.rubric, spec.version, {**data, **extra})


def stamp(card: Scorecard, epoch: Epoch | str, inputs: str | None = None) -> Scorecard:
    """``card`` with its epoch (and input digest, when known) in ``meta``."""
    meta = {**dict(card.meta), EPOCH_KEY: epoch if isinstance(epoch, str) else epoch.id}
    if inputs is not None:
        meta[INPUTS_KEY] = inputs
    return dataclasses.replace(card, meta=meta)


def epochs_of(cards: Iterable[Scorecard]) -> list[str]:
    """The distinct epochs of ``cards``, in first-seen order (cards without one skipped)."""
    return list(dict.fromkeys(str(c.meta[EPOCH_KEY]) for c in cards if c.meta.get(EPOCH_KEY)))
