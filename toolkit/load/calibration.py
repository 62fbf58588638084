"""Scores of shared items by human raters and a judge, from a simple file.

A scores file is CSV with a header holding ``item,rater,score`` (any other column, such
as ``agent`` or ``dimension``, is a group the judge's bias is broken down by) or JSON: a
list of ``{"item", "rater", "score", ...}`` objects, or ``{"scores": [...]}``, or the rating
server's JSON export of a persona session (``{"kind": "persona", "ratings": [...]}``, the
rows of its CSV export as objects).

Six optional columns are text, never groups (:data:`toolkit.frames.CALIBRATION_TEXT_SCHEMA`):
``notes`` (a human's note), ``reasoning`` (the judge's), ``evidence``, ``source``,
``anchor`` and ``text_sha256``. Each is a string (in JSON a number or a list is refused
by name) no longer than the reading edge's cell limit (``TOOLKIT_MAX_CELL_BYTES``), an
empty one is absent, and ``text_sha256`` is 64 hex digits. Which row may carry a note or
a reasoning depends on the judge's id, so :func:`toolkit.rubrics.calibrate.calibrate`
checks that. Scores
are numbers on the rubric's scale (0 to 9 by default). When a rater scored an item more
than once, the last row counts (with one warning saying how many). Read through the
reading edge (:mod:`toolkit.io.edge`), like the engagement ratings files
(:mod:`toolkit.load.ratings`).
"""

from __future__ import annotations

import csv
import io
import math
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError, InputWarning
from toolkit.frames import CALIBRATION_TEXT_SCHEMA
from toolkit.io import edge
from toolkit.load._common import parse_json_text

__all__ = ["load_calibration_scores"]

_FIELDS = ("item", "rater", "score")
_TEXTS = tuple(CALIBRATION_TEXT_SCHEMA)
_HEX = frozenset("0123456789abcdef")


def _score(
    path: str, value: Any, line: int | None, where: str, scale: tuple[float, float]
) -> float:
    low, high = scale
    why = f"score must be a number from {low:g} to {high:g}"
    if isinstance(value, bool):
        raise InputError(path, why, field=where, value=value, line=line)
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise InputError(path, why, field=where, value=value, line=line) from None
    if math.isnan(score) or not low <= score <= high:
        raise InputError(path, why, field=where, value=value, line=line)
    return score


def _rows_csv(
    path: str, text: str, scale: tuple[float, float]
) -> tuple[list[str], list[dict[str, Any]]]:
    with edge.csv_cells():
        reader = csv.DictReader(io.StringIO(text))
        try:
            header = [h.strip() for h in (reader.fieldnames or [])]
            if [f for f in _FIELDS if f not in header]:
                raise InputError(
                    path,
                    "a scores CSV needs the columns item, rater, score",
                    field="header",
                    value=",".join(header),
                    line=1,
                )
            reader.fieldnames = header
            groups = [h for h in header if h and h not in _FIELDS]
            rows: list[dict[str, Any]] = []
            for i, raw in enumerate(reader, start=2):
                row = _row(path, raw, groups, i, "", scale)
                rows.append(row)
            return groups, rows
        except csv.Error as exc:
            raise edge.csv_problem(path, exc, reader.line_num or None) from exc


def _row(
    path: str,
    raw: dict[str, Any],
    groups: list[str],
    line: int | None,
    prefix: str,
    scale: tuple[float, float],
) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for f in ("item", "rater"):
        value = raw.get(f)
        if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
            raise InputError(
                path, "must be a non-empty string", field=prefix + f, value=value, line=line
            )
        row[f] = str(value).strip()
    row["score"] = _score(path, raw.get("score"), line, prefix + "score", scale)
    for g in groups:  # the extra columns: groups and the optional text columns
        value = raw.get(g)
        if g in _TEXTS:
            row[g] = _text(path, value, line, prefix + g)
            continue
        if isinstance(value, dict | list):
            raise InputError(
                path,
                "a group must be a string or a number",
                field=prefix + g,
                value=value,
                line=line,
            )
        row[g] = None if value is None or str(value).strip() == "" else str(value).strip()
    return row


def _text(path: str, value: Any, line: int | None, where: str) -> str | None:
    """An optional text column's value: a string within the cell limit (blank: None)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(path, "must be a string", field=where, value=value, line=line)
    limit = edge.limits().max_cell_bytes
    if len(value) > limit:
        raise InputError(
            path,
            f"longer than {limit:,} characters (raise TOOLKIT_MAX_CELL_BYTES to read it)",
            field=where,
            value=value[:40],
            line=line,
        )
    text = value.strip()
    if not text:
        return None
    if where.endswith("text_sha256"):
        text = text.lower()
        if len(text) != 64 or not set(text) <= _HEX:
            raise InputError(
                path, "must be a sha256: 64 hex digits", field=where, value=value, line=line
            )
    return text


def _rows_json(
    path: str, text: str, scale: tuple[float, float]
) -> tuple[list[str], list[dict[str, Any]]]:
    data = parse_json_text(path, text)
    key = "scores"
    if isinstance(data, dict):
        if "scores" not in data and data.get("kind") == "persona" and "ratings" in data:
            key = "ratings"  # the rating server's JSON export of a persona session
        data = data.get(key)
    if not isinstance(data, list):
        raise InputError(
            path, 'expected a list of scores or {"scores": [...]}', field=key, value=data
        )
    groups: list[str] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(path, "a score must be an object", field=f"{key}.{i}", value=item)
        groups.extend(k for k in item if k not in _FIELDS and k not in groups)
    rows = [_row(path, item, groups, None, f"{key}.{i}.", scale) for i, item in enumerate(data)]
    return groups, rows


def load_calibration_scores(
    path: str | Path, scale: tuple[float, float] = (0.0, 9.0)
) -> pl.DataFrame:
    """Read a scores file (CSV, or JSON when the name ends in ``.json`` or the text
    starts with ``[`` or ``{``).

    Args:
        path: the file.
        scale: the lowest and highest score allowed.

    Returns:
        item, rater, score (Float64), the optional text columns the file has (notes,
        reasoning, evidence, source, anchor, text_sha256: String, null when blank) and
        the group columns (String), one row per item and rater (the last row of a pair
        counts).

    Raises:
        InputError: one line naming the file, the line or field, and the value.
    """
    name = str(path)
    if not Path(path).exists():
        raise InputError(name, "no such scores file")
    text = edge.read_text(path)
    is_json = name.lower().endswith(".json") or text.lstrip().startswith(("[", "{"))
    groups, rows = _rows_json(name, text, scale) if is_json else _rows_csv(name, text, scale)
    if not rows:
        raise InputError(name, "no scores in the file")
    schema: dict[str, pl.DataType] = {
        "item": pl.String(),
        "rater": pl.String(),
        "score": pl.Float64(),
    }
    schema |= {g: pl.String() for g in groups}
    frame = pl.DataFrame(rows, schema=schema)
    kept = frame.unique(["item", "rater"], keep="last", maintain_order=True)
    if kept.height < frame.height:  # lenient, as the ratings files are, but said
        repeated = frame.height - kept.height
        warnings.warn(
            InputWarning(
                f"{name}: {repeated} repeated (item, rater) row(s); the last of each counts"
            ),
            stacklevel=2,
        )
    return kept
