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
(:mod:`toolkit.load.ratings`): a CSV's shape (a column named twice, rows with more or
fewer cells than the header) is checked by one streaming pass of the ``csv`` module and
its values by Polars, column by column, so 10^6 rows cost no Python loop over values;
blank lines are skipped but count against the line limit (``TOOLKIT_MAX_LINES``). A JSON
file that writes a key twice in one object is refused, naming both values.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from array import array
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError, InputWarning
from toolkit.frames import CALIBRATION_TEXT_SCHEMA
from toolkit.io import edge
from toolkit.io.csvcells import restore_frame
from toolkit.ratings.agreement import last_per_pair

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
    except (TypeError, ValueError, OverflowError):  # OverflowError: a 400-digit integer
        raise InputError(path, why, field=where, value=value, line=line) from None
    if math.isnan(score) or not low <= score <= high:
        raise InputError(path, why, field=where, value=value, line=line)
    return score


def _csv_shape(path: str, blob: bytes) -> tuple[list[str], array[int], list[int]]:
    """The header of a scores CSV, the first line of each record and the records that
    are blank lines, by one streaming pass of the ``csv`` module (constant memory a
    row): every cell within the cell limit, no column named twice, every record as wide
    as the header.

    Raises:
        InputError: a column missing or named twice, a record with more or fewer cells
            than the header, a cell over the limit; naming the file, line and value.
    """
    starts: array[int] = array("q")
    blank: list[int] = []
    with edge.csv_cells():
        # decoded as it is read (a StringIO of the whole text holds 4 bytes a character)
        lines = io.TextIOWrapper(io.BytesIO(blob), encoding="utf-8-sig", newline="")
        reader = csv.reader(lines)
        try:
            header = [h.strip() for h in next(reader, [])]
            _check_header(path, header)
            width, line = len(header), reader.line_num + 1
            for index, cells in enumerate(reader):
                if not cells:  # a blank line (counted against the line limit already)
                    blank.append(index)
                    line = reader.line_num + 1
                    continue
                if len(cells) != width:
                    raise InputError(
                        path, f"the row has {len(cells)} cells, the header {width}",
                        field="row", value=",".join(cells), line=line,
                    )  # fmt: skip
                starts.append(line)
                line = reader.line_num + 1
        except csv.Error as exc:
            raise edge.csv_problem(path, exc, reader.line_num or None) from exc
    return header, starts, blank


def _check_header(path: str, header: list[str]) -> None:
    """Refuse a header without item, rater and score, or naming a column twice."""
    if [f for f in _FIELDS if f not in header]:
        raise InputError(
            path,
            "a scores CSV needs the columns item, rater, score",
            field="header",
            value=",".join(header),
            line=1,
        )
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(path, "names a column twice", field="header", value=name, line=1)
        seen.add(name)


def _frame_csv(path: str, blob: bytes, scale: tuple[float, float]) -> pl.DataFrame:
    """The scores of a CSV: its shape checked by :func:`_csv_shape`, its values read by
    Polars and checked column by column (no Python loop over the rows)."""
    edge.check_lines(blob, path)
    edge.decode_text(blob, path)  # UTF-8, or one line naming the byte offset
    header, starts, blank = _csv_shape(path, blob)
    raw: pl.DataFrame = edge.read_frame(blob.removeprefix(b"\xef\xbb\xbf"), path, "csv")
    raw = raw.rename(dict(zip(raw.columns, header, strict=True)))
    if blank:
        raw = raw.with_row_index("_row").filter(~pl.col("_row").is_in(blank)).drop("_row")
    groups = [h for h in header if h and h not in _FIELDS]
    # the quote the toolkit's own CSV writers put before a formula-like cell, taken off
    stripped = restore_frame(raw.with_columns(pl.all().str.strip_chars()))
    frame = stripped.select(
        "item", "rater", pl.col("score").cast(pl.Float64, strict=False), *groups
    ).with_columns(pl.col(g).replace("", None) for g in groups)
    low, high = scale
    empty = "must be a non-empty string"
    checks: list[tuple[str, pl.Expr, str]] = [
        ("item", pl.col("item").is_null() | (pl.col("item") == ""), empty),
        ("rater", pl.col("rater").is_null() | (pl.col("rater") == ""), empty),
        ("score", ~pl.col("score").is_between(low, high).fill_null(False),
         f"score must be a number from {low:g} to {high:g}"),
    ]  # fmt: skip
    if "text_sha256" in groups:
        sha = pl.col("text_sha256").str.to_lowercase()
        frame = frame.with_columns(sha)
        checks.append(("text_sha256", sha.is_not_null() & ~sha.str.contains("^[0-9a-f]{64}$"),
                       "must be a sha256: 64 hex digits"))  # fmt: skip
    for column, bad, why in checks:
        hit = frame.select(pl.arg_where(bad).first()).item()
        if hit is not None:
            line = starts[hit] if hit < len(starts) else None
            shown = stripped[column][hit]  # an empty cell is read as null: shown as it was
            raise InputError(path, why, field=column, value=shown or "", line=line)
    return frame


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


def _repeated_values(text: str, key: str) -> list[Any]:
    """The values of the first object of ``text`` that writes ``key`` more than once."""
    found: list[Any] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        values = [v for k, v in items if k == key]
        if len(values) > 1 and not found:
            found.extend(values)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)  # parsed once already: it cannot fail here
    return found


def _rows_json(
    path: str, text: str, scale: tuple[float, float]
) -> tuple[list[str], list[dict[str, Any]]]:
    data, dupes = edge.load_json_text(text, path)
    if dupes:  # a score file is written by a program: a repeat is a bug, never a choice
        first = dupes[0]
        raise InputError(
            path, "names a field twice in one object (which value is meant?)",
            field=first.key, value=_repeated_values(text, first.key), line=first.line,
        )  # fmt: skip
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
    blob = edge.read_bytes(path)
    is_json = name.lower().endswith(".json") or blob.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(
        (b"[", b"{")
    )
    if is_json:
        groups, rows = _rows_json(name, edge.decode_text(blob, name), scale)
        schema: dict[str, pl.DataType] = {
            "item": pl.String(),
            "rater": pl.String(),
            "score": pl.Float64(),
        }
        schema |= {g: pl.String() for g in groups}
        frame = pl.DataFrame(rows, schema=schema)
    else:
        frame = _frame_csv(name, blob, scale)
    if frame.height == 0:
        raise InputError(name, "no scores in the file")
    kept = last_per_pair(frame, ("item", "rater"))
    if kept.height < frame.height:  # lenient, as the ratings files are, but said
        repeated = frame.height - kept.height
        warnings.warn(
            InputWarning(
                f"{name}: {repeated} repeated (item, rater) row(s); the last of each counts"
            ),
            stacklevel=2,
        )
    return kept
