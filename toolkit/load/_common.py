"""Helpers shared by the loaders; reading goes through :mod:`toolkit.io.edge`.

Reading a JSON file and the one-line form of a pydantic error live in
:mod:`toolkit.io.documents` (the judges use them too) and are named here for the loaders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.io import edge
from toolkit.io.documents import read_json, validation_problem
from toolkit.io.duplicates import DuplicateKey

__all__ = [
    "load_json_bytes",
    "parse_json_bytes",
    "parse_json_lines",
    "parse_json_text",
    "read_json",
    "validation_problem",
]


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
