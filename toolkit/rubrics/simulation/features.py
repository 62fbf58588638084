"""Per-tick features: the facts of each tick (novel unit, agent turn, break marker,
refusal, new subtypes) that the dimensions are built from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.load.universe import CONTINUATION_MECHANIC, Universe
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def longest_run(mask: pl.Expr) -> pl.Expr:
    """Length of the longest run of ``True`` in ``mask`` (0 when none)."""
    runs = mask.rle()
    return (
        runs.struct.field("len")
        .filter(runs.struct.field("value"))
        .max()
        .fill_null(0)
        .cast(pl.Int64)
    )


def tick_features(
    ticks: pl.LazyFrame | pl.DataFrame,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    history: pl.LazyFrame | pl.DataFrame | None = None,
    window: int | None = None,
) -> pl.LazyFrame:
    """Per-tick facts the dimensions are built from.

    Args:
        ticks: a ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`), one or many runs.
        rubric: supplies the break markers and the vocabulary unit.
        history: optional (slug, unit) pairs seen before the first tick file (e.g. the
            mechanic ids that batch records list); they are never novel.
        window: keep only each run's last ``window`` ticks (novelty is still decided
            against the whole run); ``None`` keeps every tick.

    Returns:
        The ticks sorted by slug and tick with added columns ``pos`` (row within run),
        ``unit`` (verb or mechanic id used for vocabulary), ``novel``, ``turn``,
        ``break_marker`` (the first marker found, or null), ``is_break`` and ``refused``.
    """
    if rubric.vocabulary_growth.unit == "verb":
        unit = pl.col("verb")
    else:
        unit = pl.when(pl.col("mechanic") != CONTINUATION_MECHANIC).then(pl.col("mechanic"))
    lf = (
        ticks.lazy()
        .sort("slug", "tick")
        .with_columns(pos=pl.int_range(pl.len()).over("slug"), unit=unit)
    )
    first_use = pl.col("unit").is_not_null() & pl.col("unit").is_first_distinct().over("slug")
    if history is not None:
        seen = history.lazy().select("slug", "unit").unique().with_columns(_seen=pl.lit(True))
        # The join keeps the ticks' order: ``first_use`` reads it (a join free to reorder,
        # Polars' default, let the streaming engine's threads decide which tick was first).
        lf = (
            lf.join(seen, on=["slug", "unit"], how="left", maintain_order="left")
            .with_columns(novel=first_use & pl.col("_seen").is_null())
            .drop("_seen")
        )
    else:
        lf = lf.with_columns(novel=first_use)
    lf = _with_new_subtypes(lf)
    if window is not None:
        lf = lf.filter(pl.col("pos") >= pl.len().over("slug").cast(pl.Int64) - window)
    # Text features only for the ticks kept: the marker search is the costly part.
    text = pl.col("action_text").fill_null("").str.strip_chars()
    lowered = pl.col("action_text").fill_null("").str.to_lowercase()
    turn = (text != "") & pl.col("continuation").not_()
    markers = [m.lower() for m in rubric.character_stability.markers]
    first_marker = pl.coalesce(
        [pl.when(lowered.str.contains(m, literal=True)).then(pl.lit(m)) for m in markers]
    )
    return lf.with_columns(
        turn=turn,
        break_marker=pl.when(turn).then(first_marker),
        refused=pl.col("status") == "refused",
    ).with_columns(is_break=pl.col("break_marker").is_not_null())


def _with_new_subtypes(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Add ``new_subtypes``: how many subtype values the tick writes first in its run.

    Values written by refused ticks (rollbacks included) were never kept, so they count
    neither as new nor as seen.
    """
    written = (
        lf.filter(pl.col("status") != "refused")
        .select("slug", "tick", value=pl.col("subtypes"))
        .explode("value")
        .drop_nulls("value")
        .filter(pl.col("value").is_first_distinct().over("slug"))
        .group_by("slug", "tick")
        .agg(new_subtypes=pl.len().cast(pl.Int64))
    )
    return lf.join(written, on=["slug", "tick"], how="left", maintain_order="left").with_columns(
        pl.col("new_subtypes").fill_null(0)
    )


def run_history(universe: Universe, rubric: SimulationRubric) -> pl.DataFrame | None:
    if rubric.vocabulary_growth.unit != "mechanic" or universe.batches.height == 0:
        return None
    return (
        universe.batches.select("slug", pl.col("mechanic_ids_used").alias("unit"))
        .explode("unit")
        .drop_nulls()
    )
