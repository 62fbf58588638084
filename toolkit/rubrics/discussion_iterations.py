"""Comparing prompt iterations of LLM Mafia games, and the rubric's success check.

:func:`compare` sets a candidate set of games against a baseline set (the rubric's
baseline is 3 games): per-metric means, deltas, the weakest metric with the rubric's
advice for it, and a keep / revert recommendation. :func:`success_check` applies the
rubric's success criteria to a series of tests (games in the order they were run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit._show import Shows, Summary
from toolkit.rubrics.discussion import DiscussionReport
from toolkit.rubrics.discussion_spec import DEFAULT_DISCUSSION_SPEC, METRIC_KEYS, DiscussionSpec
from toolkit.scorecard import Scorecard

__all__ = ["Comparison", "SuccessCheck", "compare", "success_check"]

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

#: One row per test of a success check.
SUCCESS_SCHEMA: dict[str, pl.DataType] = {
    "test": pl.Int64(),
    "game_id": pl.String(),
    "passed_count": pl.Int64(),
    "engagement": pl.Float64(),
    "cost": pl.Float64(),
    "cache_hit_rate": pl.Float64(),
    "ok": pl.Boolean(),
    "why_not": pl.String(),
    "streak": pl.Int64(),
}

Games = Sequence[Scorecard] | DiscussionReport


def _cards(games: Games) -> list[Scorecard]:
    return list(games.scorecards) if isinstance(games, DiscussionReport) else list(games)


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
        advice: the rubric's troubleshooting advice for ``lowest``.
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
    base, cand = _cards(baseline), _cards(candidate)
    b, c = _metric_means(base), _metric_means(cand)
    rows = pl.DataFrame(
        {
            "key": list(METRIC_KEYS),
            "name": [spec.metrics[k].name for k in METRIC_KEYS],
            "threshold": [spec.threshold(k) for k in METRIC_KEYS],
        },
        schema={"key": pl.String(), "name": pl.String(), "threshold": pl.Float64()},
    )
    metrics = (
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
    warnings: list[str] = []
    if len(base) < spec.baseline_games:
        warnings.append(
            f"baseline has {len(base)} game(s); the rubric's baseline is {spec.baseline_games}"
        )
    ranked = metrics.drop_nulls("candidate_mean").with_columns(
        (pl.col("candidate_mean") / pl.col("threshold")).alias("_ratio")
    )
    lowest: str | None = None
    advice: str | None = None
    if ranked.height:
        lowest = str(ranked.sort("_ratio", maintain_order=True)["key"][0])
        advice = spec.metrics[lowest].advice
    bp, cp = _passed_mean(base), _passed_mean(cand)
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
    return Comparison(
        metrics=metrics,
        baseline_games=[x.subject for x in base],
        candidate_games=[x.subject for x in cand],
        baseline_passed=bp,
        candidate_passed=cp,
        lowest=lowest,
        advice=advice,
        recommendation=recommendation,
        reason=reason,
        warnings=tuple(warnings),
        lowest_name=spec.metrics[lowest].name if lowest is not None else None,
    )


@dataclass(frozen=True, repr=False)
class SuccessCheck(Shows):
    """The rubric's success check over a series of tests.

    Attributes:
        met: True when ``consecutive`` tests in a row each meet every criterion.
        best_streak: the longest such run.
        tests: :data:`SUCCESS_SCHEMA`, one row per test with ``ok`` and ``why_not``.
        reason: one line saying why (not) met.
    """

    met: bool
    best_streak: int
    tests: pl.DataFrame
    reason: str

    def _summary(self) -> Summary:
        return Summary(
            "SuccessCheck",
            f"{'met' if self.met else 'not met'}: {self.reason}",
            (("tests", self.tests.height), ("best streak", self.best_streak)),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "met": self.met,
            "best_streak": self.best_streak,
            "reason": self.reason,
            "tests": self.tests.to_dicts(),
        }


def success_check(tests: Games, spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC) -> SuccessCheck:
    """Whether a series of tests meets the rubric's success criteria.

    Each test (game, in run order) is ok when it passes ``success.min_passed`` (5) of 7
    metrics, has engagement >= 3.0, cost < $2.00 and cache hit rate > 70%. An unknown
    engagement, cost or cache hit rate is not ok. The check is met when
    ``success.consecutive`` (3) ok tests come in a row.
    """
    s = spec.success
    cards = _cards(tests)
    rows = [
        {
            "test": i + 1,
            "game_id": card.subject,
            "passed_count": int(card.meta.get("passed_count", 0)),
            "engagement": card.meta.get("engagement"),
            "cost": card.meta.get("cost"),
            "cache_hit_rate": card.meta.get("cache_hit_rate"),
        }
        for i, card in enumerate(cards)
    ]
    frame = pl.DataFrame(
        rows,
        schema={k: v for k, v in SUCCESS_SCHEMA.items() if k not in ("ok", "why_not", "streak")},
    )
    checks = [
        (pl.col("passed_count") >= s.min_passed, f"fewer than {s.min_passed}/7 passed"),
        (
            (pl.col("engagement") >= s.min_engagement).fill_null(False),
            f"engagement not >= {s.min_engagement:.1f}",
        ),
        ((pl.col("cost") < s.max_cost_usd).fill_null(False), f"cost not < ${s.max_cost_usd:.2f}"),
        (
            (pl.col("cache_hit_rate") > s.min_cache_hit_rate).fill_null(False),
            f"cache hit rate not > {s.min_cache_hit_rate:.0%}",
        ),
    ]
    why = pl.concat_list(
        [pl.when(~cond).then(pl.lit(text)).otherwise(pl.lit(None)) for cond, text in checks]
    ).list.drop_nulls()
    frame = frame.with_columns(why.alias("_why")).with_columns(
        (pl.col("_why").list.len() == 0).alias("ok"),
        pl.col("_why").list.join("; ").alias("why_not"),
    )
    # streak = consecutive ok tests ending at this one (column-wise: groups of runs).
    run_id = (pl.col("ok") != pl.col("ok").shift(1)).fill_null(True).cum_sum()
    frame = (
        frame.with_columns(run_id.alias("_run"))
        .with_columns(
            pl.when(pl.col("ok"))
            .then(pl.int_range(1, pl.len() + 1).over("_run"))
            .otherwise(0)
            .cast(pl.Int64)
            .alias("streak")
        )
        .select(list(SUCCESS_SCHEMA))
        .cast(SUCCESS_SCHEMA)  # type: ignore[arg-type]
    )
    best = int(frame["streak"].fill_null(0).max() or 0) if frame.height else 0  # type: ignore[arg-type]
    met = best >= s.consecutive
    if met:
        reason = f"{best} consecutive tests meet every criterion (>= {s.consecutive} needed)"
    else:
        reason = f"longest run of tests meeting every criterion: {best} (< {s.consecutive} needed)"
    return SuccessCheck(met=met, best_streak=best, tests=frame, reason=reason)
