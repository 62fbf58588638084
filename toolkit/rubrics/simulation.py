"""The simulation health rubric: eight dimensions over the last W ticks of a run.

Seven decide the verdict; the eighth, novel subtype rate, is informational by default
(``novel_subtype_rate.verdict: false``): it is scored and shown, never counted.

Everything is computed column-wise: per-tick features, then one rolling pass over the
ticks (``LazyFrame.rolling`` with a window of W rows, grouped by run) that yields the
trailing-window value of every dimension at every tick. The scorecard is the last row of
that series, so the card and the charts can never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from toolkit.errors import InputError
from toolkit.load.universe import CONTINUATION_MECHANIC, Universe
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard

HEALTHY, DEGRADED, FAILED, INSUFFICIENT = "HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT_DATA"

#: Slopes are rounded to this many decimals before they meet a threshold, so float noise
#: (2.06 - 2.08 = -0.020000000000000018) cannot push a value across a boundary.
SLOPE_DECIMALS = 9

#: Dimension keys in scorecard order, with their display names.
DIMENSIONS: dict[str, str] = {
    "groundedness": "Groundedness",
    "character_stability": "Character stability",
    "action_coherence": "Action coherence",
    "refusal_cluster": "Refusal cluster",
    "vocabulary_growth": "Vocabulary growth",
    "conservation_drift": "Conservation drift",
    "graph_fanout": "Graph fan-out",
    "novel_subtype_rate": "Novel subtype rate",
}

#: The mutation property whose new values :data:`DIMENSIONS` ``novel_subtype_rate`` counts.
SUBTYPE_PROPERTY = "subtype"


#: Columns of :func:`dimension_series`.
SERIES_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "tick": pl.Int64(),
    "dimension": pl.String(),
    "name": pl.String(),
    "value": pl.Float64(),
    "status": pl.String(),
}

# ---------------------------------------------------------------------------
# The rubric as data
# ---------------------------------------------------------------------------


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RatioBand(_Part):
    """OK at or above ``ok_min``; FAIL below ``fail_below``; WARN between."""

    ok_min: float = Field(ge=0, le=1)
    fail_below: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> RatioBand:
        if self.fail_below > self.ok_min:
            raise ValueError("fail_below must not exceed ok_min")
        return self


class CharacterSpec(RatioBand):
    """Character stability: a turn breaks character when its text holds a marker."""

    markers: tuple[str, ...] = Field(min_length=1)


class CoherenceSpec(_Part):
    """Action coherence: the longest non-refused streak and refusals per 10 ticks."""

    ok_streak_min: PositiveInt
    ok_rate_max: float = Field(ge=0)
    fail_streak_below: PositiveInt
    fail_rate_min: float = Field(gt=0)
    per_ticks: PositiveInt = 10

    @model_validator(mode="after")
    def _ordered(self) -> CoherenceSpec:
        if self.fail_streak_below > self.ok_streak_min or self.fail_rate_min <= self.ok_rate_max:
            raise ValueError("FAIL bounds must lie outside the OK bounds")
        return self


class ClusterSpec(_Part):
    """Refusal cluster: the longest run of consecutive refusals."""

    ok_max: int = Field(ge=0)
    fail_min: PositiveInt

    @model_validator(mode="after")
    def _ordered(self) -> ClusterSpec:
        if self.fail_min <= self.ok_max:
            raise ValueError("fail_min must exceed ok_max")
        return self


class VocabularySpec(_Part):
    """Vocabulary growth: novel verbs (or mechanic ids) per 10 ticks, and stagnation."""

    unit: Literal["verb", "mechanic"] = "verb"
    ok_rate_min: float = Field(ge=0)
    ok_rate_max: float = Field(gt=0)
    fail_rate_above: float = Field(gt=0)
    fail_stagnant_min: PositiveInt
    per_ticks: PositiveInt = 10

    @model_validator(mode="after")
    def _ordered(self) -> VocabularySpec:
        if not self.ok_rate_min <= self.ok_rate_max <= self.fail_rate_above:
            raise ValueError("need ok_rate_min <= ok_rate_max <= fail_rate_above")
        return self


class DriftSpec(_Part):
    """Conservation drift: rollback ticks / ticks in window."""

    ok_max: float = Field(ge=0, le=1)
    fail_min: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> DriftSpec:
        if self.fail_min <= self.ok_max:
            raise ValueError("fail_min must exceed ok_max")
        return self


class FanoutSpec(_Part):
    """Graph fan-out: the slope of edges/nodes over the last checkpoints.

    FAIL needs the fall to be sustained. With ``sustained: slope`` (1.2.0 on, token-world's
    rubric text) the slope over the last ``checkpoints`` checkpoints, measured at each of
    ``recent_steps`` successive checkpoints, stays below ``fail_slope_below``. With
    ``sustained: steps`` (1.0.0 and 1.1.0) the slope and each of the last ``recent_steps``
    steps between consecutive checkpoints must be below it.
    """

    checkpoint_every: PositiveInt = 10
    checkpoints: int = Field(default=5, ge=2)
    ok_slope_min: float = 0.0
    fail_slope_below: float = -0.02
    recent_steps: PositiveInt = 3
    per_ticks: PositiveInt = 10
    sustained: Literal["slope", "steps"] = "slope"

    @model_validator(mode="after")
    def _ordered(self) -> FanoutSpec:
        if self.fail_slope_below > self.ok_slope_min:
            raise ValueError("fail_slope_below must not exceed ok_slope_min")
        return self


class SubtypeSpec(_Part):
    """Novel subtype rate: distinct new ``subtype`` values written per 10 ticks.

    WARN when no new value appears over a window of at least ``warn_zero_min_ticks``
    ticks; never FAIL. ``verdict: false`` keeps it out of the verdict and the gate.
    """

    warn_zero_min_ticks: PositiveInt = 30
    per_ticks: PositiveInt = 10
    verdict: bool = False


class SimulationRubric(RubricSpec):
    """Every number of the simulation health rubric (version 1.2.0 by default).

    Version 1.1.0 is the same rubric with the older graph fan-out FAIL rule
    (``graph_fanout.sustained: steps``); 1.0.0 is 1.1.0 without ``novel_subtype_rate``
    (``None``: the dimension is not scored).
    """

    rubric: Literal["simulation"] = "simulation"
    version: str = "1.2.0"
    window: PositiveInt = 50
    groundedness: RatioBand = RatioBand(ok_min=0.95, fail_below=0.85)
    character_stability: CharacterSpec = CharacterSpec(
        ok_min=0.98,
        fail_below=0.90,
        markers=("framework", "yield", "mechanic", "system prompt", "operator", "scenario"),
    )
    action_coherence: CoherenceSpec = CoherenceSpec(
        ok_streak_min=15, ok_rate_max=1.5, fail_streak_below=5, fail_rate_min=4.0
    )
    refusal_cluster: ClusterSpec = ClusterSpec(ok_max=2, fail_min=5)
    vocabulary_growth: VocabularySpec = VocabularySpec(
        ok_rate_min=0.5, ok_rate_max=2.5, fail_rate_above=4.0, fail_stagnant_min=30
    )
    conservation_drift: DriftSpec = DriftSpec(ok_max=0.02, fail_min=0.10)
    graph_fanout: FanoutSpec = FanoutSpec()
    novel_subtype_rate: SubtypeSpec | None = SubtypeSpec()

    def dimension_keys(self) -> list[str]:
        """The dimensions this rubric scores, in scorecard order."""
        return [k for k in DIMENSIONS if k != "novel_subtype_rate" or self.novel_subtype_rate]

    def informational(self) -> list[str]:
        """Dimensions scored and shown but kept out of the verdict and the gate."""
        sub = self.novel_subtype_rate
        return ["novel_subtype_rate"] if sub is not None and not sub.verdict else []


DEFAULT_RUBRIC = SimulationRubric()
RUBRIC_1_1_0 = SimulationRubric(version="1.1.0", graph_fanout=FanoutSpec(sustained="steps"))
RUBRIC_1_0_0 = RUBRIC_1_1_0.model_copy(update={"version": "1.0.0", "novel_subtype_rate": None})
PUBLISHED: dict[str, SimulationRubric] = {
    RUBRIC_1_0_0.version: RUBRIC_1_0_0,
    RUBRIC_1_1_0.version: RUBRIC_1_1_0,
    DEFAULT_RUBRIC.version: DEFAULT_RUBRIC,
}


def load_simulation_rubric(source: str | Path | Mapping[str, Any]) -> SimulationRubric:
    """A simulation rubric from YAML (only changed keys needed), merged over 1.2.0, or
    over the published version the file names (``1.1.0``, ``1.0.0``).

    Raises:
        RubricError: invalid numbers, or numbers changed without a new ``version``.
    """
    return load_spec(SimulationRubric, source, DEFAULT_RUBRIC, PUBLISHED)


# ---------------------------------------------------------------------------
# Column-wise scoring
# ---------------------------------------------------------------------------


def _longest_run(mask: pl.Expr) -> pl.Expr:
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
        lf = (
            lf.join(seen, on=["slug", "unit"], how="left")
            .with_columns(novel=first_use & pl.col("_seen").is_null())
            .drop("_seen")
            .sort("slug", "tick")
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
    return (
        lf.join(written, on=["slug", "tick"], how="left")
        .with_columns(pl.col("new_subtypes").fill_null(0))
        .sort("slug", "tick")
    )


def _status(value: pl.Expr, *, fail: pl.Expr, ok: pl.Expr) -> pl.Expr:
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
    "streak": _longest_run(pl.col("refused").not_()),
    "cluster": _longest_run(pl.col("refused")),
    "classified": pl.col("unit").is_not_null().sum().cast(pl.Int64),
    "novel": pl.col("novel").sum().cast(pl.Int64),
    "stagnant": _longest_run(pl.col("novel").not_()),
    "rollbacks": pl.col("rollback").sum().cast(pl.Int64),
    "new_subtypes": pl.col("new_subtypes").sum().cast(pl.Int64),
}
"""What the tick-based dimensions are built from, aggregated over one window. The
same expressions serve the per-tick rolling series and the one-row-per-run scores."""


def _with_statuses(lf: pl.LazyFrame, rubric: SimulationRubric) -> pl.LazyFrame:
    """Add each dimension's value and ``status_<dimension>`` to window aggregates."""
    g, c = rubric.groundedness, rubric.character_stability
    coh, vocab = rubric.action_coherence, rubric.vocabulary_growth
    cl, d = rubric.refusal_cluster, rubric.conservation_drift
    sub = rubric.novel_subtype_rate or SubtypeSpec()
    return lf.with_columns(
        groundedness=pl.col("grounded") / pl.col("n"),
        character_stability=pl.when(pl.col("turns") > 0).then(
            (pl.col("turns") - pl.col("breaks")) / pl.col("turns")
        ),
        refuse_rate=pl.col("refused") * coh.per_ticks / pl.col("n"),
        vocab_rate=pl.when(pl.col("classified") > 0).then(
            pl.col("novel") / (pl.col("n") / vocab.per_ticks)
        ),
        drift=pl.col("rollbacks") / pl.col("n"),
        subtype_rate=pl.col("new_subtypes") / (pl.col("n") / sub.per_ticks),
    ).with_columns(
        status_groundedness=_status(
            pl.col("groundedness"),
            fail=pl.col("groundedness") < g.fail_below,
            ok=pl.col("groundedness") >= g.ok_min,
        ),
        status_character_stability=_status(
            pl.col("character_stability"),
            fail=pl.col("character_stability") < c.fail_below,
            ok=pl.col("character_stability") >= c.ok_min,
        ),
        status_action_coherence=_status(
            pl.col("streak"),
            fail=(pl.col("streak") < coh.fail_streak_below)
            | (pl.col("refuse_rate") >= coh.fail_rate_min),
            ok=(pl.col("streak") >= coh.ok_streak_min) & (pl.col("refuse_rate") <= coh.ok_rate_max),
        ),
        status_refusal_cluster=_status(
            pl.col("cluster"),
            fail=pl.col("cluster") >= cl.fail_min,
            ok=pl.col("cluster") <= cl.ok_max,
        ),
        status_vocabulary_growth=_status(
            pl.col("vocab_rate"),
            fail=(pl.col("stagnant") >= vocab.fail_stagnant_min)
            | (pl.col("vocab_rate") > vocab.fail_rate_above),
            ok=pl.col("vocab_rate").is_between(vocab.ok_rate_min, vocab.ok_rate_max),
        ),
        status_conservation_drift=_status(
            pl.col("drift"),
            fail=pl.col("drift") >= d.fail_min,
            ok=pl.col("drift") <= d.ok_max,
        ),
        status_novel_subtype_rate=_status(
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


def fanout_series(
    checkpoints: pl.LazyFrame | pl.DataFrame, rubric: SimulationRubric = DEFAULT_RUBRIC
) -> pl.LazyFrame:
    """Graph fan-out at each checkpoint (a snapshot whose tick is a multiple of K).

    One row per checkpoint: slug, tick, node_count, edge_count, ``fan_out``
    (edges / nodes), ``n_checkpoints`` (how many of the last ``checkpoints`` exist),
    ``first_cp_tick``, ``slope`` (fan-out change per 10 ticks over those checkpoints),
    ``step_slope`` (from the previous checkpoint), ``sustained_n`` (how many of the last
    ``recent_steps`` measures exist: slopes, or steps under ``sustained: steps``),
    ``sustained_max`` (the largest of them) and ``status_graph_fanout``. FAIL: the slope
    is below ``fail_slope_below`` and so is every one of those ``recent_steps`` measures.
    """
    f = rubric.graph_fanout
    cps = (
        checkpoints.lazy()
        .filter((pl.col("tick") % f.checkpoint_every == 0) & (pl.col("node_count") > 0))
        .sort("slug", "tick")
        .with_columns(
            fan_out=pl.col("edge_count") / pl.col("node_count"),
            pos=pl.int_range(pl.len()).over("slug"),
        )
    )
    rolled = cps.rolling(index_column="pos", period=f"{f.checkpoints}i", group_by="slug").agg(
        n_checkpoints=pl.len().cast(pl.Int64),
        first_cp_tick=pl.col("tick").first(),
        first_fan_out=pl.col("fan_out").first(),
    )
    out = (
        cps.join(rolled, on=["slug", "pos"])
        .sort("slug", "tick")
        .with_columns(
            slope=pl.when(pl.col("n_checkpoints") >= 2).then(
                (
                    (pl.col("fan_out") - pl.col("first_fan_out"))
                    / (pl.col("tick") - pl.col("first_cp_tick"))
                    * f.per_ticks
                ).round(SLOPE_DECIMALS)
            ),
            step_slope=(
                (pl.col("fan_out") - pl.col("fan_out").shift(1))
                / (pl.col("tick") - pl.col("tick").shift(1))
                * f.per_ticks
            )
            .round(SLOPE_DECIMALS)
            .over("slug"),
        )
        .with_columns(_measure=pl.col("slope" if f.sustained == "slope" else "step_slope"))
        .with_columns(
            sustained_n=pl.col("_measure")
            .is_not_null()
            .cast(pl.Int64)
            .rolling_sum(window_size=f.recent_steps, min_samples=1)
            .over("slug"),
            sustained_max=pl.col("_measure")
            .rolling_max(window_size=f.recent_steps, min_samples=1)
            .over("slug"),
        )
    )
    collapsing = (
        (pl.col("slope") < f.fail_slope_below)
        & (pl.col("sustained_n") >= f.recent_steps)
        & (pl.col("sustained_max") < f.fail_slope_below)
    )
    return (
        out.with_columns(
            status_graph_fanout=_status(
                pl.col("slope"), fail=collapsing, ok=pl.col("slope") >= f.ok_slope_min
            )
        )
        .drop("pos", "first_fan_out", "_measure")
        .sort("slug", "tick")
    )


def _history(universe: Universe, rubric: SimulationRubric) -> pl.DataFrame | None:
    if rubric.vocabulary_growth.unit != "mechanic" or universe.batches.height == 0:
        return None
    return (
        universe.batches.select("slug", pl.col("mechanic_ids_used").alias("unit"))
        .explode("unit")
        .drop_nulls()
    )


def dimension_series(
    universe: Universe, rubric: SimulationRubric = DEFAULT_RUBRIC, window: int | None = None
) -> pl.DataFrame:
    """Every dimension's trailing-window value and status at every tick, in long form.

    Returns:
        A frame with columns slug, tick, dimension, name, value, status: for the six
        tick-based dimensions the value over the W ticks ending at that tick; for graph
        fan-out the slope at the latest checkpoint at or before that tick.
    """
    if universe.ticks.height == 0:
        return pl.DataFrame(schema=SERIES_SCHEMA)
    wide = window_series(universe.ticks, rubric, window, _history(universe, rubric)).collect()
    fan = fanout_series(universe.checkpoints, rubric).collect()
    wide = wide.join_asof(
        fan.select("slug", "tick", "slope", "status_graph_fanout").sort("tick"),
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


# ---------------------------------------------------------------------------
# The scorecard
# ---------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") if x == x else "nan"


def _ranges(rubric: SimulationRubric) -> dict[str, tuple[str, str]]:
    g, c, coh = rubric.groundedness, rubric.character_stability, rubric.action_coherence
    cl, v, d, f = (
        rubric.refusal_cluster,
        rubric.vocabulary_growth,
        rubric.conservation_drift,
        rubric.graph_fanout,
    )
    sub = rubric.novel_subtype_rate
    return {
        "groundedness": (f">= {g.ok_min}", f"< {g.fail_below}"),
        "character_stability": (f">= {c.ok_min}", f"< {c.fail_below}"),
        "action_coherence": (
            f"streak >= {coh.ok_streak_min} and refuse_rate <= {coh.ok_rate_max}",
            f"streak < {coh.fail_streak_below} or refuse_rate >= {coh.fail_rate_min}",
        ),
        "refusal_cluster": (f"<= {cl.ok_max}", f">= {cl.fail_min}"),
        "vocabulary_growth": (
            f"{v.ok_rate_min} <= rate <= {v.ok_rate_max}",
            f"stagnant >= {v.fail_stagnant_min} or rate > {v.fail_rate_above}",
        ),
        "conservation_drift": (f"<= {d.ok_max}", f">= {d.fail_min}"),
        "graph_fanout": (
            f"slope >= {f.ok_slope_min}",
            f"slope < {f.fail_slope_below} at each of the last {f.recent_steps} checkpoints"
            if f.sustained == "slope"
            else f"slope < {f.fail_slope_below} and last {f.recent_steps} steps "
            f"< {f.fail_slope_below}",
        ),
        "novel_subtype_rate": (
            "rate > 0" if sub is None else f"rate > 0 or ticks < {sub.warn_zero_min_ticks}",
            "never",
        ),
    }


#: Each dimension's secondary measures (:attr:`toolkit.scorecard.Scorecard.measures`):
#: measure name -> the window-score column (or ``fan.`` + the fan-out column) it reads.
MEASURES: dict[str, dict[str, str]] = {
    "groundedness": {"grounded": "grounded", "ticks": "n", "observer_ticks": "observer_n"},
    "character_stability": {"breaks": "breaks", "turns": "turns"},
    "action_coherence": {"refuse_rate_10tick": "refuse_rate", "refused": "refused"},
    "refusal_cluster": {"refused": "refused"},
    "vocabulary_growth": {"novel": "novel", "stagnant": "stagnant", "classified": "classified"},
    "conservation_drift": {"rollbacks": "rollbacks", "ticks": "n"},
    "graph_fanout": {
        "fan_out": "fan.fan_out",
        "checkpoints": "fan.n_checkpoints",
        "first_checkpoint_tick": "fan.first_cp_tick",
        "last_checkpoint_tick": "fan.tick",
        "sustained_checkpoints": "fan.sustained_n",
        "sustained_max_slope": "fan.sustained_max",
    },
    "novel_subtype_rate": {"new_values": "new_subtypes", "ticks": "n"},
}


def _measures(
    key: str, row: dict[str, Any] | None, fan: dict[str, Any] | None
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, column in MEASURES[key].items():
        source, col = (fan, column[4:]) if column.startswith("fan.") else (row, column)
        value = None if source is None else source.get(col)
        out[name] = None if value is None else float(value)
    return out


def series_thresholds(rubric: SimulationRubric = DEFAULT_RUBRIC) -> pl.DataFrame:
    """The rubric's numeric edges on each dimension's series value, for threshold lines.

    Each row is one edge of a range on the value :func:`dimension_series` plots: the OK
    edge (``status`` OK) and the FAIL edge (``status`` FAIL). Action coherence plots its
    streak and vocabulary growth its rate, so their edges are the streak's and the rate's;
    the refusal-rate and stagnation halves of those rules have no line on that axis.
    Novel subtype rate has no FAIL edge (it is WARN at 0).

    Returns:
        Columns dimension, status, value, label (e.g. ``"OK >= 0.95"``).
    """
    g, c, coh = rubric.groundedness, rubric.character_stability, rubric.action_coherence
    cl, v, d, f = (
        rubric.refusal_cluster,
        rubric.vocabulary_growth,
        rubric.conservation_drift,
        rubric.graph_fanout,
    )
    edges: list[tuple[str, str, float, str]] = [
        ("groundedness", OK, g.ok_min, ">="),
        ("groundedness", FAIL, g.fail_below, "<"),
        ("character_stability", OK, c.ok_min, ">="),
        ("character_stability", FAIL, c.fail_below, "<"),
        ("action_coherence", OK, coh.ok_streak_min, ">="),
        ("action_coherence", FAIL, coh.fail_streak_below, "<"),
        ("refusal_cluster", OK, cl.ok_max, "<="),
        ("refusal_cluster", FAIL, cl.fail_min, ">="),
        ("vocabulary_growth", OK, v.ok_rate_min, ">="),
        ("vocabulary_growth", OK, v.ok_rate_max, "<="),
        ("vocabulary_growth", FAIL, v.fail_rate_above, ">"),
        ("conservation_drift", OK, d.ok_max, "<="),
        ("conservation_drift", FAIL, d.fail_min, ">="),
        ("graph_fanout", OK, f.ok_slope_min, ">="),
        ("graph_fanout", FAIL, f.fail_slope_below, "<"),
    ]
    if rubric.novel_subtype_rate is not None:
        edges.append(("novel_subtype_rate", OK, 0.0, ">"))
    keys = rubric.dimension_keys()
    return pl.DataFrame(
        [
            (key, status, float(value), f"{status} {op} {_fmt(float(value))}")
            for key, status, value, op in edges
            if key in keys
        ],
        schema={"dimension": pl.String, "status": pl.String, "value": pl.Float64,
                "label": pl.String},
        orient="row",
    )  # fmt: skip


def _dimensions(
    row: dict[str, Any] | None,
    fan: dict[str, Any] | None,
    rubric: SimulationRubric,
    grounded_source: str,
) -> list[Dimension]:
    ranges = _ranges(rubric)
    unit = "novel-verbs" if rubric.vocabulary_growth.unit == "verb" else "novel-mechanics"
    if fan is not None and fan["slope"] is None:
        fan = None

    def dim(key: str, value: float | None, status: str, detail: str) -> Dimension:
        green, red = ranges[key]
        measures = _measures(key, row, fan)
        return Dimension(key, DIMENSIONS[key], value, status, detail, green, red, measures)

    dims: list[Dimension] = []
    if row is None:
        dims = [dim(k, None, NA, "no ticks in window") for k in DIMENSIONS if k != "graph_fanout"]
    else:
        n = row["n"]
        new = row["new_subtypes"]
        informational = "novel_subtype_rate" in rubric.informational()
        dims.append(
            dim(
                "novel_subtype_rate",
                row["subtype_rate"],
                row["status_novel_subtype_rate"],
                f"{new} new {SUBTYPE_PROPERTY} value{'s' if new != 1 else ''} in {n} ticks"
                + (" (informational)" if informational else ""),
            )
        )
        dims.append(
            dim(
                "groundedness",
                row["groundedness"],
                row["status_groundedness"],
                f"{row['grounded']}/{n} grounded ({grounded_source})",
            )
        )
        if row["turns"]:
            detail = f"({row['breaks']} breaks in {row['turns']} turns)"
        else:
            detail = "no agent turns in window"
        dims.append(
            dim(
                "character_stability",
                row["character_stability"],
                row["status_character_stability"],
                detail,
            )
        )
        dims.append(
            dim(
                "action_coherence",
                float(row["streak"]),
                row["status_action_coherence"],
                f"streak={row['streak']}  refuse_rate={_fmt(row['refuse_rate'])}",
            )
        )
        cl = rubric.refusal_cluster
        cmp = "<" if row["cluster"] < cl.fail_min else ">="
        dims.append(
            dim(
                "refusal_cluster",
                float(row["cluster"]),
                row["status_refusal_cluster"],
                f"max={row['cluster']}  ({cmp} {cl.fail_min})",
            )
        )
        if row["vocab_rate"] is None:
            vdetail = f"no classified {rubric.vocabulary_growth.unit}s in window"
        else:
            vdetail = (
                f"{_fmt(row['vocab_rate'])} {unit}/{rubric.vocabulary_growth.per_ticks}t"
                f"  ({row['novel']} novel, stagnant={row['stagnant']})"
            )
        dims.append(
            dim("vocabulary_growth", row["vocab_rate"], row["status_vocabulary_growth"], vdetail)
        )
        dims.append(
            dim(
                "conservation_drift",
                row["drift"],
                row["status_conservation_drift"],
                f"({row['rollbacks']}/{n} rollbacks)",
            )
        )
    if fan is None:
        dims.append(dim("graph_fanout", None, NA, "insufficient history (< 2 checkpoints)"))
    else:
        slope = fan["slope"]
        trend = "trending up" if slope > 0 else ("flat" if slope == 0 else "trending down")
        dims.append(
            dim(
                "graph_fanout",
                slope,
                fan["status_graph_fanout"],
                f"slope={slope:.3f}  ({trend}; {fan['n_checkpoints']} checkpoints, "
                f"ticks {fan['first_cp_tick']}-{fan['tick']})",
            )
        )
    keys = rubric.dimension_keys()
    return sorted((d for d in dims if d.key in keys), key=lambda d: keys.index(d.key))


def _verdict(dims: list[Dimension], has_ticks: bool, informational: list[str]) -> tuple[str, str]:
    if not has_ticks:
        return INSUFFICIENT, "no ticks to score"
    counted = [d for d in dims if d.key not in informational]
    fails = [d.name.lower() for d in counted if d.status == FAIL]
    warns = [d.name.lower() for d in counted if d.status == WARN]
    unmeasured = [d.name.lower() for d in counted if d.status == NA]
    parts = []
    if fails:
        parts.append("fail: " + ", ".join(fails))
    if warns:
        parts.append("warn: " + ", ".join(warns))
    if unmeasured:  # not measured is not green: the verdict says which were not
        parts.append("not measured: " + ", ".join(unmeasured))
    verdict = FAILED if fails else (DEGRADED if warns else HEALTHY)
    return verdict, "; ".join(parts)


def _scored_span(ticks: int, window: int) -> str:
    """What a card scored: ``last 50 ticks``, or ``all 64 ticks (window 100000)``."""
    if ticks >= window:
        return f"last {window} ticks"
    return f"all {ticks} tick{'' if ticks == 1 else 's'} (window {window})"


#: Scoring takes the runs of a fleet about this many ticks at a time (whole runs; one
#: chunk when a run's rows are not contiguous). Each chunk's temporaries are freed before
#: the next is scored, and Polars' allocator reuses those pages, so scoring does not
#: raise a fleet load's peak memory (issue 25). 27 runs of 300 ticks a chunk: scoring
#: the 300-run fleet added about 7 MiB above the load's peak at 16,384 ticks a chunk and
#: nothing at 8,192, for about 0.04 s more CPU (twelve passes instead of six). A fleet
#: of up to twice this many ticks is scored in one pass.
SCORE_CHUNK_TICKS = 8_192


def run_chunks(slugs: pl.Series, size: int = SCORE_CHUNK_TICKS) -> list[tuple[int, int]]:
    """Row ranges (offset, length) of ``slugs`` that each hold whole runs, about ``size``
    rows a range (a run larger than ``size`` is a range of its own).

    Exact only when each run's rows are contiguous (as a load leaves them); otherwise the
    whole column is one range, so a run is never split across ranges.
    """
    runs = slugs.rle()
    if runs.len() != slugs.n_unique():  # a run's rows apart: one range
        return [(0, slugs.len())]
    chunks: list[tuple[int, int]] = []
    start = length = 0
    for count in runs.struct.field("len").to_list():
        if length and length + count > size:
            chunks.append((start, length))
            start, length = start + length, 0
        length += count
    chunks.append((start, length))
    return chunks


def score_universe(
    universe: Universe,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    *,
    series: bool = True,
) -> list[Scorecard]:
    """Score every run held by ``universe`` (one scorecard per slug, in load order).

    The fleet is scored by ``group_by`` passes (:func:`window_scores`), each over whole
    runs of about :data:`SCORE_CHUNK_TICKS` ticks (:func:`run_chunks`; the same scores as
    one pass, at a smaller peak memory), the graph fan-out in one pass over the
    checkpoints, and the per-tick series, when wanted, in one rolling pass
    (:func:`dimension_series`).

    Args:
        universe: one or more loaded runs.
        rubric: the rubric data (default: version 1.2.0).
        window: W, the number of most recent ticks scored (default: ``rubric.window``).
        series: attach each run's per-tick series to its card (for charts); a fleet
            overview that needs only the cards can skip it.
    """
    w = scored_window(window, rubric)
    history = _history(universe, rubric)
    # Whole runs a chunk at a time: each chunk's temporaries are reused by the next.
    parts: list[pl.DataFrame] = []
    spans: list[pl.DataFrame] = []
    # A fleet of up to two chunks is one pass: its temporaries are small, and a pass's
    # fixed cost (about 7 ms) is not.
    height = universe.ticks.height
    size = SCORE_CHUNK_TICKS if height > 2 * SCORE_CHUNK_TICKS else max(height, 1)
    for offset, length in run_chunks(universe.ticks["slug"], size):
        chunk = universe.ticks.slice(offset, length)
        if length:
            parts.append(window_scores(chunk, rubric, w, history).collect())
        spans.append(
            chunk.group_by("slug").agg(
                ticks_loaded=pl.len(),
                started=pl.col("timestamp").min(),
                ended=pl.col("timestamp").max(),
            )
        )
    last = (
        pl.concat(parts)
        if parts
        else pl.DataFrame({"slug": [], "tick": []}, schema={"slug": pl.String, "tick": pl.Int64})
    )
    fan = fanout_series(universe.checkpoints, rubric).collect()
    fan_at = (
        last.select("slug", "tick")
        .sort("tick")
        .join_asof(
            fan.sort("tick").with_columns(cp_tick=pl.col("tick")),
            on="tick",
            by="slug",
            strategy="backward",
            check_sortedness=False,
        )
        .filter(pl.col("cp_tick").is_not_null())
        .drop("tick")
        .rename({"cp_tick": "tick"})
    )
    batched = dict(
        universe.batches.filter(pl.col("kind") == "batch")
        .group_by("slug")
        .agg(pl.col("tick_count").sum())
        .iter_rows()
    )
    rows = {r["slug"]: r for r in last.iter_rows(named=True)}
    fans = {r["slug"]: r for r in fan_at.iter_rows(named=True)}
    extents = {r["slug"]: r for span in spans for r in span.iter_rows(named=True)}
    per_run_series = (
        dimension_series(universe, rubric, w).partition_by("slug", as_dict=True) if series else {}
    )
    roots = {str(p): slug for slug, p in universe.paths.items()}
    issues: dict[str, list[dict[str, Any]]] = {}
    for issue in universe.issues.iter_rows(named=True):
        for parent in Path(issue["path"] or "").parents:
            if str(parent) in roots:
                issues.setdefault(roots[str(parent)], []).append(issue)
                break
    warnings: dict[str, list[str]] = {}
    for text in universe.warnings:
        slug, _, rest = text.partition(": ")
        warnings.setdefault(slug, []).append(rest)
    slugs = universe.slugs
    sources = {slug: _grounded_source(rows.get(slug)) for slug in slugs}
    dims = {
        slug: _dimensions(rows.get(slug), fans.get(slug), rubric, sources[slug]) for slug in slugs
    }
    # Every card's frames are slices of one frame (two small frames a card cost ~30 KiB).
    dimension_frames = Scorecard.dimensions_frames([(slug, dims[slug]) for slug in slugs])
    measure_frames = Scorecard.measures_frames([(slug, dims[slug]) for slug in slugs])
    return [
        _card(
            slug,
            universe.names[slug],
            rubric,
            w,
            rows.get(slug),
            issues.get(slug, []),
            warnings.get(slug, []),
            int(batched.get(slug) or 0),
            extents.get(slug, {}),
            per_run_series.get((slug,)),
            (dims[slug], sources[slug], dimension_frames[i], measure_frames[i]),
        )
        for i, slug in enumerate(slugs)
    ]


def _iso(value: Any) -> str | None:
    return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _grounded_source(row: dict[str, Any] | None) -> str:
    if row is None or row["observer_n"] == 0:
        return "proxy: zero-mutation ticks"
    if row["observer_n"] == row["n"]:
        return "observer claims"
    return "observer claims where present, else proxy"


def _card(
    slug: str,
    name: str,
    rubric: SimulationRubric,
    w: int,
    row: dict[str, Any] | None,
    issues: list[dict[str, Any]],
    load_warnings: list[str],
    batched: int,
    extent: dict[str, Any],
    series: pl.DataFrame | None,
    scored: tuple[list[Dimension], str, pl.DataFrame, pl.DataFrame],
) -> Scorecard:
    """The scorecard of one run; ``scored``: its dimensions, where groundedness comes
    from, and its dimensions and measures frames (from :func:`score_universe`)."""
    dims, grounded_source, dimensions, measures = scored
    verdict, reason = _verdict(dims, row is not None, rubric.informational())

    warnings = [f"skipped {issue['reason']}" for issue in issues] + load_warnings
    if row is not None and row["n"] < w:
        warnings.append(f"only {row['n']} ticks available: the window holds fewer than {w}")
    if batched:
        note = f"{batched} older ticks exist only in batch records and are not scored per tick"
        if rubric.vocabulary_growth.unit == "verb":
            note += "; batch records list no verbs, so novelty counts from the first tick file"
        warnings.append(note)
    if "proxy" in grounded_source and row is not None:
        warnings.append(
            "groundedness uses the proxy (an executed tick with zero mutations is ungrounded):"
            " these ticks carry no observer claims"
        )
    meta = {
        "slug": slug,
        "name": name,
        "window": w,
        "tick_count": row["n"] if row else 0,
        "first_tick": row["first_tick"] if row else None,
        "last_tick": row["tick"] if row else None,
        "ticks_loaded": int(extent.get("ticks_loaded") or 0),
        "started": _iso(extent.get("started")),
        "ended": _iso(extent.get("ended")),
        "ticks_in_batches": batched,
        "grounded_source": grounded_source,
        "skipped_files": [issue["path"] for issue in issues],
        "informational": rubric.informational(),
    }
    return Scorecard(
        rubric=rubric.rubric,
        rubric_version=rubric.version,
        subject=slug,
        title=f"{name} · {_scored_span(row['n'] if row else 0, w)}",
        verdict=verdict,
        verdict_reason=reason,
        dimensions=dimensions,
        warnings=tuple(warnings),
        meta=meta,
        series=series,
        measures=measures,
    )


#: ``--gate`` modes: ``strict`` passes only when every counted dimension is OK (N/A
#: fails it); ``fail-only`` fails only on a counted FAIL (WARN, N/A and no data pass).
GATE_MODES: tuple[str, ...] = ("strict", "fail-only")


def passes_gate(card: Scorecard, mode: str = "strict") -> bool:
    """Whether ``card`` passes the gate ``mode`` (see :data:`GATE_MODES`).

    Informational dimensions (``card.meta["informational"]``) never decide a gate.
    """
    if mode not in GATE_MODES:
        raise ValueError(f"unknown gate mode {mode!r}")
    skip = set(card.meta.get("informational", ()))
    statuses = [
        s for k, s in card.dimensions.select("dimension", "status").iter_rows() if k not in skip
    ]
    if mode == "fail-only":
        return FAIL not in statuses
    return card.verdict != INSUFFICIENT and all(s == OK for s in statuses)


# ---------------------------------------------------------------------------
# Evidence: the ticks behind a status
# ---------------------------------------------------------------------------


def _window(universe: Universe, rubric: SimulationRubric, window: int | None) -> pl.LazyFrame:
    return tick_features(
        universe.ticks, rubric, _history(universe, rubric), window=scored_window(window, rubric)
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
