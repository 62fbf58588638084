"""The raw tick frame without msgspec: its schema (:data:`RAW_TICK_SCHEMA`), the C
accelerator's Arrow array as that frame (:func:`arrow_frame`), and the collector paused
while a chunk is decoded (:func:`collector_paused`).

Apart from :mod:`toolkit.load._tick_screen` (the msgspec shapes and the file-at-a-time
screen) so that a load the accelerator takes whole imports no msgspec (~3 ms) and builds
none of the screen's Structs and decoders (~2.5 ms): issue 38, one run."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

import polars as pl

#: A change list as the raw frame holds it: lists of scalars as text.
CHANGES = pl.List(pl.List(pl.String()))
STAGES = ("classifier", "observer")

#: What the NDJSON reader is asked for: the union of tick schema v1 and v2. Scalars inside
#: mutation and claim lists arrive as text (numbers as digits, objects as JSON).
RAW_TICK_SCHEMA: dict[str, pl.DataType] = {
    "schema_version": pl.Int64(),
    "tick_id": pl.String(),
    "timestamp_iso": pl.String(),
    "action_text": pl.String(),
    "classified_action": pl.Struct(
        {"verb": pl.String(), "actor": pl.String(), "target": pl.String()}
    ),
    "matched_mechanic_id": pl.String(),
    "yielded": pl.Boolean(),
    "refused": pl.Boolean(),
    "refusal_reason": pl.String(),
    "mutations": pl.Struct({"count": pl.Int64(), "list": CHANGES}),
    "observation_text": pl.String(),
    "duration_ms": pl.Float64(),
    "llm_tokens_by_stage": pl.Struct(
        {s: pl.Struct({"in": pl.Float64(), "out": pl.Float64()}) for s in STAGES}
    ),
    "llm_cost_usd_by_stage": pl.Struct({s: pl.Float64() for s in STAGES}),
    "actor_id": pl.String(),
    "kind": pl.String(),
    "conservation_verdict": pl.String(),
    "observation": pl.Struct({"text": pl.String(), "claimed_changes": CHANGES}),
    "cost_usd": pl.Float64(),
}


class _ArrowArray:
    """Two PyCapsules of the Arrow C data interface, as Polars takes an array."""

    __slots__ = ("_capsules",)

    def __init__(self, schema: object, array: object) -> None:
        self._capsules = (schema, array)

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        return self._capsules


def arrow_frame(schema: object, array: object) -> pl.DataFrame:
    """The struct array the C accelerator (``toolkit.load._tickscan.scan``) builds, as a
    frame of :data:`RAW_TICK_SCHEMA` (Polars takes its buffers; no value is copied into
    a Python object)."""
    frame = pl.Series(_ArrowArray(schema, array)).struct.unnest()
    if frame.schema != RAW_TICK_SCHEMA:  # large text and lists: Polars' own types
        frame = frame.cast(RAW_TICK_SCHEMA)  # type: ignore[arg-type]
    return frame


def arrow_text(name: str, schema: object, array: object) -> pl.Series:
    """A text column the C accelerator builds (its unsupported claims), as a Series."""
    column = pl.Series(name, _ArrowArray(schema, array))
    return column if column.dtype == pl.String else column.cast(pl.String)


# ---------------------------------------------------------------------------
# The collector, paused while a chunk is decoded
# ---------------------------------------------------------------------------

_GC_LOCK = threading.Lock()
_gc_holds = 0
_gc_was_enabled = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while runs are listed and decoded.

    A decode makes many small containers (the lists and dicts inside each tick; the
    structs themselves are not tracked), and a listing many tuples, none of them in a
    cycle, so the collector's passes over them find nothing, yet cost about a fifth of the
    decode's CPU and 5-10 % of a whole load (docs/performance.md). Counted under a lock, so
    that threads loading at once (or a load inside a load) switch it back on once, and
    only if it was on."""
    global _gc_holds, _gc_was_enabled
    with _GC_LOCK:
        if _gc_holds == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holds += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_holds -= 1
            if _gc_holds == 0 and _gc_was_enabled:
                gc.enable()
