"""The results of other commands the site shows on their own pages: a ``toolkit compare
--format json`` result and a ``toolkit calibrate --format json`` result, read through the
reading edge and checked for what those pages show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.io.edge import parse_json_text, read_text


def _result_json(path: str | Path, rubric: str) -> dict[str, Any]:
    """The JSON object of a ``toolkit <command> --format json`` result whose ``rubric``
    is ``rubric``, read through the reading edge.

    Raises:
        InputError: not valid JSON, or not such a result (naming the file and the rubric).
    """
    doc = parse_json_text(read_text(path), str(path))
    if not isinstance(doc, dict) or doc.get("rubric") != rubric:
        found = doc.get("rubric") if isinstance(doc, dict) else type(doc).__name__
        raise InputError(path, f"not a toolkit {rubric} JSON result", field="rubric", value=found)
    return doc


def load_compare(path: str | Path) -> dict[str, Any]:
    """A ``toolkit compare --format json`` result, read through the reading edge and
    checked for what the site's comparison page shows.

    Raises:
        InputError: not such a result (naming the file, the field and the value).
    """
    doc = _result_json(path, "compare")
    for key in ("dimensions", "flips"):
        rows = doc.get(key)
        if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("dimension"), str) for r in rows
        ):
            raise InputError(
                path, "must be a list of rows that each name a dimension", field=key,
                value=rows if not isinstance(rows, list) else rows[:1],
            )  # fmt: skip
    return doc


def load_calibration(path: str | Path) -> dict[str, Any]:
    """A ``toolkit calibrate --format json`` result, read through the reading edge and
    checked for what the site's calibration page shows. The optional fields of the
    disagreements (``notes``, ``reasoning``, ``evidence``, ``source``, ``anchor``) are
    shown when present and may be missing or null.

    Raises:
        InputError: not such a result (naming the file, the field and the value).
    """
    doc = _result_json(path, "calibrate")
    for key in ("disagreements", "bias"):
        rows = doc.get(key)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise InputError(path, "must be a list of objects", field=key, value=rows)
    for n, row in enumerate(doc["disagreements"]):
        if not isinstance(row.get("item"), str | int):
            raise InputError(path, "names no item", field=f"disagreements[{n}].item",
                             value=row.get("item"))  # fmt: skip
        notes = row.get("notes")
        if notes is not None and not (
            isinstance(notes, list) and all(isinstance(x, dict) for x in notes)
        ):
            raise InputError(path, "must be a list of {rater, note}",
                             field=f"disagreements[{n}].notes", value=notes)  # fmt: skip
    for key in ("band", "confusion"):
        if doc.get(key) is not None and not isinstance(doc[key], dict):
            raise InputError(path, "must be an object", field=key, value=doc[key])
    return doc
