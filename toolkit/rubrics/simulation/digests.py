"""Each run's input digest over a whole fleet, from one JSON-lines write a range of runs.

The digest of a run is :func:`toolkit.epoch.input_digest` over its tick, batch and
checkpoint rows as loaded, each frame's rows as :func:`toolkit.epoch.rows_bytes` (JSON
lines) without the columns naming where a row was read from. Writing each run's rows on
their own cost a fixed ~0.6 ms a run and a frame (Polars plans a write per call): at 34
runs of 300 ticks, 60 % of a scoring. Here a range of whole runs (about
:data:`CHUNK_ROWS` rows) is written at once and cut at its line ends into each run's rows:
the same bytes, since a JSON line holds one row and no raw newline (JSON escapes it).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator

import polars as pl

from toolkit.epoch import SHORT, digest_part
from toolkit.load.universe import Universe

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
    slugs = frame["slug"]
    if slugs.rle_id().max() != slugs.n_unique() - 1:  # a run's rows apart
        frame = frame.sort("slug", maintain_order=True)
        slugs = frame["slug"]
    runs = slugs.rle()
    lengths: list[int] = runs.struct.field("len").to_list()
    names = [str(v) for v in runs.struct.field("value").to_list()]
    first = 0  # the first run of the range
    offset = 0  # its first row
    while first < len(lengths):
        last, rows = first, 0
        while last < len(lengths) and (rows == 0 or rows + lengths[last] <= chunk_rows):
            rows += lengths[last]
            last += 1
        buffer = io.BytesIO()  # the bytes Polars writes (str and back: a copy and a scan)
        frame.slice(offset, rows).write_ndjson(buffer)
        text = buffer.getvalue()
        view = memoryview(text)
        per_line = max(1, len(text) // rows)
        start = 0
        for run in range(first, last):
            end = _past_lines(text, start, lengths[run], per_line)
            yield names[run], view[start:end]
            start = end
        first, offset = last, offset + rows


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
