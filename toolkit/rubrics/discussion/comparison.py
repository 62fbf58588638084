"""Comparing prompt iterations of LLM Mafia games: a candidate set against a baseline.

:func:`compare` sets a candidate set of games against a baseline set (the rubric's
baseline is 3 games): per-metric means, deltas, the weakest metric with the rubric's
advice for it, and a keep / review / revert recommendation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion._values import METRIC_KEYS
from toolkit.rubrics.discussion.report import Games, report_cards
from toolkit.scorecard import Scorecard
from toolkit.summary import Shows, Summary

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["COMPARISON_SCHEMA", "Comparison", "compare"]

#: One row per metric of a comparison.
COMPARISON_SCHEMA: dict[str, pl.DataType] = {
    "key": pl.String(),
    "name": pl.String(),
    "threshold": pl.Float64(),
    "baseline_mean": pl.Float64(),
    "candidate_mean": pl.Float64(),
    "delta": pl.Float64(),
    "baseline_n": pl.Int64(),
    "candidate_n": pl.Int64(),
}


def _metric_means(cards: Sequence[Scorecard]) -> pl.DataFrame:
    frames = [c.dimensions for c in cards]
    if not frames:
        return pl.DataFrame(schema={"key": pl.String(), "mean": pl.Float64(), "n": pl.Int64()})
    return (
        pl.concat(frames)
        .group_by(pl.col("dimension").alias("key"))
        .agg(
            pl.col("value").mean().alias("mean"), pl.col("value").count().cast(pl.Int64).alias("n")
        )
    )


@dataclass(frozen=True, repr=False)
class Comparison(Shows):
    """Baseline vs candidate.

    Attributes:
        metrics: :data:`COMPARISON_SCHEMA` (key, name, threshold, baseline_mean,
            candidate_mean, delta, baseline_n, candidate_n), in rubric order.
        baseline_passed / candidate_passed: mean number of metrics passed per game.
        lowest: the key of the candidate's weakest metric (lowest mean relative to its
            threshold), e.g. ``role_consistency``.
        advice: the rubric's troubleshooting advice for ``lowest``, with its fixes to try.
        recommendation: ``keep``, ``review`` or ``revert`` (see :func:`compare`).
        reason: why, naming the metrics that decided it by their display names.
        lowest_name: the weakest metric's display name (``Role consistency``), what a
            page or terminal shows.
        warnings: e.g. a baseline smaller than the rubric's baseline size.
    """

    metrics: pl.DataFrame
    baseline_games: list[str]
    candidate_games: list[str]
    baseline_passed: float | None
    candidate_passed: float | None
    lowest: str | None
    advice: str | None
    recommendation: str
    reason: str
    warnings: tuple[str, ...] = ()
    lowest_name: str | None = None

    def _summary(self) -> Summary:
        return Summary(
            "Comparison",
            f"{self.recommendation}: {self.reason}",
            (
                ("baseline games", len(self.baseline_games)),
                ("candidate games", len(self.candidate_games)),
                ("weakest:", self.lowest_name or self.lowest or "-"),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "baseline_games": self.baseline_games,
            "candidate_games": self.candidate_games,
            "metrics": self.metrics.to_dicts(),
            "baseline_passed_mean": self.baseline_passed,
            "candidate_passed_mean": self.candidate_passed,
            "lowest_metric": self.lowest,
            "lowest_metric_name": self.lowest_name,
            "advice": self.advice,
            "recommendation": self.recommendation,
            "reason": self.reason,
            "warnings": list(self.warnings),
        }


def _passed_mean(cards: Sequence[Scorecard]) -> float | None:
    if not cards:
        return None
    return sum(int(c.meta.get("passed_count", 0)) for c in cards) / len(cards)


def compare(
    baseline: Games, candidate: Games, spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC
) -> Comparison:
    """Compare a candidate iteration's games with the baseline's.

    The recommendation is ``keep`` when the candidate passes at least as many metrics
    per game on average as the baseline and its mean score relative to each threshold
    (delta / threshold, summed over the metrics both sides have) is not lower, and no
    metric whose baseline mean met its threshold has a candidate mean below it;
    ``review`` when the first two hold but such a metric fell below its threshold (gains
    elsewhere do not hide a metric that broke: the reason names it and by how much it
    fell); otherwise ``revert``.

    Args:
        baseline: the baseline games' scorecards (or a report).
        candidate: the candidate games' scorecards (or a report).
    """
    base, cand = report_cards(baseline), report_cards(candidate)
    metrics = _comparison_metrics(base, cand, spec)
    warnings: list[str] = []
    if len(base) < spec.baseline_games:
        warnings.append(
            f"baseline has {len(base)} game(s); the rubric's baseline is {spec.baseline_games}"
        )
    lowest = _weakest(metrics)
    bp, cp = _passed_mean(base), _passed_mean(cand)
    recommendation, reason = _recommend(metrics, bp, cp)
    return Comparison(
        metrics=metrics,
        baseline_games=[x.subject for x in base],
        candidate_games=[x.subject for x in cand],
        baseline_passed=bp,
        candidate_passed=cp,
        lowest=lowest,
        advice=spec.metrics[lowest].guidance if lowest is not None else None,
        recommendation=recommendation,
        reason=reason,
        warnings=tuple(warnings),
        lowest_name=spec.metrics[lowest].name if lowest is not None else None,
    )


def _comparison_metrics(
    base: Sequence[Scorecard], cand: Sequence[Scorecard], spec: DiscussionSpec
) -> pl.DataFrame:
    """:data:`COMPARISON_SCHEMA`: each metric's mean on both sides and the change."""
    b, c = _metric_means(base), _metric_means(cand)
    rows = pl.DataFrame(
        {
            "key": list(METRIC_KEYS),
            "name": [spec.metrics[k].name for k in METRIC_KEYS],
            "threshold": [spec.threshold(k) for k in METRIC_KEYS],
        },
        schema={"key": pl.String(), "name": pl.String(), "threshold": pl.Float64()},
    )
    return (
        rows.join(b.rename({"mean": "baseline_mean", "n": "baseline_n"}), on="key", how="left")
        .join(c.rename({"mean": "candidate_mean", "n": "candidate_n"}), on="key", how="left")
        .with_columns(
            (pl.col("candidate_mean") - pl.col("baseline_mean")).alias("delta"),
            pl.col("baseline_n").fill_null(0),
            pl.col("candidate_n").fill_null(0),
        )
        .select(list(COMPARISON_SCHEMA))
        .cast(COMPARISON_SCHEMA)  # type: ignore[arg-type]
    )


def _weakest(metrics: pl.DataFrame) -> str | None:
    """The key of the candidate's lowest metric relative to its threshold (None when the
    candidate has no scores)."""
    ranked = metrics.drop_nulls("candidate_mean").with_columns(
        (pl.col("candidate_mean") / pl.col("threshold")).alias("_ratio")
    )
    lowest: str | None = None
    if ranked.height:
        lowest = str(ranked.sort("_ratio", maintain_order=True)["key"][0])
    return lowest


def _recommend(metrics: pl.DataFrame, bp: float | None, cp: float | None) -> tuple[str, str]:
    """keep / review / revert, and why (see :func:`compare`)."""
    rel = metrics.drop_nulls("delta").select((pl.col("delta") / pl.col("threshold")).sum())
    rel_sum = float(rel.item()) if rel.height else 0.0
    broke = metrics.filter(
        (pl.col("baseline_mean") >= pl.col("threshold"))
        & (pl.col("candidate_mean") < pl.col("threshold"))
    )
    if bp is None or cp is None:
        recommendation, reason = "revert", "nothing to compare: one side has no games"
    else:
        reason = (
            f"metrics passed per game {bp:.2f} -> {cp:.2f}; relative score change {rel_sum:+.3f}"
        )
        if cp > bp or (cp == bp and rel_sum >= 0):
            recommendation = "keep"
            if broke.height:
                recommendation = "review"
                fell = "; ".join(
                    f"{r['name']} {r['baseline_mean']:.2f} -> {r['candidate_mean']:.2f} "
                    f"({r['delta'] / r['baseline_mean']:+.0%}, threshold {r['threshold']:g})"
                    for r in broke.iter_rows(named=True)
                )
                reason = f"{reason}, but below its threshold now: {fell}"
        else:
            recommendation = "revert"
    return recommendation, reason
