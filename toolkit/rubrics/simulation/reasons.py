"""A tick's own reasons: which ticks of the scored window decided each dimension, and why.

The scorecard says *how much* (a share, a longest stretch, a rate over the last W ticks);
these rows say *where*: the tick whose action broke character and the marker it used,
the refusal that began a refusal cluster, the ungrounded tick and what it claimed, the
first use of a verb, the rollback, the tick that first wrote a subtype value. They are
read from the same per-tick features the window scores are built from
(:func:`~toolkit.rubrics.simulation.features.tick_features`), over the same window, so
a row never names a tick the score did not count. Nothing here changes a score.

:func:`status_changes` names the ticks where a dimension's trailing-window status
changed (the tick where drift crossed its threshold), read from the per-tick series.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.load.universe import Universe
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation._values import SUBTYPE_PROPERTY
from toolkit.rubrics.simulation.features import run_history, tick_features
from toolkit.rubrics.simulation.windows import scored_window
from toolkit.scorecard import FAIL

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric

#: The status of a tick that counts for its dimension (the palette's per-item word).
PASS = "PASS"

#: Columns of :func:`tick_reasons`.
REASONS_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "dimension": pl.String(),
    "tick": pl.Int64(),
    "reason": pl.String(),
    "status": pl.String(),
}

#: Columns of :func:`status_changes`.
CHANGES_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "dimension": pl.String(),
    "tick": pl.Int64(),
    "value": pl.Float64(),
    "status": pl.String(),
    "previous": pl.String(),
}


def _rows(frame: pl.DataFrame, dimension: str, reason: pl.Expr, good: bool = False) -> pl.DataFrame:
    """Rows of ``frame`` (ticks or stretches) as reasons of ``dimension``; ``good``: they
    count for it (``PASS``), else against it (``FAIL``)."""
    status = pl.lit(PASS if good else FAIL).alias("status")
    return frame.select("slug", pl.lit(dimension).alias("dimension"), "tick",
                        reason.alias("reason"), status)  # fmt: skip


def _stretches(feats: pl.DataFrame, mask: pl.Expr) -> pl.DataFrame:
    """Each run's stretches of consecutive ticks where ``mask`` holds: slug, first_tick,
    last_tick, length, and the distinct refusal reasons in it (in order)."""
    return (
        feats.with_columns(_on=mask, _run=mask.rle_id().over("slug"))
        .filter(pl.col("_on"))
        .group_by("slug", "_run", maintain_order=True)
        .agg(
            first_tick=pl.col("tick").first(),
            last_tick=pl.col("tick").last(),
            length=pl.len().cast(pl.Int64),
            reasons=pl.col("refusal_reason").drop_nulls().unique(maintain_order=True),
        )
        .drop("_run")
    )


def _longest(stretches: pl.DataFrame) -> pl.DataFrame:
    """The first longest stretch of each run (the one a ``longest run`` score counts)."""
    return (
        stretches.filter(pl.col("length") == pl.col("length").max().over("slug"))
        .group_by("slug", maintain_order=True)
        .first()
        .rename({"first_tick": "tick"})
    )


def _span(head: str) -> pl.Expr:
    """``<head> begins here: 4 ticks (120-123)`` (``1 tick (116)`` for one)."""
    many = pl.format(
        head + " begins here: {} ticks ({}-{})",
        pl.col("length"),
        pl.col("tick"),
        pl.col("last_tick"),
    )
    one = pl.format(head + " begins here: 1 tick ({})", pl.col("tick"))
    return pl.when(pl.col("length") == 1).then(one).otherwise(many)  # fmt: skip


def tick_reasons(
    universe: Universe, rubric: SimulationRubric = DEFAULT_RUBRIC, window: int | None = None
) -> pl.DataFrame:
    """The ticks of each run's scored window that decided each tick-based dimension, one
    row per (dimension, tick, reason):

    * ``groundedness``: each ungrounded tick, with the claims no mutation supports
      (observer) or its mutation count (the zero-mutation proxy);
    * ``character_stability``: each agent turn holding a break marker, and the marker;
    * ``refusal_cluster``: the first tick of each run of consecutive refusals, its length
      and reasons;
    * ``action_coherence``: each refusal (it ends a streak and counts in the refusal
      rate), and where the longest streak without one begins;
    * ``vocabulary_growth``: each first use of a verb (or mechanic), and where the
      longest stretch without one begins;
    * ``conservation_drift``: each rollback;
    * ``novel_subtype_rate``: each tick that first writes a subtype value.

    Graph fan-out is read from checkpoints, not ticks: it has no rows here.

    Returns:
        Columns slug, dimension, tick, reason, status (``FAIL``: the tick counts against
        the dimension; ``PASS``: for it), sorted by slug, dimension and tick.
    """
    if universe.ticks.height == 0:
        return pl.DataFrame(schema=REASONS_SCHEMA)
    w = scored_window(window, rubric)
    feats = tick_features(universe.ticks, rubric, run_history(universe, rubric), window=w)
    f = feats.collect()
    unit = rubric.vocabulary_growth.unit
    refusals = _stretches(f, pl.col("refused")).rename({"first_tick": "tick"})
    streaks = _longest(_stretches(f, pl.col("refused").not_()))
    stagnant = _longest(_stretches(f, pl.col("novel").not_()))
    why = pl.col("refusal_reason").fill_null("no reason given")
    parts = [
        _rows(f.filter(pl.col("grounded").not_()), "groundedness", _ungrounded()),
        _rows(f.filter(pl.col("turn") & pl.col("is_break")), "character_stability",
              pl.format('broke character: the action holds the marker "{}"',
                        pl.col("break_marker"))),
        _rows(refusals, "refusal_cluster",
              pl.when(pl.col("length") == 1).then(pl.lit("a lone refusal (a cluster of 1)"))
              .otherwise(_span("refusal cluster")) + pl.lit(": ")
              + pl.when(pl.col("reasons").list.len() > 0)
              .then(pl.col("reasons").list.join("; ")).otherwise(pl.lit("no reason given"))),
        _rows(f.filter(pl.col("refused")), "action_coherence",
              pl.lit("refused (ends a streak, counts in the refusal rate): ") + why),
        _rows(streaks, "action_coherence", _span("the longest streak without a refusal"), True),
        _rows(f.filter(pl.col("novel")), "vocabulary_growth",
              pl.format(f'first use of the {unit} "{{}}"', pl.col("unit")), True),
        _rows(stagnant, "vocabulary_growth", _span(f"the longest stretch with no new {unit}")),
        _rows(f.filter(pl.col("rollback")), "conservation_drift",
              pl.lit("rolled back: ") + why),
        _rows(f.filter(pl.col("new_subtypes") > 0), "novel_subtype_rate",
              pl.format(f"first writes {{}} new {SUBTYPE_PROPERTY} value(s): {{}}",
                        pl.col("new_subtypes"), pl.col("subtypes").list.join(", ")), True),
    ]  # fmt: skip
    keys = rubric.dimension_keys()
    out = pl.concat([p.cast(REASONS_SCHEMA) for p in parts])  # type: ignore[arg-type]
    return out.filter(pl.col("dimension").is_in(keys)).sort("slug", "dimension", "tick",
                                                           maintain_order=True)  # fmt: skip


def _ungrounded() -> pl.Expr:
    """Why a tick is ungrounded: the observer's unsupported claims, or the proxy's rule."""
    claims = pl.col("unsupported_claims").fill_null("")
    return (
        pl.when((pl.col("grounded_source") == "observer") & (claims != ""))
        .then(pl.lit("ungrounded: the observer claims what no mutation supports: ") + claims)
        .when(pl.col("grounded_source") == "observer")
        .then(pl.format("ungrounded: {} claim(s) the observer made have no matching mutation",
                        pl.col("claimed_count").fill_null(0)))
        .otherwise(pl.format("ungrounded (proxy): executed with {} mutation(s)",
                             pl.col("mutation_count").fill_null(0)))
    )  # fmt: skip


def status_changes(series: pl.DataFrame) -> pl.DataFrame:
    """The ticks where a dimension's trailing-window status changed, from a per-tick
    series (:func:`~toolkit.rubrics.simulation.dimension_series`): the first tick of the
    run (its status from the start) and each tick whose status differs from the tick
    before.

    Returns:
        Columns slug, dimension, tick, value, status, previous (null on the first tick).
    """
    if series.height == 0:
        return pl.DataFrame(schema=CHANGES_SCHEMA)
    ordered = series.sort("slug", "dimension", "tick")
    previous = pl.col("status").shift(1).over("slug", "dimension")
    return (
        ordered.with_columns(previous=previous)
        .filter(pl.col("previous").is_null() | (pl.col("previous") != pl.col("status")))
        .select(list(CHANGES_SCHEMA))
        .cast(CHANGES_SCHEMA)  # type: ignore[arg-type]
    )
