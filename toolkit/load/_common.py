"""Helpers shared by the loaders: reading JSON/YAML files into (value, problem) pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.load import _duplicates


def read_json(path: Path) -> Any:
    """Parse a JSON file.

    Raises:
        InputError: naming the file and the line of the syntax error.
    """
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read file ({exc.strerror or exc})") from exc
    return parse_json_bytes(path, blob)


def parse_json_bytes(path: Path, blob: bytes) -> Any:
    """Parse the bytes of the JSON file ``path`` (repeated keys as in :func:`parse_json_text`).

    Raises:
        InputError: not UTF-8, or not valid JSON (with the line of the error).
    """
    value, dupes = load_json_bytes(path, blob)
    _duplicates.warn(path, dupes)
    return value


def load_json_bytes(path: Path, blob: bytes) -> tuple[Any, list[_duplicates.DuplicateKey]]:
    """Parse the bytes of the JSON file ``path``: the value (the last of repeated keys
    wins) and the repeated keys, for a caller that reports them itself (no warning).

    Raises:
        InputError: not UTF-8, or not valid JSON (with the line of the error).
    """
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, "not UTF-8 text") from exc
    return _loads(path, text)


def _loads(path: str | Path | None, text: str) -> tuple[Any, list[_duplicates.DuplicateKey]]:
    try:
        return _duplicates.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc.msg})", line=exc.lineno) from exc


def parse_json_text(path: str | Path | None, text: str) -> Any:
    """Parse JSON text read from ``path``; a repeated key keeps its last value, with a
    :class:`~toolkit.errors.DuplicateKeyWarning` naming the file, the key and the line.

    Raises:
        InputError: not valid JSON, naming the line of the error.
    """
    value, dupes = _loads(path, text)
    _duplicates.warn(path, dupes)
    return value


def parse_json_lines(path: str | Path | None, text: str) -> list[tuple[int, Any]]:
    """Parse JSON Lines text: ``(line number, value)`` per non-blank line (repeated keys as
    in :func:`parse_json_text`).

    Raises:
        InputError: a line that is not valid JSON, naming its line number.
    """
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value, dupes = _duplicates.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not valid JSON ({exc.msg})", line=number) from exc
        _duplicates.warn(path, dupes, line=number)
        rows.append((number, value))
    return rows


def validation_problem(path: Path, exc: ValidationError) -> InputError:
    """The first pydantic error of ``exc`` as a one-line :class:`InputError`."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return InputError(path, err["msg"], field=where, value=err.get("input"))
