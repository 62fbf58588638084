"""Judged readings of a Mafia discussion, beside the keyword readings.

Three metrics of the discussion rubric get a reading by an LLM judge through the one
judge protocol (:mod:`toolkit.judge`: recorded cassettes in CI, live SDK judges for real
use, batching, the cost cap, double-check):

* **engagement** (metric 7): the whole game, rated on the rubric's own 1-5 scale with the
  engagement instrument's levels and questions (``engagement.yaml``, read through
  :class:`~toolkit.rubrics.discussion.spec.EngagementScale`: never a second copy) as
  the prompt. One request per game (``scale=(1, 5)``).
* **strategic depth** (metric 2): one 0-9 claim per message ("this message shows
  strategic depth ..."); the reading is the share of messages the judge scores at
  ``true_at`` or above, the keyword reading's own formula.
* **memory accuracy** (metric 1): one 0-9 claim per reference to a past event that the
  keyword reading found (:func:`~toolkit.rubrics.discussion.memory_references`); the
  reading is the share the judge scores at ``true_at`` or above.

Every judge request carries the game as one plain text
(:func:`~toolkit.rubrics.discussion.judge_requests.game_text`: players, rounds, turns,
replies, votes; no roles, as raters see it). A judged reading never
decides a verdict by itself: :func:`~toolkit.rubrics.discussion.score_discussion`
shows it beside the keyword (or human) reading, and lets the judged engagement fill a
game's missing rating only when asked (``engagement="judge"``), stamped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.judge import (
    BatchOutcome,
    Judge,
    JudgeRequest,
    JudgeResult,
    JudgeUsage,
    PriceTable,
    budget_for,
    judge_usage,
    load_prices,
    run_batches,
)
from toolkit.judge.epoch import judge_basis
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.judge_requests import JudgeItem, game_text, judge_items
from toolkit.rubrics.discussion.judge_spec import (
    DEFAULT_DISCUSSION_JUDGE_SPEC,
    JUDGED_METRICS,
    DiscussionJudgeSpec,
)
from toolkit.summary import Shows, Summary, plural

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = [
    "JUDGED_ITEMS_SCHEMA",
    "JUDGED_READINGS_SCHEMA",
    "JudgedDiscussion",
    "judge_discussion",
]

#: One row per judge request: what was asked about which part of which game, the answer.
JUDGED_ITEMS_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "metric": pl.String(),
    "item_id": pl.String(),
    "anchor": pl.String(),
    "claim": pl.String(),
    "value": pl.Int64(),
    "counted": pl.Boolean(),
    "reasoning": pl.String(),
    "error": pl.String(),
    "text_sha256": pl.String(),
}

#: One row per game and judged metric: the judge's reading.
JUDGED_READINGS_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "key": pl.String(),
    "value": pl.Float64(),
    "judged": pl.Int64(),
    "absent": pl.Int64(),
    "detail": pl.String(),
}


@dataclass(frozen=True, repr=False)
class JudgedDiscussion(Shows):
    """The judge's readings of a set of games.

    Attributes:
        judge: the judge's name (``recorded:cassette.json (from ...)``, ``openai:MODEL``).
        items: :data:`JUDGED_ITEMS_SCHEMA`, one row per request (game_id, metric, item_id,
            anchor, claim, value, counted, reasoning, error, text_sha256): ``counted``
            says whether the item counts toward the reading (true / accurate / strategic
            for the 0-9 claims; null when the judge gave no usable value).
        readings: :data:`JUDGED_READINGS_SCHEMA`, one row per game and judged metric
            (game_id, key, value, judged, absent, detail); value null when nothing was
            judged.
        texts: game_id -> the text every request about that game carried.
        spec: the judge's questions (stamped: ``discussion-judge`` and its version).
        usage: the judge calls' account (tokens, cost, cap), per metric.
        warnings: what the reader must know (absent answers, the cost cap).
        basis: the judge's part of the measurement epoch (:mod:`toolkit.epoch`): its
            provider, model, prompt template and cassette
            (:func:`toolkit.judge.epoch.judge_basis`), the judge's questions (their
            rubric, version and data) and ``double_check``.
    """

    judge: str
    items: pl.DataFrame
    readings: pl.DataFrame
    texts: dict[str, str]
    spec: DiscussionJudgeSpec
    usage: JudgeUsage | None = None
    warnings: tuple[str, ...] = ()
    basis: Mapping[str, Any] = field(default_factory=dict)

    def _summary(self) -> Summary:
        games = self.readings["game_id"].n_unique()
        return Summary(
            "JudgedDiscussion",
            f"judge {self.judge}, {plural(games, 'game')}, {plural(self.items.height, 'request')}",
            tuple(
                (f"{r['game_id']} {r['key']}:", "absent" if r["value"] is None else r["value"])
                for r in self.readings.iter_rows(named=True)
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    def reading(self, game_id: str, key: str) -> dict[str, Any] | None:
        """The reading row of one game and metric (None when not judged)."""
        rows = self.readings.filter((pl.col("game_id") == game_id) & (pl.col("key") == key))
        return rows.row(0, named=True) if rows.height else None

    def excerpt(self, game_id: str) -> str:
        """The game's first messages as the judge read them (from its first turn), at most
        ``spec.excerpt_chars`` long."""
        text = self.texts.get(game_id, "")
        start = text.find("[turn ")
        text = text[start:] if start >= 0 else text
        n = self.spec.excerpt_chars
        return text if len(text) <= n else text[: n - 1].rstrip() + "…"

    def to_dict(self, game_id: str | None = None) -> dict[str, Any]:
        """The readings and every item's answer and reasoning (one game, or all)."""
        items = self.items
        readings = self.readings
        if game_id is not None:
            items = items.filter(pl.col("game_id") == game_id)
            readings = readings.filter(pl.col("game_id") == game_id)
        return {
            "judge": self.judge,
            "judge_rubric": self.spec.rubric,
            "judge_rubric_version": self.spec.version,
            "readings": readings.drop("game_id").to_dicts()
            if game_id is not None
            else readings.to_dicts(),
            "items": items.drop("game_id").to_dicts() if game_id is not None else items.to_dicts(),
        }


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _value_of(
    result: JudgeResult, request: JudgeRequest, cap_reason: str | None
) -> tuple[int | None, str | None]:
    """The usable value of one answer, or ``(None, why)``."""
    if result.transient and cap_reason is not None and result.error == cap_reason:
        return None, result.error
    if result.value is None:
        raw = f"; reply: {result.raw[:80]!r}" if result.raw else ""
        return None, f"judge error: {result.error or 'no value'}{raw}"
    low, high = request.scale or (0, 9)
    if not low <= result.value <= high:
        return None, f"judge value {result.value} is outside {low}-{high}"
    return result.value, None


def _readings(items: pl.DataFrame, game_ids: Sequence[str], metrics: Sequence[str],
              judge_spec: DiscussionJudgeSpec) -> pl.DataFrame:  # fmt: skip
    """Per game and metric: the reading, column-wise over the items."""
    keys = pl.DataFrame(
        {
            "game_id": [g for g in game_ids for _ in metrics],
            "key": [m for _ in game_ids for m in metrics],
        },
        schema={"game_id": pl.String(), "key": pl.String()},
    )
    per = items.group_by("game_id", pl.col("metric").alias("key")).agg(
        pl.col("value").is_not_null().sum().cast(pl.Int64).alias("judged"),
        pl.col("value").is_null().sum().cast(pl.Int64).alias("absent"),
        pl.col("counted").sum().cast(pl.Int64).alias("_true"),
        pl.col("value").drop_nulls().first().cast(pl.Float64).alias("_first"),
        pl.col("error").drop_nulls().first().alias("_error"),
    )
    t = pl.col("judged")
    s = pl.col("_true").cast(pl.String)
    n = t.cast(pl.String)
    absent = pl.when(pl.col("absent") > 0).then(
        pl.format("; {} not judged ({})", pl.col("absent").cast(pl.String), pl.col("_error"))
    )
    cut = f">= {judge_spec.true_at} of 9"
    frame = keys.join(per, on=["game_id", "key"], how="left").with_columns(
        pl.col("judged").fill_null(0), pl.col("absent").fill_null(0), pl.col("_true").fill_null(0)
    )
    value = (
        pl.when(t == 0)
        .then(pl.lit(None, dtype=pl.Float64))
        .when(pl.col("key") == "engagement")
        .then(pl.col("_first"))
        .otherwise(pl.col("_true") / t)
    )
    none = (
        pl.when(pl.col("key") == "engagement")
        .then(pl.lit("absent: no messages to rate"))
        .when(pl.col("key") == "strategic_depth")
        .then(pl.lit("absent: no messages to judge"))
        .otherwise(pl.lit("absent: no references to judge"))
    )
    detail = (
        pl.when((t == 0) & (pl.col("absent") > 0))
        .then(pl.format("absent: {}", pl.col("_error")))
        .when(t == 0)
        .then(none)
        .when(pl.col("key") == "engagement")
        .then(pl.format("the judge's 1-5 rating{}", absent.otherwise(pl.lit(""))))
        .when(pl.col("key") == "strategic_depth")
        .then(pl.format("{}/{} judged strategic ({}){}", s, n, pl.lit(cut),
                        absent.otherwise(pl.lit(""))))
        .otherwise(pl.format("{}/{} judged accurate ({}){}", s, n, pl.lit(cut),
                             absent.otherwise(pl.lit(""))))
    )  # fmt: skip
    return frame.select(
        "game_id", "key", value.alias("value"), "judged", "absent", detail.alias("detail")
    ).cast(JUDGED_READINGS_SCHEMA)  # type: ignore[arg-type]


def judge_discussion(
    discussion: Discussion,
    judge: Judge,
    *,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    judge_spec: DiscussionJudgeSpec = DEFAULT_DISCUSSION_JUDGE_SPEC,
    metrics: Sequence[str] = JUDGED_METRICS,
    double_check: bool = False,
    concurrency: int = 4,
    max_cost: float | None = None,
    prices: PriceTable | str | Path | None = None,
    progress: bool | None = None,
) -> JudgedDiscussion:
    """Ask ``judge`` for the judged readings of every game of ``discussion``.

    Args:
        discussion: the loaded games.
        judge: any :class:`toolkit.judge.Judge` (CI: a :class:`~toolkit.judge.RecordedJudge`).
        spec: the discussion rubric (its engagement instrument and memory cues).
        judge_spec: what the judge is asked (:class:`DiscussionJudgeSpec`).
        metrics: which judged readings (default all three: memory_accuracy,
            strategic_depth, engagement).
        double_check: ask the judge to revise each answer once.
        concurrency: judge calls in flight at once (results do not depend on it).
        max_cost: send no call that could take the estimated cost past this many dollars.
        prices: a price table or a YAML price file laid over the built-in one.
        progress: a progress bar over judge calls (None: only for a live judge).

    Returns:
        A :class:`JudgedDiscussion`: the readings per game and metric, and every item's
        value and reasoning.

    Raises:
        InputError: a cassette with no recording for a request (naming the file and the
            request), a model without a price under a cost cap.
    """
    items = judge_items(discussion, spec, judge_spec, metrics)
    chunks = _chunks(items, judge_spec.batch_size)
    table = _price_table(judge, prices, max_cost)
    budget = budget_for(judge, max_cost, table) if max_cost is not None and table else None
    outcome = run_batches(
        judge,
        [[i.request for i in chunk] for chunk in chunks],
        double_check=double_check,
        concurrency=concurrency,
        budget=budget,
        progress=progress,
    )
    frame, entries = _answers(chunks, outcome, judge_spec)
    usage = judge_usage(judge, entries, outcome, prices=table, max_cost=max_cost)
    usage = replace(usage, by_agent={})  # subjects are games, not agents
    readings = _readings(frame, discussion.game_ids, list(metrics), judge_spec)
    texts = {g: game_text(discussion, g) for g in discussion.game_ids}
    return JudgedDiscussion(
        judge=judge.name,
        items=frame,
        readings=readings,
        texts=texts,
        spec=judge_spec,
        usage=usage,
        warnings=tuple(_warnings(usage, frame)),
        basis={
            **judge_basis(judge),
            "questions": judge_spec.rubric,
            "questions_version": judge_spec.version,
            "questions_data": judge_spec.model_dump(mode="json", exclude={"rubric", "version"}),
            "metrics": list(metrics),
            "double_check": double_check,
        },
    )


def _chunks(items: list[JudgeItem], batch_size: int) -> list[list[JudgeItem]]:
    """The items in batches of at most ``batch_size``, a batch never mixing games, kinds
    of request or scales."""
    groups: dict[tuple[str, str, tuple[int, int] | None], list[JudgeItem]] = {}
    for item in items:
        groups.setdefault((item.game_id, item.request.kind, item.request.scale), []).append(item)
    return [
        group[start : start + batch_size]
        for group in groups.values()
        for start in range(0, len(group), batch_size)
    ]


def _price_table(
    judge: Judge, prices: PriceTable | str | Path | None, max_cost: float | None
) -> PriceTable | None:
    """The price table the judge's account uses: the one given, the built-in one with a
    price file laid over it, or none when nothing asks for prices."""
    if isinstance(prices, PriceTable):
        return prices
    if prices is not None or max_cost is not None or getattr(judge, "model", None):
        return load_prices(*([] if prices is None else [prices]))
    return None


def _answers(
    chunks: list[list[JudgeItem]], outcome: BatchOutcome, judge_spec: DiscussionJudgeSpec
) -> tuple[pl.DataFrame, list[tuple[str, str, JudgeResult]]]:
    """:data:`JUDGED_ITEMS_SCHEMA`, one row per item with the judge's answer; and the
    ``(metric, game, result)`` entries of the judge's account."""
    rows: list[dict[str, Any]] = []
    entries: list[tuple[str, str, JudgeResult]] = []
    for chunk, results in zip(chunks, outcome.results, strict=True):
        for item, result in zip(chunk, results, strict=True):
            value, error = _value_of(result, item.request, outcome.cap_reason)
            counted = None
            if value is not None and item.metric != "engagement":
                counted = value >= judge_spec.true_at
            rows.append(
                {
                    "game_id": item.game_id,
                    "metric": item.metric,
                    "item_id": item.item_id,
                    "anchor": item.anchor,
                    "claim": item.request.claim,
                    "value": value,
                    "counted": counted,
                    "reasoning": result.reasoning,
                    "error": error,
                    "text_sha256": _sha(item.request.trajectory),
                }
            )
            entries.append((item.metric, item.game_id, result))
    return pl.DataFrame(rows, schema=JUDGED_ITEMS_SCHEMA), entries


def _warnings(usage: JudgeUsage, frame: pl.DataFrame) -> list[str]:
    """What the reader must know: requests the cost cap stopped, or answers unusable."""
    warnings: list[str] = []
    absent = frame.filter(pl.col("value").is_null()).height
    if usage.not_judged:
        warnings.append(f"judge: {usage.not_judged} request(s) {usage.cap_reason}")
    elif absent:
        warnings.append(f"judge: {absent} request(s) got no usable answer (shown as absent)")
    return warnings
