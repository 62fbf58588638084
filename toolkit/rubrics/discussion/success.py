"""The rubric's success check over a series of tests (batches of games, in run order),
and whether to proceed to the next prompt iteration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion._values import METRIC_KEYS
from toolkit.rubrics.discussion.report import Games, report_cards
from toolkit.scorecard import Scorecard
from toolkit.summary import Shows, Summary

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec, Success

__all__ = ["BATCH_SCHEMA", "SUCCESS_SCHEMA", "SuccessCheck", "success_check"]

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
    cards = report_cards(tests)
    size = s.batch_size
    games = _game_rows(cards, size)
    frame = _streaks(_judge_batches(games, _batch_means(cards, spec, size), s))
    best = int(frame["streak"].max() or 0) if frame.height else 0  # type: ignore[arg-type]
    met = best >= s.consecutive
    proceed, proceed_reason = _proceed(frame, games, spec, met)
    return SuccessCheck(
        met=met,
        best_streak=best,
        tests=games,
        reason=_reason(best, met, s),
        batches=frame,
        proceed=proceed,
        proceed_reason=proceed_reason,
    )


def _game_rows(cards: Sequence[Scorecard], size: int) -> pl.DataFrame:
    """:data:`SUCCESS_SCHEMA`: one row per game, ``test`` its batch (``size`` to a test)."""
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
    return pl.DataFrame(rows, schema=SUCCESS_SCHEMA)


def _batch_means(cards: Sequence[Scorecard], spec: DiscussionSpec, size: int) -> pl.DataFrame:
    """Per test, how many metrics' means over its games meet their thresholds."""
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
    return (
        pl.concat(dims)
        .group_by("test", "dimension")
        .agg(pl.col("value").mean().alias("_mean"))
        .join(thresholds, on="dimension", how="inner")
        .group_by("test")
        .agg((pl.col("_mean") >= pl.col("_thr")).fill_null(False).sum().alias("passed_count"))
        if dims
        else pl.DataFrame(schema={"test": pl.Int64(), "passed_count": pl.UInt32()})
    )


def _judge_batches(games: pl.DataFrame, means: pl.DataFrame, s: Success) -> pl.DataFrame:
    """Per test: its games, the lowest engagement, the highest cost, the mean cache hit
    rate, the metrics passed on average, and whether it is ``ok`` (``why_not``)."""
    size = s.batch_size
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
    return frame.with_columns(why.alias("_why")).with_columns(
        pl.when(complete).then(pl.col("_why").list.len() == 0).alias("ok"),
        pl.when(complete)
        .then(pl.col("_why").list.join("; "))
        .otherwise(pl.format("incomplete test: {} of {} games", pl.col("_n"), pl.lit(size)))
        .alias("why_not"),
    )


def _streaks(frame: pl.DataFrame) -> pl.DataFrame:
    """:data:`BATCH_SCHEMA`, each test with its ``streak``: the consecutive ok tests
    ending at it (column-wise: groups of runs)."""
    ok = pl.col("ok").fill_null(False)
    run_id = (ok != ok.shift(1)).fill_null(True).cum_sum()
    return (
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


def _reason(best: int, met: bool, s: Success) -> str:
    """One line saying why the check is (not) met."""
    size = s.batch_size
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
    return reason


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
