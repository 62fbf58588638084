"""Re-scoring LLM Mafia discussion games: the same games scored under two discussion
rubrics (loaded once; with a judge, its answers under A reused for B, so a rubric-only
change makes no judge call), or with two judges; and a dry run that counts the judge
calls B would make (:mod:`toolkit.fleet.rescore` for the other families); and a sweep of
one metric's pass threshold (:func:`sweep_discussion`).

A rubric is named as ``toolkit discussion --rubric`` names it (a YAML file), or by a
published version: the names of :data:`toolkit.rubrics.discussion.spec.PUBLISHED` (the
one table of discussion versions), bare (``1.1.0``) or prefixed (``discussion-1.1.0``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import polars as pl

from toolkit.epoch import EPOCH_KEY, INPUTS_KEY, Epoch, spec_epoch
from toolkit.errors import InputError
from toolkit.fleet.rescore_persona import AnswerMemo
from toolkit.judge import Judge, JudgeRequest, JudgeResult, judge_from_spec
from toolkit.judge.epoch import judge_basis
from toolkit.load.discussion import Discussion, load_discussions
from toolkit.load.ratings import RatingSource, open_rating_source
from toolkit.rubrics._plain_values import PlainValues
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DiscussionReport,
    DiscussionSpec,
    JudgedDiscussion,
    judge_discussion,
    load_discussion_spec,
    score_discussion,
)
from toolkit.rubrics.discussion.schemas import FAIL, PASS, PENDING_RATING
from toolkit.rubrics.discussion.spec import PUBLISHED
from toolkit.rubrics.rescore import (
    RescoreResult,
    Scored,
    SweepResult,
    parse_discussion_sweep,
    rescore_diff,
    sweep_over,
    swept_discussion_rubric,
    verdicts_seen,
)

DiscussionRubricArg = str | Path | Mapping[str, Any] | DiscussionSpec | None
JudgeArg = str | Judge | None
Engagement = Literal["humans", "judge"]
_VERSION = re.compile(r"^(discussion-)?(\d+\.\d+\.\d+)$")


def discussion_rubric(spec: DiscussionRubricArg) -> DiscussionSpec:
    """A discussion rubric: the default (``None``), a published version by name
    (``1.1.0`` or ``discussion-1.1.0``, from :data:`PUBLISHED`), a spec, or a YAML file
    or mapping read by :func:`toolkit.rubrics.discussion.load_discussion_spec`.

    Raises:
        InputError: a version no table lists (naming ``--rubric`` and the known ones).
    """
    if spec is None:
        return DEFAULT_DISCUSSION_SPEC
    if isinstance(spec, DiscussionSpec):
        return spec
    if isinstance(spec, PlainValues):  # a report's own rubric (``report.spec``)
        return DiscussionSpec.model_validate(spec.model_dump())
    match = _VERSION.match(spec.strip()) if isinstance(spec, str) else None
    if match is not None and not Path(str(spec)).exists():
        version = match.group(2)
        if version not in PUBLISHED:
            raise InputError(
                None,
                f"no published discussion rubric of that version "
                f"({', '.join(PUBLISHED)}, or a YAML file)",
                field="--rubric",
                value=str(spec),
            )
        return PUBLISHED[version]
    return load_discussion_spec(spec)


def _judge(spec: JudgeArg) -> Judge:
    return judge_from_spec(spec) if isinstance(spec, str) else spec  # type: ignore[return-value]


def _games(source: str | Path | Sequence[str | Path] | Discussion) -> Discussion:
    if isinstance(source, Discussion):
        return source
    paths = [source] if isinstance(source, str | Path) else list(source)
    return load_discussions(paths)


def _ratings(ratings: str | Path | RatingSource | pl.DataFrame | None) -> Any:
    return open_rating_source(str(ratings)) if isinstance(ratings, str | Path) else ratings


def _epoch(
    spec: DiscussionSpec, judged: JudgedDiscussion | None, judge: Judge | None, engagement: str
) -> Epoch:
    """What decides the numbers: the rubric, who decides engagement and, with a judge,
    the judge and the questions it is asked."""
    base = spec_epoch(spec, engagement=engagement)
    if judge is None or judged is None:
        return base
    questions = {"questions": f"{judged.spec.rubric} {judged.spec.version}"}
    return Epoch(base.rubric, base.version, base.parameters, {**judge_basis(judge), **questions})


def discussion_side(report: DiscussionReport, label: str, epoch: Epoch) -> Scored:
    """A scored set of games as one side: a unit per game (its verdict; no overall value)
    and a dimension per metric row (the judge's informational rows included)."""
    units = [
        {
            "subject": card.subject,
            "verdict": card.verdict,
            "epoch": str(card.meta.get(EPOCH_KEY) or epoch.id),
            "input_digest": card.meta.get(INPUTS_KEY),
        }
        for card in report.scorecards
    ]
    dims = [
        {"subject": r["subject"], "dimension": r["dimension"], "value": r["value"],
         "status": r["status"]}
        for card in report.scorecards
        for r in card.dimensions.iter_rows(named=True)
    ]  # fmt: skip
    return Scored.of(units, dims, label, epoch)


def rescore_discussion(
    source: str | Path | Sequence[str | Path] | Discussion,
    rubric_a: DiscussionRubricArg = None,
    rubric_b: DiscussionRubricArg = None,
    *,
    judge_a: JudgeArg = None,
    judge_b: JudgeArg = None,
    ratings: str | Path | RatingSource | pl.DataFrame | None = None,
    engagement: Engagement = "humans",
) -> RescoreResult:
    """Load the games once and score them under (rubric A, judge A) and (rubric B,
    judge B).

    Without a judge only the keyword and human readings are scored. With ``judge_a``
    alone the judge answers for A and B is scored from those answers (zero judge calls
    unless rubric B changes what the judge is asked: its memory cues find other
    references, or its engagement instrument differs); ``judge_calls`` counts B's calls.

    Raises:
        InputError: ``judge_b`` without ``judge_a``, ``engagement="judge"`` without a
            judge, an unknown rubric version, or games a cassette has no answer for.
    """
    if judge_b is not None and judge_a is None:
        raise InputError(None, "a judge change needs --judge A too", field="--judge",
                         value=str(judge_b))  # fmt: skip
    if engagement == "judge" and judge_a is None:
        raise InputError(None, "needs --judge (whose engagement would stand in?)",
                         field="--engagement", value="judge")  # fmt: skip
    spec_a, spec_b = discussion_rubric(rubric_a), discussion_rubric(rubric_b)
    games, rated = _games(source), _ratings(ratings)
    first = _judge(judge_a) if judge_a is not None else None
    second = _judge(judge_b) if judge_b is not None else first
    judged_a = judged_b = None
    calls: int | None = None
    if first is not None and second is not None:
        memo_a = AnswerMemo(first)
        memo_b = memo_a if judge_b is None else AnswerMemo(second)
        judged_a = judge_discussion(games, memo_a, spec=spec_a, progress=False)
        before = memo_b.calls
        judged_b = judge_discussion(games, memo_b, spec=spec_b, progress=False)
        calls = memo_b.calls - before
    report_a = score_discussion(games, ratings=rated, spec=spec_a, judged=judged_a,
                                engagement=engagement)  # fmt: skip
    report_b = score_discussion(games, ratings=rated, spec=spec_b, judged=judged_b,
                                engagement=engagement)  # fmt: skip
    epoch_a = _epoch(spec_a, judged_a, first, engagement)
    epoch_b = _epoch(spec_b, judged_b, second, engagement)
    label_a = f"{spec_a.rubric} {spec_a.version}" + (f", {first.name}" if first else "")
    label_b = f"{spec_b.rubric} {spec_b.version}" + (f", {second.name}" if second else "")
    where = "loaded games" if isinstance(source, Discussion) else str(source)
    return rescore_diff(
        discussion_side(report_a, label_a, epoch_a),
        discussion_side(report_b, label_b, epoch_b),
        family="discussion",
        source=where,
        differences=epoch_a.differences(epoch_b),
        judge_calls=calls,
    )


class _Tally:
    """A judge that answers nothing and records the keys of each call (the dry run)."""

    name = "dry run"

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self._lock = threading.Lock()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        with self._lock:
            self.batches.append([r.key(double_check=double_check) for r in requests])
        return [JudgeResult(value=None, reasoning="", error="dry run") for _ in requests]


@dataclass(frozen=True)
class DiscussionDryRun:
    """What scoring B would cost: judge ``calls`` (batches) and ``requests``, over
    ``games`` games; ``reused`` requests A's answers would cover (a rubric change)."""

    judge: str
    calls: int
    requests: int
    games: int
    reused: int = 0

    def line(self) -> str:
        """One line for the terminal."""
        reuse = f", {self.reused} answered already under A" if self.reused else ""
        return (
            f"judging {self.games} game(s) with {self.judge} would make {self.calls} "
            f"judge call(s) ({self.requests} request(s){reuse}); none was made"
        )


def dry_run_discussion(
    source: str | Path | Sequence[str | Path] | Discussion,
    judge: JudgeArg,
    *,
    rubric: DiscussionRubricArg = None,
    reuse_from: DiscussionRubricArg | Literal[False] = False,
) -> DiscussionDryRun:
    """How many judge calls judging the games under ``rubric`` would make; no judge is
    called. With ``reuse_from`` (rubric A, the same judge) only the requests A's answers
    do not cover are counted: a rubric change that asks nothing new costs 0."""
    games = _games(source)
    known: set[str] = set()
    if reuse_from is not False:
        before = _Tally()
        judge_discussion(games, before, spec=discussion_rubric(reuse_from), progress=False)
        known = {k for batch in before.batches for k in batch}
    tally = _Tally()
    judge_discussion(games, tally, spec=discussion_rubric(rubric), progress=False)
    asked = {k for batch in tally.batches for k in batch}
    calls = sum(1 for batch in tally.batches if any(k not in known for k in batch))
    name = judge if isinstance(judge, str) else getattr(judge, "name", "the judge")
    return DiscussionDryRun(
        str(name), calls, len(asked - known), len(games.game_ids), len(asked & known)
    )


#: A game's verdicts, in the order a sweep table shows them.
DISCUSSION_VERDICTS = (PASS, PENDING_RATING, FAIL)


def _verdicts(report: DiscussionReport, metric: str) -> pl.DataFrame:
    """subject, verdict and ``metric``'s status of each game."""
    rows = []
    for card in report.scorecards:
        status = card.dimensions.filter(pl.col("dimension") == metric)["status"].to_list()
        rows.append({"subject": card.subject, "verdict": card.verdict,
                     "status": status[0] if status else None})  # fmt: skip
    schema = {"subject": pl.String, "verdict": pl.String, "status": pl.String}
    return pl.DataFrame(rows, schema=schema)


def sweep_discussion(
    source: str | Path | Sequence[str | Path] | Discussion,
    spec: str,
    *,
    rubric: DiscussionRubricArg = None,
    judge: JudgeArg = None,
    ratings: str | Path | RatingSource | pl.DataFrame | None = None,
    engagement: Engagement = "humans",
) -> SweepResult:
    """``metrics.METRIC=a:b:step`` over discussion games: load them (and the ratings)
    once, score them under ``rubric`` (default: the current discussion rubric) and once
    per value of that metric's pass threshold, and count the games whose verdict, and
    whose status of that metric, differ from ``rubric``'s. With ``judge`` the judge
    answers once: a threshold changes nothing it is asked.

    Raises:
        InputError: a malformed spec (one line naming ``--sweep``), bad games, or
            ``engagement="judge"`` without a judge.
    """
    if engagement == "judge" and judge is None:
        raise InputError(None, "needs --judge (whose engagement would stand in?)",
                         field="--engagement", value="judge")  # fmt: skip
    base = discussion_rubric(rubric)
    parsed = parse_discussion_sweep(spec, base)
    games, rated = _games(source), _ratings(ratings)
    memo = AnswerMemo(_judge(judge)) if judge is not None else None

    def scored(r: DiscussionSpec) -> pl.DataFrame:
        judged = judge_discussion(games, memo, spec=r, progress=False) if memo else None
        report = score_discussion(games, ratings=rated, spec=r, judged=judged,
                                  engagement=engagement)  # fmt: skip
        return _verdicts(report, parsed.threshold)

    def at(value: float) -> pl.DataFrame | str:
        swept = swept_discussion_rubric(base, parsed, value)
        return swept if isinstance(swept, str) else scored(swept)

    base_frame = scored(base)
    verdicts = verdicts_seen(base_frame, DISCUSSION_VERDICTS)
    where = "loaded games" if isinstance(source, Discussion) else str(source)
    return SweepResult(
        parsed,
        f"{base.rubric} {base.version}",
        base.threshold(parsed.threshold),
        sweep_over(parsed.values, base_frame, at, parsed.threshold, verdicts),
        verdicts,
        where,
        family="discussion",
    )
