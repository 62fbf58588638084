"""Comparing prompt iterations of LLM Mafia games, and the rubric's success check.

:func:`compare` sets a candidate set of games against a baseline set (the rubric's
baseline is 3 games): per-metric means, deltas, the weakest metric with the rubric's
advice for it, and a keep / revert recommendation. :func:`success_check` applies the
rubric's success criteria to a series of tests (batches of games, in the order they
were run) and says whether to proceed to the next iteration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from toolkit._show import Shows, Summary
from toolkit.rubrics.discussion import DiscussionReport
from toolkit.rubrics.discussion_spec import DEFAULT_DISCUSSION_SPEC, METRIC_KEYS, DiscussionSpec
from toolkit.scorecard import Scorecard

__all__ = [
    "BATCH_SCHEMA",
    "SUCCESS_SCHEMA",
    "Comparison",
    "SuccessCheck",
    "compare",
    "success_check",
]

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

#: One row per game of a success check (``test`` is its batch).
SUCCESS_SCHEMA: dict[str, pl.DataType] = {
    "test": pl.Int64(),
    "game_id": pl.String(),
    "passed_count": pl.Int64(),
    "engagement": pl.Float64(),
    "cost": pl.Float64(),
    "cache_hit_rate": pl.Float64(),
    "signed_off": pl.Boolean(),
}

#: One row per test (a batch of games) of a success check.
BATCH_SCHEMA: dict[str, pl.DataType] = {
    "test": pl.Int64(),
    "games": pl.List(pl.String()),
    "passed_count": pl.Int64(),
    "engagement_min": pl.Float64(),
    "cost_max": pl.Float64(),
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
        advice = spec.metrics[lowest].guidance
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
    """The rubric's success check over a series of tests (batches of games).

    Attributes:
        met: True when ``consecutive`` tests in a row each meet every criterion.
        best_streak: the longest such run (in tests).
        tests: :data:`SUCCESS_SCHEMA`, one row per game (test = its batch number).
        batches: :data:`BATCH_SCHEMA`, one row per test with ``ok`` and ``why_not``.
        reason: one line saying why (not) met.
        proceed: True when the check is met *and* the streak's games have a cache hit
            rate above the rubric's minimum *and* (when the rubric asks for it) a
            reviewer signed one of them off as "fascinating to watch".
        proceed_reason: one line saying why (not) proceed.
    """

    met: bool
    best_streak: int
    tests: pl.DataFrame
    reason: str
    batches: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=BATCH_SCHEMA))
    proceed: bool = False
    proceed_reason: str = ""

    def _summary(self) -> Summary:
        return Summary(
            "SuccessCheck",
            f"{'met' if self.met else 'not met'}: {self.reason}",
            (
                ("tests", self.batches.height),
                ("best streak", self.best_streak),
                ("proceed", "yes" if self.proceed else "no"),
            ),
            notes=(self.proceed_reason,) if self.proceed_reason else (),
            notes_title="next iteration",
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "met": self.met,
            "best_streak": self.best_streak,
            "reason": self.reason,
            "proceed": self.proceed,
            "proceed_reason": self.proceed_reason,
            "batches": self.batches.to_dicts(),
            "tests": self.tests.to_dicts(),
        }


def success_check(tests: Games, spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC) -> SuccessCheck:
    """Whether a series of tests meets the rubric's success criteria, and whether to proceed.

    Games are taken in run order, ``success.batch_size`` (3) to a test. A test is ok when
    the means of its games' metric scores pass ``success.min_passed`` (5) of 7 (each
    mean against its metric's threshold; engagement's mean too), every game's engagement
    is >= 3.0 and every game's cost is < $2.00 (an unknown engagement or cost is not ok).
    A last batch with fewer games is listed and not judged. The check is met when
    ``success.consecutive`` (3) ok tests come in a row. Proceeding to the next iteration
    also needs, over the games of the latest such streak, a mean cache hit rate above
    70% (every game's rate known) and, with ``success.require_signoff``, a reviewer's
    "fascinating to watch" sign-off (label kind ``fascinating``) on one of them.
    """
    s = spec.success
    cards = _cards(tests)
    size = s.batch_size
    rows = [
        {
            "test": i // size + 1,
            "game_id": card.subject,
            "passed_count": int(card.meta.get("passed_count", 0)),
            "engagement": card.meta.get("engagement"),
            "cost": card.meta.get("cost"),
            "cache_hit_rate": card.meta.get("cache_hit_rate"),
            "signed_off": card.meta.get("signed_off"),
        }
        for i, card in enumerate(cards)
    ]
    games = pl.DataFrame(rows, schema=SUCCESS_SCHEMA)
    thresholds = pl.DataFrame(
        {"dimension": list(METRIC_KEYS), "_thr": [spec.threshold(k) for k in METRIC_KEYS]},
        schema={"dimension": pl.String(), "_thr": pl.Float64()},
    )
    dims = [
        c.dimensions.select("dimension", "value").with_columns(
            pl.lit(i // size + 1, dtype=pl.Int64).alias("test")
        )
        for i, c in enumerate(cards)
    ]
    means = (
        pl.concat(dims)
        .group_by("test", "dimension")
        .agg(pl.col("value").mean().alias("_mean"))
        .join(thresholds, on="dimension", how="inner")
        .group_by("test")
        .agg((pl.col("_mean") >= pl.col("_thr")).fill_null(False).sum().alias("passed_count"))
        if dims
        else pl.DataFrame(schema={"test": pl.Int64(), "passed_count": pl.UInt32()})
    )
    frame = (
        games.group_by("test", maintain_order=True)
        .agg(
            pl.col("game_id").alias("games"),
            pl.len().alias("_n"),
            # min/max over games; any unknown value makes the batch's value unknown
            pl.when(pl.col("engagement").is_null().any())
            .then(None)
            .otherwise(pl.col("engagement").min())
            .alias("engagement_min"),
            pl.when(pl.col("cost").is_null().any())
            .then(None)
            .otherwise(pl.col("cost").max())
            .alias("cost_max"),
            pl.when(pl.col("cache_hit_rate").is_null().any())
            .then(None)
            .otherwise(pl.col("cache_hit_rate").mean())
            .alias("cache_hit_rate"),
        )
        .join(means, on="test", how="left")
        .with_columns(pl.col("passed_count").fill_null(0).cast(pl.Int64))
    )
    checks = [
        (pl.col("passed_count") >= s.min_passed, f"fewer than {s.min_passed}/7 passed on average"),
        (
            (pl.col("engagement_min") >= s.min_engagement).fill_null(False),
            f"engagement not >= {s.min_engagement:.1f} in every game",
        ),
        (
            (pl.col("cost_max") < s.max_cost_usd).fill_null(False),
            f"cost not < ${s.max_cost_usd:.2f} in every game",
        ),
    ]
    why = pl.concat_list(
        [pl.when(~cond).then(pl.lit(text)).otherwise(pl.lit(None)) for cond, text in checks]
    ).list.drop_nulls()
    complete = pl.col("_n") == size
    frame = frame.with_columns(why.alias("_why")).with_columns(
        pl.when(complete).then(pl.col("_why").list.len() == 0).alias("ok"),
        pl.when(complete)
        .then(pl.col("_why").list.join("; "))
        .otherwise(pl.format("incomplete test: {} of {} games", pl.col("_n"), pl.lit(size)))
        .alias("why_not"),
    )
    # streak = consecutive ok tests ending at this one (column-wise: groups of runs).
    ok = pl.col("ok").fill_null(False)
    run_id = (ok != ok.shift(1)).fill_null(True).cum_sum()
    frame = (
        frame.with_columns(run_id.alias("_run"))
        .with_columns(
            pl.when(ok)
            .then(pl.int_range(1, pl.len() + 1).over("_run"))
            .otherwise(0)
            .cast(pl.Int64)
            .alias("streak")
        )
        .select(list(BATCH_SCHEMA))
        .cast(BATCH_SCHEMA)  # type: ignore[arg-type]
    )
    best = int(frame["streak"].max() or 0) if frame.height else 0  # type: ignore[arg-type]
    met = best >= s.consecutive
    unit = "test" if size == 1 else f"test of {size} games"
    if met:
        reason = (
            f"{best} consecutive tests meet every criterion (>= {s.consecutive} needed; a {unit})"
        )
    else:
        reason = (
            f"longest run of tests meeting every criterion: {best} (< {s.consecutive} "
            f"needed; a {unit})"
        )
    proceed, proceed_reason = _proceed(frame, games, spec, met)
    return SuccessCheck(
        met=met,
        best_streak=best,
        tests=games,
        reason=reason,
        batches=frame,
        proceed=proceed,
        proceed_reason=proceed_reason,
    )


def _proceed(
    batches: pl.DataFrame, games: pl.DataFrame, spec: DiscussionSpec, met: bool
) -> tuple[bool, str]:
    """Whether to go on to the next iteration, and why (not)."""
    s = spec.success
    if not met:
        return False, f"do not proceed: no {s.consecutive} consecutive passing tests yet"
    last = batches.filter(pl.col("streak") >= s.consecutive)["test"].max()
    window = list(range(int(last) - s.consecutive + 1, int(last) + 1))  # type: ignore[arg-type]
    streak = games.filter(pl.col("test").is_in(window))
    rates = streak["cache_hit_rate"]
    missing: list[str] = []
    if rates.null_count() or not rates.len():
        missing.append("cache hit rate unknown for some games")
    else:
        # rounded: the mean of three 0.70s must not pass as 0.7000000000000001
        mean = round(float(rates.mean()), 9)  # type: ignore[arg-type]
        if not mean > s.min_cache_hit_rate:
            missing.append(f"cache hit rate {mean:.0%} not > {s.min_cache_hit_rate:.0%}")
    if s.require_signoff and not streak["signed_off"].fill_null(False).any():
        missing.append('no "fascinating to watch" sign-off recorded for these games')
    tests = ", ".join(str(t) for t in window)
    if missing:
        return False, f"do not proceed (tests {tests}): " + "; ".join(missing)
    said = f"proceed: tests {tests} pass, cache hit rate > {s.min_cache_hit_rate:.0%}"
    if s.require_signoff:
        said += ', signed off as "fascinating to watch"'
    return True, said
