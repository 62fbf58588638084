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
from typing import Any

import msgspec
import polars as pl

from toolkit.errors import InputError
from toolkit.frames import GROUNDED_SOURCE, TICK_STATUS, TICKS_SCHEMA
from toolkit.load._common import load_json_bytes, validation_problem
from toolkit.load._run_files import TICK_ID_PATTERN
from toolkit.load._tick_screen import (
    ENCODE,
    FAST_DECODE,
    RAW_TICK_SCHEMA,
    STAGES,
    arrow_frame,
    plain_row,
    projected,
    screen_tick,
    screened_frame,
)
from toolkit.load._tick_screen import (
    collector_paused as collector_paused,  # re-exported: _run_build and _run_listing use it
)

_Scan = Callable[[Sequence[bytes]], tuple[list[int], object, object]]
_accel_scan: _Scan | None
try:  # the optional C accelerator (setup.py builds it where a C compiler is found)
    from toolkit.load._tickscan import scan as _accel_scan
except ImportError:  # a machine without a compiler: the pure path
    _accel_scan = None

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"
_TICK_ID = re.compile(TICK_ID_PATTERN)
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
    m = _TICK_ID.fullmatch(value.strip())
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
_DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)


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
    in the chunk, ascending) and the indexes of the files left to the file-at-a-time path.

    With the accelerator (:data:`ACCEL`), one C call screens the whole chunk and builds
    the raw frame's columns of the files it takes as Arrow buffers (:func:`arrow_frame`);
    the files it does not take go through :func:`_pure_fast`, the pure-Python batch path."""
    if not ACCEL or _accel_scan is None or not blobs:
        return _pure_fast(blobs)
    kept, schema, array = _accel_scan(blobs)
    if not kept:
        return _pure_fast(blobs)
    try:
        frame = arrow_frame(schema, array)
    except (pl.exceptions.PolarsError, TypeError, ValueError):  # not expected: a Polars
        return _pure_fast(blobs)  # that cannot take the array has the pure path do it all
    if len(kept) == len(blobs):
        return frame, kept, []
    taken_set = set(kept)
    rest = [i for i in range(len(blobs)) if i not in taken_set]
    more, more_taken, left = _pure_fast([blobs[i] for i in rest])
    if more is None:
        return frame, kept, [rest[i] for i in left]
    taken = kept + [rest[i] for i in more_taken]
    order = sorted(range(len(taken)), key=taken.__getitem__)
    whole = pl.concat([frame, more])[order]
    return whole, [taken[i] for i in order], [rest[i] for i in left]


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


def _plain_ids(ids: pl.Series) -> pl.Series | None:
    """The tick numbers of ``ids`` when every id is present and plain digits (``"42"``,
    as almost every file writes it), else ``None``: then :data:`TICK_ID_PATTERN` must
    read them. An id equal to its number written back has no sign, space, prefix or
    leading zero, so for these ids the cast alone gives what the pattern would, without
    running a regex over every row."""
    if ids.null_count():
        return None
    numbers = ids.cast(pl.Int64, strict=False)
    if not ((numbers >= 0) & (numbers.cast(pl.String) == ids)).fill_null(False).all():
        return None
    return numbers


def _problems(raw: pl.DataFrame, files: pl.Series) -> pl.Series:
    """Rows the column-wise check rejects (the pydantic models would reject them too)."""
    bad = _refused()
    if _plain_ids(raw["tick_id"]) is None:  # plain ids are all good tick numbers
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
    return raw.with_columns(pl.Series("_order", rows, dtype=pl.Int64))


def parse_ticks(
    slugs: Sequence[str],
    files: Sequence[str | Path],
    blobs: Sequence[bytes],
    notes: list[tuple[str, str]] | None = None,
) -> tuple[pl.DataFrame, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into the ticks frame.

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
        The ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`) sorted by slug and tick,
        and one :class:`InputError` per file that could not be used.
    """
    errors: list[InputError] = []
    parts: list[pl.DataFrame] = []
    redo: set[int] = set(range(len(blobs)))
    raw = _bulk(blobs) if blobs and BULK_READ else None
    texts = _texts("source_file", files) if raw is not None else None  # built once
    if raw is not None and texts is not None:
        bad = _problems(raw, texts.gather(raw["_order"]))
        redo -= set(raw["_order"].filter(bad.not_()).to_list())
        if not redo:
            return _normalised(raw, slugs, files, texts), errors
        parts.append(raw.filter(bad.not_()))
    # The per-file path: only for the files the bulk read could not take.
    careful = _one_at_a_time(sorted(redo), files, blobs, errors, notes)
    if careful is not None:
        parts.append(careful)
    if not parts:
        return pl.DataFrame(schema=TICKS_SCHEMA), errors
    return _normalised(pl.concat(parts), slugs, files, texts), errors


def _bulk(blobs: Sequence[bytes]) -> pl.DataFrame | None:
    """The raw rows (with their file's index, ``_order``) of the files the bulk read
    takes: the batch path, then the screen, then Polars' NDJSON reader for the files
    whose values are the reader's to decide; ``None`` when it takes none."""
    parts: list[pl.DataFrame] = []
    careful: Sequence[int] = range(len(blobs))
    if BATCH_PATH:
        with collector_paused():
            fast, taken, careful = _fast(blobs)
        if fast is not None:
            parts.append(_ordered(fast, taken))
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
    return pl.concat(parts) if len(parts) > 1 else parts[0] if parts else None


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


def _normalised(
    raw: pl.DataFrame,
    slugs: Sequence[str],
    files: Sequence[str | Path],
    texts: pl.Series | None = None,
) -> pl.DataFrame:
    """:func:`normalise` of raw rows carrying their file's index (``_order``), in file
    order (the first of two files with one tick number is the one kept). ``texts``:
    ``files`` as a text column, when the caller has built it already."""
    if texts is None:
        texts = _texts("source_file", files)
    order = raw["_order"]
    if order.len() == len(files) and order.is_sorted():  # every file, in order: as it is
        return normalise(raw.drop("_order"), _texts("slug", slugs), texts)
    raw = raw.sort("_order")
    order = raw["_order"]
    return normalise(raw.drop("_order"), _texts("slug", slugs).gather(order), texts.gather(order))


def _texts(name: str, values: Sequence[str | Path]) -> pl.Series:
    """``values`` as a text column (Polars then picks rows by index, not Python)."""
    try:  # all text, as a listing gives them: Polars takes the list as it is (2.5x faster)
        return pl.Series(name, values, dtype=pl.String)
    except (TypeError, ValueError):  # some are paths
        return pl.Series(name, [v if type(v) is str else str(v) for v in values], dtype=pl.String)


def _change_parts(change: pl.Expr, value_index: int) -> list[pl.Expr]:
    """A change ``[target, property, ..., value]`` as three text columns ``target``,
    ``property``, ``value`` (numbers arrive as their digits, so ``5`` and ``"5"`` are one
    value; a null part is the text ``"null"``); the value is null when the change has
    fewer than three parts, so that it never matches."""
    target, prop, value = (
        change.list.get(i, null_on_oob=True).fill_null("null") for i in (0, 1, value_index)
    )
    return [
        target.alias("target"),
        prop.alias("property"),
        pl.when(change.list.len() >= 3).then(value).alias("value"),
    ]


def _unsupported_claims(claimed: pl.Series, changes: pl.Series) -> pl.Series:
    """Per row: the claims no change of the row makes, as ``target.property=value; ...``
    (null where every claim is made, or there are none).

    Args:
        claimed: each row's claimed changes ``[target, property, value]`` (null: none).
        changes: each row's changes ``[target, property, ..., new value]``.
    """
    claim, change = pl.col("claim"), pl.col("change")
    rows = (
        pl.DataFrame([claimed.alias("claim"), changes.alias("change")])
        .with_row_index("_row")
        .filter(claim.list.len() > 0)  # only rows with claims need their changes
    )
    claims = (
        rows.select("_row", "claim")
        .explode("claim")
        .drop_nulls("claim")
        .with_columns(_change_parts(claim, 2))
    )
    made = (
        rows.select("_row", "change")
        .explode("change")
        .drop_nulls("change")
        .select("_row", *_change_parts(change, -1))
    )
    text = pl.concat_str(
        claim.list.get(0, null_on_oob=True).fill_null("?"),
        pl.lit("."),
        claim.list.get(1, null_on_oob=True).fill_null("?"),
        pl.lit("="),
        claim.list.last().fill_null("null"),
    )
    unmade = (
        # Joined on the three parts, not one text of them (-12 %; exact, no separator)
        claims.join(
            made, on=["_row", "target", "property", "value"], how="anti", maintain_order="left"
        )
        .group_by("_row")
        .agg(text.str.join("; "))
    )
    # Put in place by row number: a join back would not promise to keep the rows' order.
    return (
        pl.repeat(None, claimed.len(), dtype=pl.String(), eager=True)
        .scatter(unmade["_row"], unmade["claim"])
        .alias("unsupported_claims")
    )


def _subtypes(changes: pl.Expr) -> pl.Expr:
    """The new values (last part) of the changes ``[target, "subtype", ..., new]``."""
    # Nulls are dropped inside the eval: ``list.drop_nulls`` after it cost 5x the rest.
    written = changes.list.eval(
        pl.when(
            (pl.element().list.len() >= 3)
            & (pl.element().list.get(1, null_on_oob=True) == "subtype")
        )
        .then(pl.element().list.last())
        .drop_nulls()
    )
    return written.fill_null(pl.lit([], dtype=pl.List(pl.String())))


def _tick_numbers(ids: pl.Series, files: pl.Series) -> pl.Series:
    """Each row's tick number: its tick id's (``"42"``, ``" tick_42 "``), else its file
    name's (``tick_42.json``); plain ids without a regex (:func:`_plain_ids`)."""
    plain = _plain_ids(ids)
    if plain is not None:
        return plain.alias("tick")
    named = ids.str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    if named.null_count():
        named = named.fill_null(files.str.extract(r"tick_(\d+)\.json$", 1))
    return named.cast(pl.Int64).alias("tick")


def in_order(frame: pl.DataFrame) -> bool:
    """Whether the rows are sorted by slug, then tick (no null tick)."""
    slug, tick = pl.col("slug"), pl.col("tick")
    later = (slug.shift(-1) > slug) | ((slug.shift(-1) == slug) & (tick.shift(-1) >= tick))
    return bool(frame.select(later.head(pl.len() - 1).fill_null(False).all()).item())


_TICKS = pl.Schema(TICKS_SCHEMA)


def _status(v2: pl.Expr) -> pl.Expr:
    """The tick's status: v2's ``kind``; v1's refused / yielded flags, else executed when
    a mechanic matched, else unmatched."""
    mechanic, kind = pl.col("matched_mechanic_id"), pl.col("kind")

    def status_(name: str) -> pl.Expr:  # built as the enum: no cast of text afterwards
        return pl.lit(name, dtype=TICK_STATUS)

    return (
        pl.when(v2)
        .then(  # three comparisons cost less than a replace_strict
            pl.when(kind == "execute")
            .then(status_("executed"))
            .when(kind == "yield")
            .then(status_("yielded"))
            .when(kind == "refuse")
            .then(status_("refused"))
        )
        .when(pl.col("refused").fill_null(False))
        .then(status_("refused"))
        .when(pl.col("yielded").fill_null(False))
        .then(status_("yielded"))
        .when(mechanic.is_not_null() & (mechanic != ""))
        .then(status_("executed"))
        .otherwise(status_("unmatched"))
    )


@functools.cache
def _status_v2() -> pl.Expr:
    return _status(_V2)


def _derived(raw: pl.DataFrame, slugs: pl.Series, files: pl.Series, v2: pl.Expr) -> pl.DataFrame:
    """``raw`` with the columns the ticks frame is selected from: slug, file, tick number,
    claims, status, continuation, mutation count, verb."""
    mechanic = pl.col("matched_mechanic_id")
    claims = pl.col("observation").struct.field("claimed_changes")
    continuation = (pl.col("action_text") == CONTINUATION_TEXT).fill_null(False) | (
        mechanic == CONTINUATION_MECHANIC
    ).fill_null(False)
    mutations = pl.col("mutations")
    mutation_count = pl.coalesce(
        mutations.struct.field("count"), mutations.struct.field("list").list.len(), pl.lit(0)
    )
    claimed = raw.select(pl.when(v2).then(claims)).to_series()
    return raw.with_columns(
        slugs.alias("slug"),
        files.alias("source_file"),
        _tick_numbers(raw["tick_id"], files),
        claimed.alias("_claimed"),
        _unsupported_claims(claimed, raw["mutations"].struct.field("list")),
        status=_status_v2(),
        continuation=continuation,
        mutation_count=mutation_count,
        _verb=pl.col("classified_action").struct.field("verb").str.strip_chars().str.to_lowercase(),
    )


def _action_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What the agent did: time, actor, text, verb, target, mechanic, status, refusal."""
    action = pl.col("classified_action")
    return {
        # Each tick has its own time: a cache of parsed strings only costs (-20 %).
        "timestamp": pl.col("timestamp_iso").str.strptime(
            pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%SZ", strict=False, cache=False
        ),
        "actor": pl.coalesce(pl.when(v2).then("actor_id"), action.struct.field("actor")),
        "action_text": "action_text",
        "verb": pl.when(pl.col("_verb") != "").then("_verb"),
        "target": action.struct.field("target"),
        "mechanic": "matched_mechanic_id",
        "status": "status",
        "refusal_reason": "refusal_reason",
    }


def _outcome_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What came of it: rollback, continuation, mutations, claims and groundedness, and
    the observation's text."""
    claimed = pl.col("_claimed").is_not_null()
    proxy_ungrounded = (
        pl.col("status").is_in(["executed", "unmatched"])
        & pl.col("continuation").not_()
        & (pl.col("mutation_count") == 0)
    )
    return {
        "rollback": pl.when(v2)
        .then(pl.col("conservation_verdict") == "violated")
        .otherwise(
            (pl.col("status") == "refused")
            & pl.col("refusal_reason")
            .fill_null("")
            .str.to_lowercase()
            .str.contains("conservation", literal=True)
        )
        .fill_null(False),
        "continuation": "continuation",
        "mutation_count": "mutation_count",
        "subtypes": _subtypes(pl.col("mutations").struct.field("list")),
        "claimed_count": pl.col("_claimed").list.len().cast(pl.Int64),
        "unsupported_claims": "unsupported_claims",
        "grounded": pl.when(claimed)
        .then(pl.col("unsupported_claims").is_null())
        .otherwise(proxy_ungrounded.not_()),
        "grounded_source": pl.when(claimed)
        .then(pl.lit("observer", dtype=GROUNDED_SOURCE))
        .otherwise(pl.lit("proxy", dtype=GROUNDED_SOURCE)),
        "observation_text": pl.when(v2)
        .then(pl.col("observation").struct.field("text"))
        .otherwise(pl.col("observation_text")),
    }


def _usage_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What it cost: dollars, tokens in and out (summed over the stages), duration."""
    tokens = pl.col("llm_tokens_by_stage")
    tokens_in = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("in").fill_null(0) for s in STAGES]
    )
    tokens_out = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("out").fill_null(0) for s in STAGES]
    )
    costs = pl.col("llm_cost_usd_by_stage")
    v1_cost = pl.sum_horizontal([costs.struct.field(s).fill_null(0.0) for s in STAGES])
    return {
        "cost_usd": pl.when(v2).then(pl.col("cost_usd")).when(costs.is_not_null()).then(v1_cost),
        "tokens_in": pl.when(tokens.is_not_null()).then(tokens_in).cast(pl.Int64),
        "tokens_out": pl.when(tokens.is_not_null()).then(tokens_out).cast(pl.Int64),
        "duration_ms": pl.col("duration_ms").cast(pl.Int64),
    }


#: Whether a row is of tick schema v2.
_V2 = pl.col("schema_version").fill_null(1) == 2


@functools.cache  # the same expressions for every chunk: built once (about 1 ms a chunk)
def _selected() -> dict[str, pl.Expr | str]:
    """The ticks frame's columns, as :func:`normalise` selects them from :func:`_derived`."""
    return {
        "slug": "slug",
        "tick": "tick",
        "schema_version": pl.col("schema_version").fill_null(1),
        **_action_columns(_V2),
        **_outcome_columns(_V2),
        **_usage_columns(_V2),
        "source_file": "source_file",
    }


def normalise(raw: pl.DataFrame, slugs: pl.Series, files: pl.Series) -> pl.DataFrame:
    """Turn raw tick records (:data:`RAW_TICK_SCHEMA`) into the ticks frame.

    Status, rollback, continuation, groundedness (exact from observer claims, else the
    proxy), cost and tokens are derived column-wise; see ``docs/formats/universe.md``.
    Claimed and made values are compared as text (``5`` and ``"5"`` are the same value).
    """
    out = _derived(raw, slugs, files, _V2).select(**_selected())
    # Built in the frame's types: casting a whole frame costs even when nothing changes.
    if out.schema != _TICKS:
        out = out.cast(TICKS_SCHEMA)  # type: ignore[arg-type]
    # Files are listed run by run in tick order, so the rows nearly always come in order:
    # checking costs a fraction of sorting. Equal ticks keep their files' order.
    if in_order(out):
        return out
    return out.sort("slug", "tick", maintain_order=True)
