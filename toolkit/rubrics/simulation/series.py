"""The per-tick series of every dimension of a run, in long form (one row per tick and
dimension), for charts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import ENGINE
from toolkit.load.universe import Universe
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation._values import DIMENSIONS
from toolkit.rubrics.simulation.fanout import fanout_series
from toolkit.rubrics.simulation.features import run_history
from toolkit.rubrics.simulation.windows import window_series
from toolkit.scorecard import NA

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric

#: Columns of :func:`dimension_series`.
SERIES_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "tick": pl.Int64(),
    "dimension": pl.String(),
    "name": pl.String(),
    "value": pl.Float64(),
    "status": pl.String(),
}


def dimension_series(
    universe: Universe,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    *,
    chunks: Sequence[tuple[int, int]] | None = None,
) -> pl.DataFrame:
    """Every dimension's trailing-window value and status at every tick, in long form.

    Args:
        universe, rubric, window: the runs, the rubric and its W.
        chunks: row ranges (offset, length) of ``universe.ticks`` that each hold whole
            runs (:func:`~toolkit.rubrics.simulation.run_chunks`): the rolling pass is
            made a range at a time, which gives the same frame at a smaller peak memory
            (one pass over 3,000 runs of 30 ticks peaked about 240 MiB above its
            40 MiB result). Default: one pass.

    Returns:
        A frame with columns slug, tick, dimension, name, value, status: for the six
        tick-based dimensions the value over the W ticks ending at that tick; for graph
        fan-out the slope at the latest checkpoint at or before that tick.
    """
    if universe.ticks.height == 0:
        return pl.DataFrame(schema=SERIES_SCHEMA)
    parts = list(series_chunks(universe, rubric, window, chunks))
    if len(parts) == 1:
        return parts[0]
    return pl.concat(parts).sort("slug", "dimension", "tick")


def series_chunks(
    universe: Universe,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    chunks: Sequence[tuple[int, int]] | None = None,
) -> Iterator[pl.DataFrame]:
    """:func:`dimension_series` a chunk of whole runs at a time (``chunks`` as there): each
    chunk's rows, sorted by slug, dimension and tick. A run's rows are those it has in
    :func:`dimension_series`; a caller that wants them run by run (scoring a fleet) never
    holds the whole fleet's series at once (10,000 runs of 30 ticks: 2.4 million rows,
    whose concatenation, sort and partition peaked about 0.4 GiB)."""
    if universe.ticks.height == 0:
        return
    history = run_history(universe, rubric)
    fan = (
        fanout_series(universe.checkpoints, rubric)
        .collect(engine=ENGINE)
        .select("slug", "tick", "slope", "status_graph_fanout")
        .sort("tick")
    )
    for offset, length in chunks or [(0, universe.ticks.height)]:
        if length:
            yield _long(universe.ticks.slice(offset, length), fan, rubric, window, history)


def _long(
    ticks: pl.DataFrame,
    fan: pl.DataFrame,
    rubric: SimulationRubric,
    window: int | None,
    history: pl.DataFrame | None,
) -> pl.DataFrame:
    """The series of the whole runs in ``ticks``, long and sorted."""
    wide = window_series(ticks, rubric, window, history).collect(engine=ENGINE)
    wide = wide.join_asof(
        fan,
        on="tick",
        by="slug",
        strategy="backward",
        check_sortedness=False,
    ).sort("slug", "tick")
    values = {
        "groundedness": "groundedness",
        "character_stability": "character_stability",
        "action_coherence": "streak",
        "refusal_cluster": "cluster",
        "vocabulary_growth": "vocab_rate",
        "conservation_drift": "drift",
        "graph_fanout": "slope",
        "novel_subtype_rate": "subtype_rate",
    }
    keys = rubric.dimension_keys()
    parts = [
        wide.select(
            "slug",
            "tick",
            pl.lit(key).alias("dimension"),
            pl.lit(DIMENSIONS[key]).alias("name"),
            pl.col(col).cast(pl.Float64).alias("value"),
            pl.col(f"status_{key}").fill_null(NA).alias("status"),
        )
        for key, col in values.items()
        if key in keys
    ]
    return pl.concat(parts).sort("slug", "dimension", "tick").cast(SERIES_SCHEMA)  # type: ignore[arg-type]
