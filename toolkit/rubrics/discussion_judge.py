"""Judged readings of a Mafia discussion, beside the keyword readings.

Three metrics of the discussion rubric get a reading by an LLM judge through the one
judge protocol (:mod:`toolkit.judge`: recorded cassettes in CI, live SDK judges for real
use, batching, the cost cap, double-check):

* **engagement** (metric 7): the whole game, rated on the rubric's own 1-5 scale with the
  engagement instrument's levels and questions (``engagement.yaml``, read through
  :class:`~toolkit.rubrics.discussion_spec.EngagementScale`: never a second copy) as
  the prompt. One request per game (``scale=(1, 5)``).
* **strategic depth** (metric 2): one 0-9 claim per message ("this message shows
  strategic depth ..."); the reading is the share of messages the judge scores at
  ``true_at`` or above, the keyword reading's own formula.
* **memory accuracy** (metric 1): one 0-9 claim per reference to a past event that the
  keyword reading found (:func:`~toolkit.rubrics.discussion.memory_references`); the
  reading is the share the judge scores at ``true_at`` or above.

Every judge request carries the game as one plain text (:func:`game_text`: players,
rounds, turns, replies, votes; no roles, as raters see it). A judged reading never
decides a verdict by itself: :func:`~toolkit.rubrics.discussion.score_discussion`
shows it beside the keyword (or human) reading, and lets the judged engagement fill a
game's missing rating only when asked (``engagement="judge"``), stamped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from pydantic import Field

from toolkit._show import Shows, Summary, plural
from toolkit.frames import CALIBRATION_SCORES_SCHEMA, CALIBRATION_TEXT_SCHEMA
from toolkit.judge import (
    MAX_BATCH,
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
from toolkit.load.discussion import Discussion
from toolkit.load.ratings import RatingSource
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.rubrics.discussion_spec import (
    DEFAULT_DISCUSSION_SPEC,
    DiscussionSpec,
    EngagementScale,
)

if TYPE_CHECKING:
    from toolkit.rubrics.calibrate import CalibrateRubric

__all__ = [
    "CALIBRATED_METRICS",
    "DEFAULT_DISCUSSION_JUDGE_SPEC",
    "GAME_CALIBRATION_SCHEMA",
    "JUDGED_ITEMS_SCHEMA",
    "JUDGED_METRICS",
    "JUDGED_READINGS_SCHEMA",
    "DiscussionJudgeSpec",
    "JudgedDiscussion",
    "discussion_requests",
    "engagement_bands",
    "engagement_calibrate_rubric",
    "engagement_calibration_scores",
    "engagement_claim",
    "game_text",
    "judge_discussion",
    "load_discussion_judge_spec",
]

#: The metrics that get a judged reading, in the rubric's order.
JUDGED_METRICS: tuple[str, ...] = ("memory_accuracy", "strategic_depth", "engagement")

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


class DiscussionJudgeSpec(RubricSpec):
    """What the judge is asked about a discussion (version 1.0.0; a changed word or number
    needs a new version, stamped into every judged scorecard).

    Attributes:
        true_at: a 0-9 claim (a message strategic, a reference accurate) counts as true
            at this score or above (the middle of the scale: "about as true as false"
            and up).
        strategic_claim: the claim about one message; ``{turn}``, ``{speaker}``,
            ``{text}`` are filled in.
        memory_claim: the claim about one reference; ``{turn}``, ``{speaker}``,
            ``{sentence}`` are filled in.
        engagement_question: the question of the 1-5 rating; the instrument's questions
            and hint follow it (from ``engagement.yaml``).
        excerpt_chars: the length of the evidence excerpt a calibration shows per game.
        batch_size: claims sent to the judge per call (at most 10).
    """

    rubric: str = "discussion-judge"
    version: str = "1.0.0"
    true_at: int = Field(default=5, ge=0, le=9)
    strategic_claim: str = (
        'Turn {turn}, {speaker}: "{text}" This message shows strategic depth: it reasons '
        "from evidence, argues a suspicion, a defence, trust or a vote, or analyses how "
        "other players behave; small talk and bare assertions do not count."
    )
    memory_claim: str = (
        'Turn {turn}, {speaker} says: "{sentence}" This reference to earlier events of the '
        "game is accurate: the messages and votes before turn {turn} support it."
    )
    engagement_question: str = (
        "How engaging is this discussion to watch? Rate it as a person watching the game "
        "would, using the scale's labels."
    )
    excerpt_chars: int = Field(default=280, ge=40)
    batch_size: int = Field(default=MAX_BATCH, ge=1, le=MAX_BATCH)


DEFAULT_DISCUSSION_JUDGE_SPEC = DiscussionJudgeSpec()


def load_discussion_judge_spec(source: str | Path | dict[str, Any]) -> DiscussionJudgeSpec:
    """The judge's questions with the overrides of ``source`` (a YAML path or a mapping).

    Raises:
        RubricError: a bad value, or changed words under the published version.
    """
    return load_spec(
        DiscussionJudgeSpec,
        source,
        DEFAULT_DISCUSSION_JUDGE_SPEC,
        {DEFAULT_DISCUSSION_JUDGE_SPEC.version: DEFAULT_DISCUSSION_JUDGE_SPEC},
    )


# ---------------------------------------------------------------------------
# What the judge reads
# ---------------------------------------------------------------------------


def game_text(discussion: Discussion, game_id: str) -> str:
    """One game as the judge reads it: players, then per round its messages (turn,
    speaker, whom it replies to) and its votes. Roles are not shown (raters do not see
    them either).

    Raises:
        KeyError: no such game.
    """
    game = discussion.game(game_id)
    players = game.players.sort("position")["name"].to_list()
    lines = [f"Players: {', '.join(str(p) for p in players)}"]
    votes = game.votes
    rounds = sorted(set(game.messages["round"].to_list()) | set(votes["round"].to_list()))
    for rnd in rounds:
        lines += ["", f"Round {rnd}"]
        for m in game.messages.filter(pl.col("round") == rnd).iter_rows(named=True):
            reply = f", replying to {m['in_reply_to_player']}" if m["in_reply_to_player"] else ""
            lines.append(f"[turn {m['turn']}] {m['speaker']}{reply}: {m['text']}")
        cast = votes.filter(pl.col("round") == rnd)
        if cast.height:
            shown = "; ".join(
                f"{v['voter']} -> {v['target'] or 'no one'}" for v in cast.iter_rows(named=True)
            )
            lines.append(f"Votes: {shown}")
    if game.messages.height == 0:
        lines += ["", "(no discussion messages)"]
    return "\n".join(lines)


def engagement_bands(scale: EngagementScale) -> tuple[str, ...]:
    """The instrument's 1-5 levels as the judge's scale lines (``3 (Acceptable): ...``)."""
    return tuple(f"{lv.score} ({lv.label}): {lv.description}" for lv in scale.levels)


def engagement_claim(scale: EngagementScale, judge_spec: DiscussionJudgeSpec) -> str:
    """The engagement question, then the instrument's own yes/no questions and hint."""
    questions = "\n".join(f"- {q.text}" for q in scale.questions)
    return (
        f"{judge_spec.engagement_question}\nA person rating it answers these questions "
        f"first:\n{questions}\n({scale.hint})"
    )


@dataclass(frozen=True)
class _Item:
    game_id: str
    metric: str
    item_id: str
    anchor: str
    request: JudgeRequest


def discussion_requests(
    discussion: Discussion,
    *,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    judge_spec: DiscussionJudgeSpec = DEFAULT_DISCUSSION_JUDGE_SPEC,
    metrics: Sequence[str] = JUDGED_METRICS,
) -> list[tuple[str, str, str, str, JudgeRequest]]:
    """Every judge request of ``discussion``: ``(game_id, metric, item_id, anchor,
    request)``, games in load order, then engagement, messages, references.

    Raises:
        ValueError: a metric that has no judged reading.
    """
    items = _items(discussion, spec, judge_spec, metrics)
    return [(i.game_id, i.metric, i.item_id, i.anchor, i.request) for i in items]


def _items(
    discussion: Discussion,
    spec: DiscussionSpec,
    judge_spec: DiscussionJudgeSpec,
    metrics: Sequence[str],
) -> list[_Item]:
    unknown = [m for m in metrics if m not in JUDGED_METRICS]
    if unknown:
        raise ValueError(f"no judged reading of {unknown}; judged: {list(JUDGED_METRICS)}")
    from toolkit.rubrics.discussion import memory_references

    refs = (
        memory_references(discussion.messages, discussion.players, discussion.votes, spec)
        if "memory_accuracy" in metrics
        else None
    )
    scale = spec.engagement_scale
    out: list[_Item] = []
    for gid in discussion.game_ids:
        text = game_text(discussion, gid)
        msgs = discussion.messages.filter(pl.col("game_id") == gid)
        if "engagement" in metrics and msgs.height:
            turns = [int(t) for t in msgs["turn"].to_list()]
            request = JudgeRequest(
                proposition_id="discussion.engagement",
                dimension="engagement",
                subject=gid,
                claim=engagement_claim(scale, judge_spec),
                trajectory=text,
                scale=(1, 5),
                bands=engagement_bands(scale),
            )
            anchor = f"turns {min(turns)}-{max(turns)}"
            out.append(_Item(gid, "engagement", "game", anchor, request))
        if "strategic_depth" in metrics:
            for m in msgs.iter_rows(named=True):
                claim = judge_spec.strategic_claim.format(
                    turn=m["turn"], speaker=m["speaker"], text=m["text"]
                )
                request = JudgeRequest(
                    proposition_id=f"discussion.strategic_depth:{m['message_id']}",
                    dimension="strategic_depth",
                    subject=gid,
                    claim=claim,
                    trajectory=text,
                )
                out.append(
                    _Item(gid, "strategic_depth", m["message_id"], f"turn {m['turn']}", request)
                )
        if refs is not None:
            for r in refs.filter(pl.col("game_id") == gid).iter_rows(named=True):
                claim = judge_spec.memory_claim.format(
                    turn=r["turn"], speaker=r["speaker"], sentence=r["sentence"]
                )
                request = JudgeRequest(
                    proposition_id=f"discussion.memory_accuracy:{r['reference_id']}",
                    dimension="memory_accuracy",
                    subject=gid,
                    claim=claim,
                    trajectory=text,
                )
                out.append(
                    _Item(gid, "memory_accuracy", r["reference_id"], f"turn {r['turn']}", request)
                )
    return out


# ---------------------------------------------------------------------------
# The judged result
# ---------------------------------------------------------------------------


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
    """

    judge: str
    items: pl.DataFrame
    readings: pl.DataFrame
    texts: dict[str, str]
    spec: DiscussionJudgeSpec
    usage: JudgeUsage | None = None
    warnings: tuple[str, ...] = ()

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
    items = _items(discussion, spec, judge_spec, metrics)
    groups: dict[tuple[str, str, tuple[int, int] | None], list[_Item]] = {}
    for item in items:
        groups.setdefault((item.game_id, item.request.kind, item.request.scale), []).append(item)
    chunks = [
        group[start : start + judge_spec.batch_size]
        for group in groups.values()
        for start in range(0, len(group), judge_spec.batch_size)
    ]
    table: PriceTable | None = None
    if isinstance(prices, PriceTable):
        table = prices
    elif prices is not None or max_cost is not None or getattr(judge, "model", None):
        table = load_prices(*([] if prices is None else [prices]))
    budget = budget_for(judge, max_cost, table) if max_cost is not None and table else None
    outcome = run_batches(
        judge,
        [[i.request for i in chunk] for chunk in chunks],
        double_check=double_check,
        concurrency=concurrency,
        budget=budget,
        progress=progress,
    )
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
    frame = pl.DataFrame(rows, schema=JUDGED_ITEMS_SCHEMA)
    usage = judge_usage(judge, entries, outcome, prices=table, max_cost=max_cost)
    usage = replace(usage, by_agent={})  # subjects are games, not agents
    readings = _readings(frame, discussion.game_ids, list(metrics), judge_spec)
    warnings: list[str] = []
    absent = frame.filter(pl.col("value").is_null()).height
    if usage.not_judged:
        warnings.append(f"judge: {usage.not_judged} request(s) {usage.cap_reason}")
    elif absent:
        warnings.append(f"judge: {absent} request(s) got no usable answer (shown as absent)")
    texts = {g: game_text(discussion, g) for g in discussion.game_ids}
    return JudgedDiscussion(
        judge=judge.name,
        items=frame,
        readings=readings,
        texts=texts,
        spec=judge_spec,
        usage=usage,
        warnings=tuple(warnings),
    )


# ---------------------------------------------------------------------------
# Calibrating the engagement judge against people
# ---------------------------------------------------------------------------

#: The metrics a calibration over games can hold the judge to (people rate engagement).
CALIBRATED_METRICS: tuple[str, ...] = ("engagement",)

#: The long frame of the calibration contract, as :func:`engagement_calibration_scores`
#: builds it (one row per game and rater; the judge is rater ``judge``).
GAME_CALIBRATION_SCHEMA: dict[str, pl.DataType] = (
    CALIBRATION_SCORES_SCHEMA | {"game": pl.String()} | CALIBRATION_TEXT_SCHEMA
)


def _human_engagement(source: RatingSource | pl.DataFrame, game_ids: Sequence[str]) -> pl.DataFrame:
    """game_id, rater, score, notes of people's engagement ratings of ``game_ids``."""
    from toolkit.ratings.store import RatingStore

    schema = {"game_id": pl.String(), "rater": pl.String(), "score": pl.Float64(),
              "notes": pl.String()}  # fmt: skip
    if isinstance(source, pl.DataFrame):
        frame = source if "notes" in source.columns else source.with_columns(notes=None)
    elif isinstance(source, RatingStore):  # each rater's latest rating, with its note
        frame = source.latest().select(
            pl.col("transcript_id").alias("game_id"), "rater", "score", "notes"
        )
    else:
        frame = source.ratings(list(game_ids))
        notes = getattr(source, "notes", None)
        if isinstance(notes, pl.DataFrame) and notes.height:
            frame = frame.join(notes, on=["game_id", "rater"], how="left")
        else:
            frame = frame.with_columns(notes=None)
    return (
        frame.select(list(schema))
        .cast(schema)  # type: ignore[arg-type]
        .filter(pl.col("game_id").is_in(list(game_ids)))
        .with_columns(
            pl.when(pl.col("notes").str.strip_chars() == "")
            .then(None)
            .otherwise(pl.col("notes"))
            .alias("notes")
        )
    )


def engagement_calibration_scores(
    judged: JudgedDiscussion,
    discussion: Discussion,
    ratings: RatingSource | pl.DataFrame,
    *,
    judge_id: str = "judge",
) -> pl.DataFrame:
    """The judge's engagement and people's ratings of the same games, as the calibration
    contract's long frame (:func:`toolkit.rubrics.calibrate.calibrate` reads it).

    Args:
        judged: the judge's readings (:func:`judge_discussion` with ``engagement``).
        discussion: the games judged (for each game's source file).
        ratings: people's engagement ratings: a ratings file
            (:func:`toolkit.load.ratings.load_ratings`, its ``notes`` column kept), the
            SQLite ratings store (each rater's latest rating and note), or a frame
            (game_id, rater, score[, notes]).
        judge_id: the judge's rater id (must not be a person's).

    Returns:
        :data:`GAME_CALIBRATION_SCHEMA`: ``item`` (the game id), ``rater``, ``score``
        (1-5), ``game`` (a group), ``notes`` (a person's note, on human rows),
        ``reasoning`` (on the judge's row), ``evidence`` (the beginning of the text the
        judge read, same on every row of a game), ``source`` (the game's file),
        ``anchor`` (the turns judged, ``turns 1-15``), ``text_sha256`` (of the exact
        text the judge received). A game the judge gave no usable value has no judge row
        (calibrate counts it as unpaired).

    Raises:
        InputError: a person rating under the judge's id, or no engagement reading.
    """
    from toolkit.errors import InputError

    items = judged.items.filter(pl.col("metric") == "engagement")
    if items.height == 0:
        raise InputError(
            None, "the judge gave no engagement reading to calibrate", field="--metric",
            value="engagement",
        )  # fmt: skip
    game_ids = [g for g in discussion.game_ids if g in set(items["game_id"].to_list())]
    humans = _human_engagement(ratings, game_ids)
    if judge_id in set(humans["rater"].to_list()):
        raise InputError(
            None, "a person rated under the judge's id; give the judge another id",
            field="--judge-id", value=judge_id,
        )  # fmt: skip
    per_game = discussion.games.select(
        pl.col("game_id").alias("item"), pl.col("source_file").alias("source")
    ).join(
        items.select(
            pl.col("game_id").alias("item"),
            "anchor",
            "text_sha256",
            pl.col("value").cast(pl.Float64).alias("_judge"),
            "reasoning",
        ),
        on="item",
        how="inner",
    )
    per_game = per_game.with_columns(
        pl.col("item")
        .replace_strict({g: judged.excerpt(g) for g in game_ids}, return_dtype=pl.String())
        .alias("evidence"),
        pl.col("item").alias("game"),
    )
    judge_rows = per_game.filter(pl.col("_judge").is_not_null()).select(
        "item",
        pl.lit(judge_id).alias("rater"),
        pl.col("_judge").alias("score"),
        "game",
        pl.lit(None, dtype=pl.String()).alias("notes"),
        "reasoning",
        "evidence",
        "source",
        "anchor",
        "text_sha256",
    )
    human_rows = humans.join(
        per_game.drop("_judge", "reasoning"), left_on="game_id", right_on="item", how="inner"
    ).select(
        pl.col("game_id").alias("item"),
        "rater",
        "score",
        "game",
        "notes",
        pl.lit(None, dtype=pl.String()).alias("reasoning"),
        "evidence",
        "source",
        "anchor",
        "text_sha256",
    )
    order = {g: i for i, g in enumerate(game_ids)}
    schema: Any = GAME_CALIBRATION_SCHEMA
    return (
        pl.concat([judge_rows.cast(schema), human_rows.cast(schema)])
        .with_columns(pl.col("item").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", "rater", maintain_order=True)
        .drop("_o")
    )


def engagement_calibrate_rubric(
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
) -> CalibrateRubric:
    """The calibrate rubric on the engagement scale: scores 1 to 5, an item passes at the
    discussion rubric's engagement threshold (3.0); version ``1.0.0-engagement``."""
    from toolkit.rubrics.calibrate import DEFAULT_CALIBRATE_RUBRIC

    rubric: CalibrateRubric = DEFAULT_CALIBRATE_RUBRIC.model_copy(
        update={
            "scale_min": 1.0,
            "scale_max": 5.0,
            "threshold": spec.threshold("engagement"),
            "version": f"{DEFAULT_CALIBRATE_RUBRIC.version}-engagement",
        }
    )
    return rubric
