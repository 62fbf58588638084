"""The trailing window: each dimension's value and status over the last W ticks, per
tick (the rolling series) or per run (one row a run), from the same aggregations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.errors import InputError
from toolkit.rubrics.simulation._values import DEFAULT_SUBTYPE
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation.features import longest_run, tick_features
from toolkit.scorecard import FAIL, NA, OK, WARN

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def status_of(value: pl.Expr, *, fail: pl.Expr, ok: pl.Expr) -> pl.Expr:
    return (
        pl.when(value.is_null())
        .then(pl.lit(NA))
        .when(fail)
        .then(pl.lit(FAIL))
        .when(ok)
        .then(pl.lit(OK))
        .otherwise(pl.lit(WARN))
    )


_WINDOW_AGGS: dict[str, pl.Expr] = {
    "tick": pl.col("tick").last(),
    "first_tick": pl.col("tick").first(),
    "n": pl.len().cast(pl.Int64),
    "grounded": pl.col("grounded").sum().cast(pl.Int64),
    "observer_n": (pl.col("grounded_source") == "observer").sum().cast(pl.Int64),
    "turns": pl.col("turn").sum().cast(pl.Int64),
    "breaks": (pl.col("turn") & pl.col("is_break")).sum().cast(pl.Int64),
    "refused": pl.col("refused").sum().cast(pl.Int64),
    "streak": longest_run(pl.col("refused").not_()),
    "cluster": longest_run(pl.col("refused")),
    "classified": pl.col("unit").is_not_null().sum().cast(pl.Int64),
    "novel": pl.col("novel").sum().cast(pl.Int64),
    "stagnant": longest_run(pl.col("novel").not_()),
    "rollbacks": pl.col("rollback").sum().cast(pl.Int64),
    "new_subtypes": pl.col("new_subtypes").sum().cast(pl.Int64),
}
"""What the tick-based dimensions are built from, aggregated over one window. The
same expressions serve the per-tick rolling series and the one-row-per-run scores."""


def _in_units_of(count: pl.Expr, ticks: int) -> pl.Expr:
    """``count / ticks`` rounded once (as Python's ``/``), whatever the rows. Polars divides
    a column of more than one row by a constant as a product with the constant's reciprocal
    (76 / 10 gives 7.6000000000000005), a one-row column exactly: a run's rates changed in
    the last digit with the number of runs scored beside it (and, on the streaming engine,
    with its threads). A column of the constant as divisor is divided row by row."""
    return count / (count * 0 + ticks)


def _with_statuses(lf: pl.LazyFrame, rubric: SimulationRubric) -> pl.LazyFrame:
    """Add each dimension's value and ``status_<dimension>`` to window aggregates."""
    g, c = rubric.groundedness, rubric.character_stability
    coh, vocab = rubric.action_coherence, rubric.vocabulary_growth
    cl, d = rubric.refusal_cluster, rubric.conservation_drift
    sub = rubric.novel_subtype_rate or DEFAULT_SUBTYPE
    return lf.with_columns(
        groundedness=pl.col("grounded") / pl.col("n"),
        character_stability=pl.when(pl.col("turns") > 0).then(
            (pl.col("turns") - pl.col("breaks")) / pl.col("turns")
        ),
        refuse_rate=pl.col("refused") * coh.per_ticks / pl.col("n"),
        vocab_rate=pl.when(pl.col("classified") > 0).then(
            pl.col("novel") / _in_units_of(pl.col("n"), vocab.per_ticks)
        ),
        drift=pl.col("rollbacks") / pl.col("n"),
        subtype_rate=pl.col("new_subtypes") / _in_units_of(pl.col("n"), sub.per_ticks),
    ).with_columns(
        status_groundedness=status_of(
            pl.col("groundedness"),
            fail=pl.col("groundedness") < g.fail_below,
            ok=pl.col("groundedness") >= g.ok_min,
        ),
        status_character_stability=status_of(
            pl.col("character_stability"),
            fail=pl.col("character_stability") < c.fail_below,
            ok=pl.col("character_stability") >= c.ok_min,
        ),
        status_action_coherence=status_of(
            pl.col("streak"),
            fail=(pl.col("streak") < coh.fail_streak_below)
            | (pl.col("refuse_rate") >= coh.fail_rate_min),
            ok=(pl.col("streak") >= coh.ok_streak_min) & (pl.col("refuse_rate") <= coh.ok_rate_max),
        ),
        status_refusal_cluster=status_of(
            pl.col("cluster"),
            fail=pl.col("cluster") >= cl.fail_min,
            ok=pl.col("cluster") <= cl.ok_max,
        ),
        status_vocabulary_growth=status_of(
            pl.col("vocab_rate"),
            fail=(pl.col("stagnant") >= vocab.fail_stagnant_min)
            | (pl.col("vocab_rate") > vocab.fail_rate_above),
            ok=pl.col("vocab_rate").is_between(vocab.ok_rate_min, vocab.ok_rate_max),
        ),
        status_conservation_drift=status_of(
            pl.col("drift"),
            fail=pl.col("drift") >= d.fail_min,
            ok=pl.col("drift") <= d.ok_max,
        ),
        status_novel_subtype_rate=status_of(
            pl.col("subtype_rate"),
            fail=pl.lit(False),
            ok=(pl.col("subtype_rate") > 0) | (pl.col("n") < sub.warn_zero_min_ticks),
        ),
    )


def scored_window(window: int | None, rubric: SimulationRubric = DEFAULT_RUBRIC) -> int:
    """W, the number of most recent ticks scored: ``window``, or the rubric's when None.

    The one rule every face (API, reports, CLI) meets.

    Raises:
        InputError: ``window`` is not a whole number of at least 1 (0 is refused, never
            read as "the default").
    """
    if window is None:
        return rubric.window
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise InputError(
            None, "must be a whole number of ticks, at least 1", field="window", value=window
        )
    return window


def window_series(
    ticks: pl.LazyFrame | pl.DataFrame,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    history: pl.LazyFrame | pl.DataFrame | None = None,
) -> pl.LazyFrame:
    """The trailing-window value and status of the seven tick-based dimensions, per tick.

    One row per tick (slug, tick) holding the dimensions over the W ticks ending there:
    ``n``, ``first_tick``, ``grounded``, ``groundedness``, ``turns``, ``breaks``,
    ``character_stability``, ``refused``, ``streak``, ``refuse_rate``, ``cluster``,
    ``classified``, ``novel``, ``vocab_rate``, ``stagnant``, ``rollbacks``, ``drift``,
    ``new_subtypes``, ``subtype_rate``, and a ``status_<dimension>`` column for each. One
    rolling pass over every run.
    """
    w = scored_window(window, rubric)
    feats = tick_features(ticks, rubric, history)
    series = feats.rolling(index_column="pos", period=f"{w}i", group_by="slug").agg(**_WINDOW_AGGS)
    return _with_statuses(series, rubric).drop("pos").sort("slug", "tick")


def window_scores(
    ticks: pl.LazyFrame | pl.DataFrame,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    history: pl.LazyFrame | pl.DataFrame | None = None,
) -> pl.LazyFrame:
    """The seven tick-based dimensions over each run's last W ticks: one row per run.

    The same columns as :func:`window_series` (the last row of each run's series), from
    one ``group_by`` pass, so a fleet (or a larger-than-memory scan, with the streaming
    engine) is scored without materialising per-tick windows.
    """
    w = scored_window(window, rubric)
    feats = tick_features(ticks, rubric, history, window=w)
    scores = feats.group_by("slug", maintain_order=True).agg(**_WINDOW_AGGS)
    return _with_statuses(scores, rubric)
