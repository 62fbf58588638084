"""Helpers shared by the loaders; reading goes through :mod:`toolkit.io.edge`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.duplicates import DuplicateKey


def read_json(path: Path, *, within: Path | None = None) -> Any:
    """Read and parse a JSON file through the reading edge (:mod:`toolkit.io.edge`).

    Raises:
        InputError: not a regular file, too big, not UTF-8, too deep, or not valid JSON
            (naming the line of the syntax error).
    """
    return edge.parse_json(edge.read_bytes(path, within=within), path)


def parse_json_bytes(path: Path, blob: bytes) -> Any:
    """Parse the bytes of the JSON file ``path`` (see :func:`toolkit.io.edge.parse_json`;
    a repeated key keeps its last value, with a warning).

    Raises:
        InputError: not UTF-8, too deep, or not valid JSON (with the line of the error).
    """
    return edge.parse_json(blob, path)


def load_json_bytes(path: Path, blob: bytes) -> tuple[Any, list[DuplicateKey]]:
    """Parse the bytes of the JSON file ``path``: the value (the last of repeated keys
    wins) and the repeated keys, for a caller that reports them itself (no warning).

    Raises:
        InputError: not UTF-8, too deep, or not valid JSON (with the line of the error).
    """
    return edge.load_json(blob, path)


def parse_json_text(path: str | Path | None, text: str) -> Any:
    """Parse JSON text read from ``path`` (depth-checked before parsing).

    Raises:
        InputError: too deep, or not valid JSON, naming the line of the error.
    """
    return edge.parse_json_text(text, path)


def parse_json_lines(path: str | Path | None, text: str) -> list[tuple[int, Any]]:
    """Parse JSON Lines text: ``(line number, value)`` per non-blank line.

    Raises:
        InputError: a line that is not valid JSON (or too deep), naming its line number.
    """
    return edge.parse_json_lines(text, path)


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
