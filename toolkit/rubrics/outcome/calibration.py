"""The automated outcome score held against reviewers' labels (``toolkit calibrate
--outcome LOG_DIR``).

Each labelled iteration is an item (``iter-N``). The judge is the outcome rubric: the
iteration's value, or one signal's sub-score. Each reviewer (a label's actor) is a rater
whose score is their label's sub-score (the mean of correctness / 3 and the two mapped
answers, as ``human_label`` reads it), from their latest label on that iteration; an
admin override does not silence the other reviewers here: every reviewer is a rater. The
calibrate rubric (:mod:`toolkit.rubrics.calibrate`) then gives agreement, bias and the
iterations where the score and the reviewers disagree most. For the PPI++ estimate
(``--outcome LOG_DIR --estimate``) the score of every scored iteration is kept
(``unrated=True``), labelled or not: the unlabelled ones are what narrow the estimate.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from toolkit.errors import InputError
from toolkit.rubrics.calibrate import DEFAULT_CALIBRATE_RUBRIC, CalibrateRubric
from toolkit.rubrics.outcome.result import OutcomeResult

_FLOOR = dt.datetime.min.replace(tzinfo=dt.UTC)


def outcome_calibrate_rubric(result: OutcomeResult) -> CalibrateRubric:
    """The calibrate rubric on the outcome scale: scores 0 to 1, an item passes at the
    lowest band that passes every gate (``fair``, 0.50, in dot-agents' bands); version
    ``1.0.0-outcome``."""
    bands = result.rubric.bands
    threshold = bands[-2].min if len(bands) > 1 else bands[0].min
    rubric: CalibrateRubric = DEFAULT_CALIBRATE_RUBRIC.model_copy(
        update={
            "scale_min": 0.0,
            "scale_max": 1.0,
            "threshold": threshold,
            "version": f"{DEFAULT_CALIBRATE_RUBRIC.version}-outcome",
        }
    )
    return rubric


def outcome_calibration_scores(
    result: OutcomeResult,
    *,
    signal: str = "value",
    judge_id: str = "judge",
    unrated: bool = False,
) -> pl.DataFrame:
    """The calibration frame of an outcome result and its reviewers' labels.

    Args:
        result: from :func:`toolkit.score_outcome` (its ``labels`` are the reviewers').
        signal: ``value`` (the iteration's score) or a signal of the rubric.
        judge_id: the rater id of the automated score.
        unrated: keep the score of every scored iteration, also those no reviewer
            labelled (a judge row, no reviewer row): the estimate's input.

    Returns:
        item (``iter-N``), rater, score, notes (a reviewer's free text), reasoning (the
        score's detail): one judge row per labelled iteration the rubric scored (with
        ``unrated``: per iteration it scored), one row per reviewer and iteration.

    Raises:
        InputError: an unknown signal, a reviewer named like the judge, or no labels.
    """
    known = ["value", *result.rubric.weights()]
    if signal not in known:
        raise InputError(
            None,
            f"not a signal of rubric {result.rubric.version} (one of {', '.join(known)})",
            field="--outcome-signal",
            value=signal,
        )
    labels = result.labels
    if labels.is_empty():
        raise InputError(None, "the log holds no reviewers' labels (iter-N.labels.yaml)",
                         field="--outcome")  # fmt: skip
    if judge_id in set(labels["actor"].to_list()):
        raise InputError(None, "a reviewer has the judge's id; pick another with --judge-id",
                         field="--judge-id", value=judge_id)  # fmt: skip
    latest = (
        labels.with_columns(pl.col("updated_at").fill_null(_FLOOR).alias("_at"))
        .with_row_index("_pos")
        .sort("_at", "_pos")
        .group_by("iteration", "actor", maintain_order=True)
        .last()
        .filter(pl.col("sub_score").is_not_null())
    )
    humans = latest.select(
        pl.format("iter-{}", "iteration").alias("item"),
        pl.col("actor").alias("rater"),
        pl.col("sub_score").round(4).alias("score"),
        pl.col("free_text").alias("notes"),
        pl.lit(None, dtype=pl.String).alias("reasoning"),
    )
    if signal == "value":
        auto = result.scores.select(
            "iteration",
            pl.col("value").alias("score"),
            pl.format("{} ({})", "band", pl.lit(f"rubric {result.rubric.version}")).alias(
                "reasoning"
            ),
        )
    else:
        auto = result.breakdown.filter(pl.col("signal") == signal).select(
            "iteration", pl.col("sub_score").alias("score"), pl.col("detail").alias("reasoning")
        )
    labelled = labels["iteration"].unique().to_list()
    kept = pl.lit(True) if unrated else pl.col("iteration").is_in(labelled)
    judge = auto.filter(kept & pl.col("score").is_not_null())
    judged = judge.select(
        pl.format("iter-{}", "iteration").alias("item"),
        pl.lit(judge_id).alias("rater"),
        pl.col("score").cast(pl.Float64),
        pl.lit(None, dtype=pl.String).alias("notes"),
        "reasoning",
    )
    return pl.concat([judged, humans.cast({"score": pl.Float64})], how="vertical_relaxed")
