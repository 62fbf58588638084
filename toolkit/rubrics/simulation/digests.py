"""Each run's input digest over a whole fleet, from one JSON-lines write a range of runs.

The digest of a run is :func:`toolkit.epoch.input_digest` over its tick, batch and
checkpoint rows as loaded, each frame's rows as :func:`toolkit.epoch.rows_bytes` (JSON
lines) without the columns naming where a row was read from. Writing each run's rows on
their own cost a fixed ~0.6 ms a run and a frame (Polars plans a write per call): at 34
runs of 300 ticks, 60 % of a scoring. Here a range of whole runs (about
:data:`CHUNK_ROWS` rows) is written at once and cut at its line ends into each run's rows:
the same bytes, since a JSON line holds one row and no raw newline (JSON escapes it).

Where the optional C accelerator is built (``_rowsjson.c``, :data:`ACCEL`), it writes a
range's rows itself from the frame's Arrow arrays, the bytes Polars writes, and gives each
line's end, so no line is counted: about half of Polars' cost (Polars plans a
streaming sink per write). Floats are handed to it as Polars' own text of them (the digits
its JSON writer prints); a type it does not write (a date, a float in a list, a time zone
other than UTC, ...) leaves the range to Polars. Polars' writer is the reference the
accelerator is tested against (``tests/rubrics/test_simulation_digests_accel.py``);
``TOOLKIT_ACCEL=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from types import ModuleType

import polars as pl

from toolkit.epoch import SHORT, digest_part
from toolkit.load.universe import Universe

_rowsjson: ModuleType | None
try:  # the optional C writer (setup.py builds it where a C compiler is found)
    import toolkit.rubrics.simulation._rowsjson as _rowsjson
except ImportError:  # a machine without a compiler: Polars writes every range
    _rowsjson = None

#: Whether ranges are written by the C writer where it can (``TOOLKIT_ACCEL=0`` in the
#: environment when the module is imported turns it off, as it does the load's).
ACCEL = _rowsjson is not None and os.environ.get("TOOLKIT_ACCEL", "1") != "0"

#: The frames a run's digest covers, in the (name) order the digest hashes them.
FRAMES: tuple[str, ...] = ("batches", "checkpoints", "ticks")

#: Rows written at once (whole runs; a larger run alone): one range's JSON lines
#: (about 0.5 KiB a tick) are all that is held, never the whole fleet's.
CHUNK_ROWS = 8_192


def input_digests(universe: Universe, chunk_rows: int = CHUNK_ROWS) -> dict[str, str]:
    """Each run's input digest (every slug of ``universe``, and any other slug its frames
    hold), equal to :func:`toolkit.epoch.input_digest` over ``(frame name,
    rows_bytes(the run's rows))`` for each frame holding rows of the run."""
    hashers = {slug: hashlib.sha256() for slug in universe.slugs}
    for name in sorted(FRAMES):
        frame: pl.DataFrame = getattr(universe, name)
        if "slug" not in frame.columns or frame.is_empty():
            continue
        # where a row was read from is not its content: a copied run keeps its digest
        where = [c for c in frame.columns if c == "path" or c.endswith(("_file", "_path"))]
        kept = frame.clone()  # (``drop`` plans a query: ~1 ms)
        for column in where:
            kept.drop_in_place(column)
        for slug, rows in run_rows_bytes(kept, chunk_rows):
            digest_part(hashers.setdefault(slug, hashlib.sha256()), name, rows)
    return {slug: hasher.hexdigest()[:SHORT] for slug, hasher in hashers.items()}


def run_rows_bytes(
    frame: pl.DataFrame, chunk_rows: int = CHUNK_ROWS
) -> Iterator[tuple[str, memoryview]]:
    """``(slug, JSON lines of the run's rows)`` for each run of ``frame``, its rows in
    frame order: the bytes ``rows_bytes`` writes for the run's rows alone (the rows of
    ``frame.partition_by("slug")``), the key as ``str`` of the slug."""
    # (one query: the struct's fields are read without one each, as ``rle_id`` and ``max``
    # and each ``struct.field`` cost a query of their own; ~0.2 ms of a one-run call)
    runs = frame["slug"].rle().struct.unnest()
    if runs.height != frame["slug"].n_unique():  # a run's rows apart
        frame = frame.sort("slug", maintain_order=True)
        runs = frame["slug"].rle().struct.unnest()
    lengths: list[int] = runs["len"].to_list()
    names = [str(v) for v in runs["value"].to_list()]
    texts, raw = floats_as_text(frame) if ACCEL else (None, frozenset[str]())
    first = 0  # the first run of the range
    offset = 0  # its first row
    while first < len(lengths):
        last, rows = first, 0
        while last < len(lengths) and (rows == 0 or rows + lengths[last] <= chunk_rows):
            rows += lengths[last]
            last += 1
        written = _c_lines(texts, raw, offset, rows) if texts is not None else None
        if written is None:
            buffer = io.BytesIO()  # the bytes Polars writes (str and back: a copy and a scan)
            frame.slice(offset, rows).write_ndjson(buffer)
            text, ends = buffer.getvalue(), None
        else:
            text, ends = written
        view = memoryview(text)
        per_line = max(1, len(text) // rows)
        start, row = 0, 0
        for run in range(first, last):
            row += lengths[run]
            end = (
                ends[row - 1]
                if ends is not None
                else _past_lines(text, start, lengths[run], per_line)
            )
            yield names[run], view[start:end]
            start = end
        first, offset = last, offset + rows


def _c_lines(
    texts: pl.DataFrame, raw: frozenset[str], offset: int, rows: int
) -> tuple[bytes, memoryview] | None:
    """Rows ``offset`` to ``offset + rows`` of ``texts`` as JSON lines written by the C
    writer, with each line's end; ``None`` where it does not write a type the rows hold."""
    if _rowsjson is None:
        return None
    try:
        text, ends = _rowsjson.rows(texts.slice(offset, rows).__arrow_c_stream__(), raw)
    except _rowsjson.Unsupported:
        return None
    return text, memoryview(ends).cast("q")


def floats_as_text(frame: pl.DataFrame) -> tuple[pl.DataFrame, frozenset[str]]:
    """``frame`` with each float column as Polars' text of its values (a NaN or an
    infinity as null, as its JSON writer writes them), and the names of those columns:
    what the C writer writes unquoted."""
    floats = [name for name, dtype in frame.schema.items() if dtype in (pl.Float32, pl.Float64)]
    if not floats:
        return frame, frozenset()
    texts = frame.clone()  # eager Series work: ``with_columns`` plans a query (~1 ms)
    # which values are NaN or infinite, every float column in one query (three a column
    # as Series calls: ``is_nan``, ``is_infinite`` and ``fill_null`` each plan one)
    odds = frame.select(
        (pl.col(name).is_nan() | pl.col(name).is_infinite()).fill_null(False) for name in floats
    )
    for name in floats:
        values = texts[name]
        text = values.cast(pl.String)
        odd = odds[name]
        if odd.any():
            text = text.zip_with(~odd, pl.Series([None] * len(text), dtype=pl.String))
        texts.replace_column(texts.get_column_index(name), text)
    return texts, frozenset(floats)


def _past_lines(text: bytes, start: int, lines: int, per_line: int) -> int:
    """The offset just past the ``lines``-th line end at or after ``start``: counted a
    guessed stretch at a time (``per_line`` bytes a line), the overshoot stepped back."""
    left = lines
    while True:
        end = min(start + left * per_line, len(text))
        found = text.count(b"\n", start, end)
        if found < left:
            if end == len(text):
                raise ValueError(f"{lines} lines expected past offset {start}")
            start, left = end, left - found
            continue
        for _ in range(found - left):
            end = text.rindex(b"\n", start, end)
        return text.rindex(b"\n", start, end) + 1
