"""Tick summaries: one parse per file into typed columns, normalised column-wise.

Where the optional C accelerator is built (``_tickscan.c``, :data:`ACCEL`), it screens
each chunk first and builds the columns of the files it can vouch for; the rest take the
pure-Python paths below, which are the reference it is tested against.

The fast path parses each tick file once with msgspec: a batch of files together
(:func:`_fast`: one typed decoder mapped over them, one colon count for the batch, and
the fields the frame reads of the decoded structs written back as one JSON array that
Polars' JSON reader turns into the raw frame's columns), and any file that path cannot
vouch for on its own (:func:`screen_tick`, whose typed fields become columns through
:func:`_row` and :func:`screened_frame`). Repeated keys are found exactly and the JSON
types checked in the same pass. A file holding a value whose column form Polars' NDJSON
reader decides (a float inside a change list, a number beyond 64 bits) is read by that
reader instead, in one read for all such files (JSON strings cannot hold a raw newline,
so replacing newlines with spaces keeps every file one NDJSON line). Every row is then
checked column-wise; a file the screen or the check refuses is looked at alone with the
pydantic models, which name the file, the field and the value. A file that passes there
is re-serialised in canonical form and read by Polars' reader, so there is exactly one
normaliser, :func:`normalise`.

The same bytes give the same frame whichever path a file takes (the differential tests
load every sample both ways). Polars' reader keeps the *first* of repeated keys and
coerces mistyped scalars (``false`` as the text ``"false"``), where the rule of
:mod:`toolkit.io.duplicates` is that the last value wins, with a warning, and the
models refuse or coerce a mistyped field: a file that repeats a key or holds a field of
a type the reader would coerce (:class:`_Screen`) is read on the per-file path.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import re
from collections.abc import Callable, Sequence
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import TICKS_SCHEMA
from toolkit.io.edge import Packed
from toolkit.load._common import load_json_bytes, validation_problem
from toolkit.load._run_files import TICK_ID_PATTERN
from toolkit.load._tick_frame import RAW_TICK_SCHEMA, STAGES, arrow_frame, arrow_text
from toolkit.load._tick_frame import (
    collector_paused as collector_paused,  # re-exported: _run_build and _run_listing use it
)
from toolkit.load._tick_normalise import (  # re-exported: the loaders import them from here
    CONTINUATION_MECHANIC as CONTINUATION_MECHANIC,
)
from toolkit.load._tick_normalise import (
    CONTINUATION_TEXT as CONTINUATION_TEXT,
)
from toolkit.load._tick_normalise import in_order as in_order
from toolkit.load._tick_normalise import normalise, plain_ids

_Scan = Callable[
    [Sequence[bytes]], tuple[list[int], object, object, bool, tuple[object, object] | None]
]
_accel_scan: _Scan | None
try:  # the optional C accelerator (setup.py builds it where a C compiler is found)
    from toolkit.load._tickscan import scan as _accel_scan
except ImportError:  # a machine without a compiler: the pure path
    _accel_scan = None
_accel_scan_packed: Callable[[bytes, Any], Any] | None
try:  # the same screen over files packed in one buffer (toolkit.io.edge.Packed)
    from toolkit.load._tickscan import scan_packed as _accel_scan_packed
except ImportError:  # not built, or built before it had scan_packed: slices are scanned
    _accel_scan_packed = None

#: (Text: ``re`` compiles it on first use, which a well-formed run never makes;
#: compiled at import, it cost every one-run command, issue 38.)
_TICK_ID = TICK_ID_PATTERN
#: The largest tick number the ticks frame holds (Int64).
MAX_TICK = 2**63 - 1
#: A duration must stay below this magnitude to fit the frame's 64-bit integer column, and
#: a stage's token count below half of it (two stages are summed). Numbers must be finite.
_DURATION_BOUND = 2.0**63
_TOKENS_BOUND = 2.0**62


def _number_problem(tick: Any) -> tuple[str, Any] | None:
    """The first number of a validated tick that the frame cannot hold: ``(field, value)``."""
    checks: list[tuple[str, Any, float]] = [("duration_ms", tick.duration_ms, _DURATION_BOUND)]
    for stage, counts in (tick.llm_tokens_by_stage or {}).items():
        for key, value in (counts or {}).items():
            checks.append((f"llm_tokens_by_stage.{stage}.{key}", value, _TOKENS_BOUND))
    costs = getattr(tick, "llm_cost_usd_by_stage", None) or {}
    checks += [(f"llm_cost_usd_by_stage.{k}", v, math.inf) for k, v in costs.items()]
    checks.append(("cost_usd", getattr(tick, "cost_usd", None), math.inf))
    for field, value, bound in checks:
        if value is not None and not (math.isfinite(value) and abs(value) < bound):
            return field, value
    return None


@functools.cache  # the same expression every time: built once (about 0.1 ms a chunk)
def _numbers_unfit() -> pl.Expr:
    """Column-wise :func:`_number_problem`: rows with a number the frame cannot hold."""

    def unfit(x: pl.Expr, bound: float) -> pl.Expr:
        # NaN and infinities fail ``<`` as they fail the bound: one comparison, no is_finite
        return (x.abs() < bound).not_()

    tokens = pl.col("llm_tokens_by_stage")
    costs = pl.col("llm_cost_usd_by_stage")
    parts = [
        unfit(pl.col("duration_ms"), _DURATION_BOUND),
        unfit(pl.col("cost_usd"), math.inf),
        *(unfit(costs.struct.field(s), math.inf) for s in STAGES),
        *(
            unfit(tokens.struct.field(s).struct.field(k), _TOKENS_BOUND)
            for s in STAGES
            for k in ("in", "out")
        ),
    ]
    return pl.any_horizontal([p.fill_null(False) for p in parts])


#: Whether :func:`parse_ticks` tries the bulk read first. Off, every file takes the
#: per-file path: the reference the bulk path must agree with (the differential tests
#: switch it off; nothing else should).
BULK_READ = True
#: Whether the bulk read takes the files in batches of a few C calls (:func:`_fast`)
#: before the file-at-a-time screen (:func:`screen_tick`) takes the rest. Off, every file is
#: screened on its own: the reference the batch path must agree with (tests only).
BATCH_PATH = True


#: Whether the batch path first hands each chunk to the C accelerator
#: (``toolkit/load/_tickscan.c``), which takes the files it can vouch for and leaves every
#: other file to the pure-Python path below, unchanged. On when the extension was built;
#: ``TOOLKIT_ACCEL=0`` in the environment turns it off (the pure path is the reference the
#: differential tests hold it to).
ACCEL = _accel_scan is not None and os.environ.get("TOOLKIT_ACCEL", "1") != "0"


def tick_number(value: str | int | None) -> int | None:
    """``"42"``, ``"tick_42"`` or ``42`` → ``42``; anything else → ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    m = re.fullmatch(_TICK_ID, value.strip())
    return int(m.group(1)) if m else None


def validate_tick(path: Path, data: Any) -> dict[str, Any]:
    """Check one parsed tick file with the pydantic models; return it in canonical form.

    Raises:
        InputError: naming the file, the field and the value that is wrong.
    """
    # the file models (~13 ms of CPU, and pydantic): only for a file the fast path refuses
    from pydantic import ValidationError

    from toolkit.load._run_models import TickV1, TickV2

    if not isinstance(data, dict):
        raise InputError(path, "a tick summary must be a JSON object", field="(top level)")
    version = data.get("schema_version", 1)
    model: type[TickV1] | type[TickV2]
    if type(version) is not int:  # ``true == 1.0 == 1`` in Python, but only 1 is version 1
        raise InputError(path, "unknown tick schema version", field="schema_version", value=version)
    if version == 1:
        model = TickV1
    elif version == 2:
        model = TickV2
    else:
        raise InputError(path, "unknown tick schema version", field="schema_version", value=version)
    try:
        tick = model.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    number = tick_number(tick.tick_id) if tick.tick_id is not None else None
    if tick.tick_id is not None and number is None:
        raise InputError(path, "tick id is not a tick number", field="tick_id", value=tick.tick_id)
    if number is not None and not 0 <= number <= MAX_TICK:
        raise InputError(path, "tick id is beyond 64 bits", field="tick_id", value=tick.tick_id)
    count = tick.mutations.count
    if count is not None and not -MAX_TICK - 1 <= count <= MAX_TICK:
        raise InputError(path, "a count beyond 64 bits", field="mutations.count", value=count)
    if tick.tick_id is None:
        if not re.match(r"^tick_\d+\.json$", path.name):
            raise InputError(path, "no tick id, and none in the file name", field="tick_id")
        number = int(path.name[len("tick_") : -len(".json")])
        if number > MAX_TICK:
            raise InputError(path, "tick number beyond 64 bits", field="tick_id", value=path.name)
    if (unfit := _number_problem(tick)) is not None:
        raise InputError(
            path, "a number the frame cannot hold (too large, or not finite)",
            field=unfit[0], value=unfit[1],
        )  # fmt: skip
    canonical = tick.model_dump(mode="json", by_alias=True)
    canonical["schema_version"] = version
    # The number validated here, not its text: Polars would read some texts Python
    # reads (a digit or a space outside ASCII) differently, or not at all.
    canonical["tick_id"] = number
    return canonical


def _one_line(blob: bytes) -> bytes:
    return blob.replace(b"\r", b" ").replace(b"\n", b" ").strip()


def _read(lines: Sequence[bytes]) -> pl.DataFrame:
    return pl.read_ndjson(io.BytesIO(b"\n".join(lines)), schema=RAW_TICK_SCHEMA)


#: Bytes that send a file the file-at-a-time way before any parse: an escaped colon (it
#: would blur the colon count), a surrogate escape, and a number ``-0`` (each a value
#: whose column form is Polars' reader's to decide; see :func:`plain_row`). A number is
#: followed by a delimiter, so ``-0`` then one of these covers every ``-0`` number.
_UNSAFE = ["\\u003", "\\ud", "\\uD", "-0,", "-0]", "-0}", "-0 ", "-0\n", "-0\r", "-0\t"]


def _unsafe(blobs: Sequence[bytes]) -> list[bool]:
    """Per file: whether it holds bytes of :data:`_UNSAFE` or is not UTF-8 (one pass of
    Polars' multi-pattern search over all files)."""
    binary = pl.Series(blobs, dtype=pl.Binary())
    try:
        text = binary.cast(pl.String())
    except pl.exceptions.ComputeError:  # some file is not UTF-8: it goes the careful way
        text = pl.Series([_utf8(b) for b in blobs], dtype=pl.String())
    return text.str.contains_any(_UNSAFE).fill_null(True).to_list()


def _utf8(blob: bytes) -> str | None:
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _decoded(blobs: Sequence[bytes]) -> tuple[bytes, list[int]]:
    """The files msgspec decodes as :class:`_Fast` with every key accounted for by the
    colon count (of the whole structs written back), their fields the frame reads written
    back as one JSON array (:func:`projected`), and their positions in ``blobs``."""
    # msgspec and the screen's Structs (~5 ms to import) only for the files the C
    # accelerator leaves, or with it off: a one-run load it takes whole skips them.
    from toolkit.load._tick_screen import DECODE_ERRORS as _DECODE_ERRORS
    from toolkit.load._tick_screen import ENCODE, FAST_DECODE, projected

    try:
        ticks = list(map(FAST_DECODE, blobs))
        kept = list(range(len(blobs)))
    except _DECODE_ERRORS:  # some file does not fit: find which, one at a time
        ticks, kept = [], []
        for i, blob in enumerate(blobs):
            try:
                ticks.append(FAST_DECODE(blob))
            except _DECODE_ERRORS:
                continue
            kept.append(i)
    raw = sum(map(bytes.count, (blobs[i] for i in kept), repeat(b":")))
    if ENCODE(ticks).count(b":") == raw:
        return projected(ticks), kept
    same = [
        i
        for i, (k, tick) in enumerate(zip(kept, ticks, strict=True))
        if ENCODE(tick).count(b":") == blobs[k].count(b":")
    ]
    return projected([ticks[i] for i in same]), [kept[i] for i in same]


#: Files decoded and read back per batch. Polars' JSON reader costs least per record on
#: arrays of a few hundred (about 3.5 µs a tick file at 300, 4.0 at 100, 4.7 at 1,000,
#: 5.8 at 5,000 here), and a whole load's peak memory is lowest at 400-500 (3.0x the
#: frames, against 3.2x at 300, 3.7x at 100 and 5.1x at 5,000: docs/performance.md).
BATCH_FILES = 400


def _fast(blobs: Sequence[bytes]) -> tuple[pl.DataFrame | None, list[int], list[int]]:
    """The batch path over a chunk: the frame of the files it takes (with their indexes
    in the chunk, ascending) and the indexes of the files left to the file-at-a-time path
    (:func:`_batch` without what the accelerator vouches for)."""
    frame, taken, left, _ = _batch(blobs)
    return frame, taken, left


def _batch(
    blobs: Sequence[bytes],
) -> tuple[pl.DataFrame | None, list[int], list[int], pl.Series | None]:
    """:func:`_fast`, and the unsupported claims of its rows as :func:`normalise` would
    find them, when the accelerator took every file and vouches that every row passes the
    column-wise check (:func:`_problems`); else ``None``.

    With the accelerator (:data:`ACCEL`), one C call screens the whole chunk and builds
    the raw frame's columns of the files it takes as Arrow buffers (:func:`arrow_frame`);
    the files it does not take go through :func:`_pure_fast`, the pure-Python batch path."""
    if not ACCEL or _accel_scan is None or not blobs:
        return (*_pure_fast(blobs), None)
    if isinstance(blobs, Packed) and _accel_scan_packed is not None:  # no bytes per file
        kept, schema, array, checked, claims = _accel_scan_packed(blobs.data, blobs.ends)
    else:
        kept, schema, array, checked, claims = _accel_scan(blobs)
    if not kept:
        return (*_pure_fast(blobs), None)
    try:
        frame = arrow_frame(schema, array)
        vouched = (
            arrow_text("unsupported_claims", *claims)
            if checked and claims is not None and len(kept) == len(blobs)
            else None
        )
    except (pl.exceptions.PolarsError, TypeError, ValueError):  # not expected: a Polars
        return (*_pure_fast(blobs), None)  # that cannot take the array has the pure path
    if len(kept) == len(blobs):
        return frame, kept, [], vouched
    taken_set = set(kept)
    rest = [i for i in range(len(blobs)) if i not in taken_set]
    more, more_taken, left = _pure_fast([blobs[i] for i in rest])
    if more is None:
        return frame, kept, [rest[i] for i in left], None
    taken = kept + [rest[i] for i in more_taken]
    order = sorted(range(len(taken)), key=taken.__getitem__)
    whole = pl.concat([frame, more])[order]
    return whole, [taken[i] for i in order], [rest[i] for i in left], None


def _pure_fast(blobs: Sequence[bytes]) -> tuple[pl.DataFrame | None, list[int], list[int]]:
    """The pure-Python batch path over a chunk: the frame of the files it takes (with their indexes
    in the chunk) and the indexes of the files left to the file-at-a-time path.

    Each batch of files is decoded by one typed msgspec decoder mapped over them
    (:func:`_decoded`); the structs are written back whole for the colon count, then
    with only the fields the frame reads (:func:`projected`) for Polars' JSON reader to
    turn into the frame's columns: the typed values go from C to Rust without a Python
    object per field."""
    unsafe = _unsafe(blobs)
    frames: list[pl.DataFrame] = []
    taken: list[int] = []
    left = [i for i in range(len(blobs)) if unsafe[i]]
    index = [i for i in range(len(blobs)) if not unsafe[i]]
    for start in range(0, len(index), BATCH_FILES):
        batch = index[start : start + BATCH_FILES]
        written, kept = _decoded([blobs[i] for i in batch])
        chosen = [batch[k] for k in kept]
        try:
            frame = pl.read_json(written, schema=RAW_TICK_SCHEMA) if chosen else None
        except pl.exceptions.PolarsError:  # not expected: the structs' types are the schema's
            frame = None
        if frame is None or frame.height != len(chosen):
            left.extend(batch)
            continue
        if len(chosen) < len(batch):
            left.extend(sorted(set(batch) - set(chosen)))
        frames.append(frame)
        taken.extend(chosen)
    frame = (pl.concat(frames) if len(frames) > 1 else frames[0]) if frames else None
    return frame, taken, sorted(left)


def _problems(raw: pl.DataFrame, files: pl.Series) -> pl.Series:
    """Rows the column-wise check rejects (the pydantic models would reject them too)."""
    bad = _refused()
    if plain_ids(raw["tick_id"]) is None:  # plain ids are all good tick numbers
        bad = bad | _tick_id_unfit(files)
    return raw.select(bad.fill_null(True)).to_series()


@functools.cache  # the same expression for every chunk: built once
def _refused() -> pl.Expr:
    """The column-wise check of :func:`_problems` but for the tick ids."""
    version = pl.col("schema_version").fill_null(1)
    return (
        version.is_in([1, 2]).not_()
        | ((version == 2) & pl.col("kind").is_in(["execute", "yield", "refuse"]).not_())
        | ((version == 2) & pl.col("kind").is_null())
        | (
            (version == 2)
            & pl.col("conservation_verdict").is_not_null()
            & pl.col("conservation_verdict").is_in(["ok", "violated"]).not_()
        )
        | _numbers_unfit()
    )


def _tick_id_unfit(files: pl.Series) -> pl.Expr:
    """Rows whose tick id is not a tick number, or that have none and no file name
    ``tick_<n>.json`` to take it from, or whose number is beyond 64 bits."""
    name_number = files.str.extract(r"(?:^|/)tick_(\d+)\.json$", 1)
    id_digits = pl.col("tick_id").str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    return (
        (
            pl.col("tick_id").is_not_null()
            & pl.col("tick_id").str.strip_chars().str.contains(TICK_ID_PATTERN).not_()
        )
        | (pl.col("tick_id").is_null() & pl.lit(name_number).is_null())
        # a number beyond 64 bits: the slow path names it
        | (id_digits.is_not_null() & id_digits.cast(pl.Int64, strict=False).is_null())
        | (pl.col("tick_id").is_null() & pl.lit(name_number).cast(pl.Int64, strict=False).is_null())
    )


def _ordered(raw: pl.DataFrame, rows: Sequence[int]) -> pl.DataFrame:
    # (``hstack``, not ``with_columns``: the same frame without planning a query)
    return raw.hstack([pl.Series("_order", rows, dtype=pl.Int64)])


def _without_order(raw: pl.DataFrame) -> pl.DataFrame:
    """``raw`` without its ``_order`` column (``drop`` plans a query; this does not)."""
    kept = raw.clone()
    kept.drop_in_place("_order")
    return kept


class Parsed(NamedTuple):
    """Tick files parsed but not yet normalised: their raw rows in file order, with each
    row's slug and file. :func:`normalised` turns one or several into the ticks frame, so
    a fleet parsed a chunk of files at a time pays :func:`normalise`'s fixed cost (about
    40 Polars operations) once for many chunks."""

    raw: pl.DataFrame
    slugs: pl.Series
    files: pl.Series
    #: The rows' unsupported claims when the accelerator found them (else normalise does).
    claims: pl.Series | None = None


def parse_ticks(
    slugs: Sequence[str],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    notes: list[tuple[str, str]] | None = None,
) -> tuple[pl.DataFrame, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into the ticks frame
    (:func:`parse_raw`, then :func:`normalised`).

    Returns:
        The ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`) sorted by slug and tick,
        and one :class:`InputError` per file that could not be used.
    """
    parsed, errors = parse_raw(slugs, files, blobs, notes)
    return normalised([parsed]), errors


def parse_raw(
    slugs: Sequence[str],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    notes: list[tuple[str, str]] | None = None,
) -> tuple[Parsed, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into raw rows, in file order.

    Each file is parsed once (:func:`screen_tick`) and its typed fields become the frame's
    columns (:func:`screened_frame`); a file whose values are Polars' reader's to decide (a
    float inside a change list, a number beyond 64 bits) is read by it, in one NDJSON
    read for all such files. A file the screen or the column-wise check refuses is read
    on its own and validated by the pydantic models (:func:`validate_tick`).

    Args:
        slugs: the run slug of each file.
        files: the tick files, in the same order.
        blobs: each file's bytes.
        notes: when given, ``(file, warning)`` is appended to it for each repeated key
            (``path:line: duplicate key 'k': the last value is used``).

    Returns:
        The rows of the files that could be used (:class:`Parsed`), and one
        :class:`InputError` per file that could not.
    """
    errors: list[InputError] = []
    parts: list[pl.DataFrame] = []
    redo: set[int] = set(range(len(blobs)))
    raw, vouched = _bulk(blobs) if blobs and BULK_READ else (None, None)
    texts = _texts("source_file", files) if raw is not None else None  # built once
    if vouched is not None and raw is not None:  # every file, each row checked in C
        return _in_file_order(raw, slugs, files, texts)._replace(claims=vouched), errors
    if raw is not None and texts is not None:
        bad = _problems(raw, texts.gather(raw["_order"]))
        redo -= set(raw["_order"].filter(bad.not_()).to_list())
        if not redo:
            return _in_file_order(raw, slugs, files, texts), errors
        parts.append(raw.filter(bad.not_()))
    # The per-file path: only for the files the bulk read could not take.
    careful = _one_at_a_time(sorted(redo), files, blobs, errors, notes)
    if careful is not None:
        parts.append(careful)
    if not parts:
        empty = _texts("slug", [])
        return Parsed(pl.DataFrame(schema=RAW_TICK_SCHEMA), empty, empty), errors
    return _in_file_order(pl.concat(parts), slugs, files, texts), errors


def _bulk(blobs: Sequence[bytes]) -> tuple[pl.DataFrame | None, pl.Series | None]:
    """The raw rows (with their file's index, ``_order``) of the files the bulk read
    takes: the batch path, then the screen, then Polars' NDJSON reader for the files
    whose values are the reader's to decide; ``None`` when it takes none. Beside them,
    what the accelerator vouches for when it took every file (see :func:`_batch`)."""
    parts: list[pl.DataFrame] = []
    careful: Sequence[int] = range(len(blobs))
    if BATCH_PATH:
        with collector_paused():
            fast, taken, careful, vouched = _batch(blobs)
        if fast is not None:
            parts.append(_ordered(fast, taken))
        if vouched is not None:
            return parts[0], vouched
    if not careful:
        return (pl.concat(parts) if len(parts) > 1 else parts[0] if parts else None), None
    # msgspec and the screen's Structs (~5 ms to import) only for the files the batch
    # path leaves: a one-run load the C accelerator takes whole skips them.
    from toolkit.load._tick_screen import plain_row, screen_tick, screened_frame

    plain: list[int] = []
    plain_rows: list[tuple[Any, ...]] = []
    rest: list[int] = []
    for i in careful:
        blob = blobs[i]
        tick = screen_tick(blob)
        if tick is None:
            continue
        row = plain_row(tick, blob)
        if row is None:
            rest.append(i)
        else:
            plain.append(i)
            plain_rows.append(row)
    if plain:
        parts.append(_ordered(screened_frame(plain_rows), plain))
    del plain_rows
    if rest:
        try:
            read = _read([_one_line(blobs[i]) for i in rest])
        except pl.exceptions.PolarsError:
            read = None
        if read is not None and read.height == len(rest):
            parts.append(_ordered(read, rest))
    return (pl.concat(parts) if len(parts) > 1 else parts[0] if parts else None), None


def _one_at_a_time(
    indexes: Sequence[int],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    errors: list[InputError],
    notes: list[tuple[str, str]] | None,
) -> pl.DataFrame | None:
    """The raw rows of the files at ``indexes``, each parsed and validated on its own by
    the pydantic models; a file they refuse is one of ``errors``."""
    lines: list[bytes] = []
    kept: list[int] = []
    for i in indexes:
        path = Path(files[i])
        try:
            data, dupes = load_json_bytes(path, blobs[i])
            canonical = validate_tick(path, data)
        except InputError as err:
            errors.append(err)
            continue
        if notes is not None:
            notes.extend((str(files[i]), d.describe(files[i])) for d in dupes)
        lines.append(json.dumps(canonical).encode())
        kept.append(i)
    return _ordered(_read(lines), kept) if kept else None


def _in_file_order(
    raw: pl.DataFrame,
    slugs: Sequence[str],
    files: Sequence[str | Path],
    texts: pl.Series | None,
) -> Parsed:
    """Raw rows carrying their file's index (``_order``) put in file order (the first of
    two files with one tick number is the one kept), with their slugs and files.
    ``texts``: ``files`` as a text column, when the caller has built it already."""
    if texts is None:
        texts = _texts("source_file", files)
    order = raw["_order"]
    if order.len() == len(files) and order.is_sorted():  # every file, in order: as it is
        return Parsed(_without_order(raw), _texts("slug", slugs), texts)
    raw = raw.sort("_order")
    order = raw["_order"]
    return Parsed(_without_order(raw), _texts("slug", slugs).gather(order), texts.gather(order))


def normalised(parts: Sequence[Parsed]) -> pl.DataFrame:
    """The ticks frame of tick files parsed in one or several parts (:func:`parse_raw`),
    sorted by slug and tick: :func:`normalise` once over all their rows. The same frame
    as each part normalised alone, sorted together (equal ticks keep their files'
    order)."""
    parts = [part for part in parts if part.raw.height]
    if not parts:
        return pl.DataFrame(schema=TICKS_SCHEMA)
    if len(parts) == 1:
        return normalise(*parts[0])
    raw = pl.concat([part.raw for part in parts], rechunk=False)
    slugs = pl.concat([part.slugs for part in parts], rechunk=False)
    files = pl.concat([part.files for part in parts], rechunk=False)
    found = [part.claims for part in parts if part.claims is not None]
    claims = pl.concat(found, rechunk=False) if len(found) == len(parts) else None
    return normalise(raw, slugs, files, claims)


def _texts(name: str, values: Sequence[str | Path]) -> pl.Series:
    """``values`` as a text column (Polars then picks rows by index, not Python)."""
    try:  # all text, as a listing gives them: Polars takes the list as it is (2.5x faster)
        return pl.Series(name, values, dtype=pl.String)
    except (TypeError, ValueError):  # some are paths
        return pl.Series(name, [v if type(v) is str else str(v) for v in values], dtype=pl.String)
