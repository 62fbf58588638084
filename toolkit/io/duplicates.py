"""The one rule for duplicate keys in JSON and YAML inputs: the last value wins, with a warning.

JSON (RFC 8259) leaves an object with a repeated name to the parser; Python's ``json``
module and YAML 1.1 loaders keep the last value, and so does the toolkit, on every path:
a file is never scored one way when read in bulk and another way when read alone. What a
parser silently collapses is still reported: each repeat becomes a warning naming the
file, the key and the line where the key is written again.

:func:`loads` parses JSON text once and returns the value (the last value wins) with
the repeats found; every JSON and JSON Lines reader goes through it, and the tick
loader screens every file of its bulk read with it (a file that repeats a key is read on
the per-file path, so Polars' first-value rule never decides a score).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.errors import DuplicateKeyWarning


@record  # eq, hash, repr: toolkit._record
class DuplicateKey(FieldsEqual, FieldsRepr):
    """A key written more than once in one object (or one YAML mapping)."""

    key: str
    line: int | None

    def describe(self, path: str | Path | None) -> str:
        """One line: ``path:line: duplicate key 'k': the last value is used``."""
        where = "" if path is None else str(path)
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        prefix = f"{where}: " if where else ""
        return f"{prefix}duplicate key {self.key!r}: the last value is used"


def _repeats(pairs: list[tuple[str, Any]]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for key, _ in pairs:
        if key in seen:
            out.append(key)
        seen.add(key)
    return out


def line_of_repeat(text: str, key: str, nth: int = 2) -> int | None:
    """The 1-based line where ``key`` is written as a JSON object key for the ``nth`` time."""
    token = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    for count, match in enumerate(token.finditer(text), start=1):
        if count == nth:
            return text.count("\n", 0, match.start()) + 1
    return None


def loads(text: str) -> tuple[Any, list[DuplicateKey]]:
    """Parse JSON ``text``: the value (the last of repeated keys wins) and the repeats.

    Raises:
        ValueError: ``text`` is not valid JSON (``json.JSONDecodeError``).
    """
    found: list[str] = []

    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            found.extend(_repeats(pairs))
        return out

    value = json.loads(text, object_pairs_hook=build)
    if not found:
        return value, []
    nth: dict[str, int] = {}
    dupes: list[DuplicateKey] = []
    for key in found:
        nth[key] = nth.get(key, 1) + 1
        dupes.append(DuplicateKey(key, line_of_repeat(text, key, nth[key])))
    return value, dupes


def warn(path: str | Path | None, dupes: list[DuplicateKey], *, line: int | None = None) -> None:
    """Issue one :class:`~toolkit.errors.DuplicateKeyWarning` per repeat.

    ``line`` is the line of the record in a JSON Lines file (a record is one line, so it
    replaces the line within the record).
    """
    for dupe in dupes:
        shown = dupe if line is None else DuplicateKey(dupe.key, line)
        warnings.warn(DuplicateKeyWarning(shown.describe(path)), stacklevel=3)
