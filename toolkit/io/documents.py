"""Documents read through the edge and checked in one line: a JSON file, the header of
the toolkit's own versioned documents (judge cassettes, price tables), and a pydantic
validation error as one :class:`~toolkit.errors.InputError`.

Shared by the loaders and the judges, so neither reaches into the other's private modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError
from toolkit.io import edge

if TYPE_CHECKING:  # pydantic (~0.1 s): only named here; import toolkit.judge stays light
    from pydantic import ValidationError

__all__ = ["check_document_header", "read_json", "validation_problem"]


def read_json(path: Path, *, within: Path | None = None) -> Any:
    """Read and parse a JSON file through the reading edge (:mod:`toolkit.io.edge`).

    Raises:
        InputError: not a regular file, too big, not UTF-8, too deep, or not valid JSON
            (naming the line of the syntax error).
    """
    return edge.parse_json(edge.read_bytes(path, within=within), path)


def check_document_header(
    path: str | Path, data: Any, *, what: str, fmt: str, version: int | str
) -> dict[str, Any]:
    """``data`` as a document of the toolkit's own versioned kind ``what`` (``format`` and
    ``version`` keys, as cassettes and price tables carry).

    Raises:
        InputError: not a mapping with that ``format``, or another ``version``.
    """
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise InputError(
            path,
            f"not a {what} (expected format {fmt!r})",
            field="format",
            value=data.get("format") if isinstance(data, dict) else data,
        )
    if data.get("version") != version:
        raise InputError(
            path,
            f"unsupported {what} version (this toolkit reads {version})",
            field="version",
            value=data.get("version"),
        )
    return data


def validation_problem(path: Path, exc: ValidationError) -> InputError:
    """The first pydantic error of ``exc`` as a one-line :class:`InputError`."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return InputError(path, err["msg"], field=where, value=err.get("input"))
