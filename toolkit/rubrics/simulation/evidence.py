"""Evidence: the ticks behind a status (refusal clusters, character breaks,
ungrounded ticks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.load.universe import Universe
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation.features import run_history, tick_features
from toolkit.rubrics.simulation.windows import scored_window

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def _window(universe: Universe, rubric: SimulationRubric, window: int | None) -> pl.LazyFrame:
    return tick_features(
        universe.ticks, rubric, run_history(universe, rubric), window=scored_window(window, rubric)
    )


def refusal_clusters(
    universe: Universe,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    min_length: int = 2,
) -> pl.DataFrame:
    """Runs of consecutive refused ticks in the window, longest first.

    Returns:
        Columns slug, first_tick, last_tick, length, reasons (distinct refusal reasons).
    """
    return (
        _window(universe, rubric, window)
        .with_columns(run_id=pl.col("refused").rle_id().over("slug"))
        .filter(pl.col("refused"))
        .group_by("slug", "run_id")
        .agg(
            first_tick=pl.col("tick").min(),
            last_tick=pl.col("tick").max(),
            length=pl.len().cast(pl.Int64),
            reasons=pl.col("refusal_reason").drop_nulls().unique(maintain_order=True),
        )
        .filter(pl.col("length") >= min_length)
        .sort(["length", "first_tick"], descending=[True, False])
        .drop("run_id")
        .collect()
    )


def character_breaks(
    universe: Universe, rubric: SimulationRubric = DEFAULT_RUBRIC, window: int | None = None
) -> pl.DataFrame:
    """Turns in the window whose action text holds a break marker.

    Returns:
        Columns slug, tick, actor, marker (the first marker found), action_text.
    """
    return (
        _window(universe, rubric, window)
        .filter(pl.col("is_break"))
        .select("slug", "tick", "actor", pl.col("break_marker").alias("marker"), "action_text")
        .collect()
    )


def ungrounded_ticks(
    universe: Universe, rubric: SimulationRubric = DEFAULT_RUBRIC, window: int | None = None
) -> pl.DataFrame:
    """Ungrounded ticks in the window and why.

    Returns:
        Columns slug, tick, status, mutation_count, grounded_source, unsupported_claims
        (observer claims with no matching mutation), observation_text.
    """
    return (
        _window(universe, rubric, window)
        .filter(pl.col("grounded").not_())
        .select(
            "slug",
            "tick",
            pl.col("status").cast(pl.String),
            "mutation_count",
            pl.col("grounded_source").cast(pl.String),
            "unsupported_claims",
            "observation_text",
        )
        .collect()
    )
