"""Re-scoring persona sessions: the same chat judged under two rubrics (the judge's
answers reused: no call for the second) or by two judges, and a dry run that counts
the calls a judge change would cost (:mod:`toolkit.fleet.rescore` for the others)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.epoch import Epoch
from toolkit.errors import InputError
from toolkit.fleet.find import chat_files
from toolkit.judge import Judge, JudgeRequest, JudgeResult, judge_from_spec
from toolkit.load.persona import ChatRun, PropositionSet, load_chat, load_propositions
from toolkit.rubrics.persona import (
    DEFAULT_PERSONA_RUBRIC,
    PersonaResult,
    PersonaRubric,
    load_persona_rubric,
    persona_epoch,
    score_persona,
)
from toolkit.rubrics.persona.spec import PUBLISHED_PERSONA_RUBRICS
from toolkit.rubrics.rescore import RescoreResult, Scored, rescore_diff

JudgeArg = str | Judge | None
PersonaRubricArg = str | Path | Mapping[str, Any] | PersonaRubric | None


class AnswerMemo:
    """A judge that answers a request it has answered before from memory, and asks
    ``inner`` (counting the calls and requests) only for the others; with ``inner``
    ``None`` a new request is refused. Safe to call from several threads."""

    def __init__(self, inner: Judge | None) -> None:
        self.inner = inner
        self.name = inner.name if inner is not None else "memory"
        self.model = getattr(inner, "model", None)
        self.answers: dict[str, JudgeResult] = {}
        self.calls = 0
        self.requests = 0
        self._lock = threading.Lock()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Each request's answer: remembered, or asked of ``inner`` in one call."""
        keys = [r.key(double_check=double_check) for r in requests]
        with self._lock:
            missing = [i for i, k in enumerate(keys) if k not in self.answers]
        if missing:
            if self.inner is None:
                raise InputError(
                    None,
                    "a request no judge answered before (the rubric changed "
                    "what the judge is asked): give the judge",
                    field="--judge",
                    value=requests[missing[0]].proposition_id,
                )
            got = self.inner.judge([requests[i] for i in missing], double_check=double_check)
            with self._lock:
                self.calls += 1
                self.requests += len(missing)
                for i, result in zip(missing, got, strict=True):
                    self.answers[keys[i]] = result
        with self._lock:
            return [self.answers[k] for k in keys]


class _Counter:
    """A judge that answers nothing and counts what it was asked (the dry run)."""

    name = "dry run"

    def __init__(self) -> None:
        self.calls = 0
        self.keys: set[str] = set()
        self._lock = threading.Lock()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        with self._lock:
            self.calls += 1
            self.keys.update(r.key(double_check=double_check) for r in requests)
        return [JudgeResult(value=None, reasoning="", error="dry run") for _ in requests]


@dataclass(frozen=True)
class DryRun:
    """What judging the runs would cost: judge ``calls`` (batches) and ``requests``."""

    judge: str
    calls: int
    requests: int
    sessions: int

    def line(self) -> str:
        """One line for the terminal."""
        return (
            f"judging {self.sessions} session(s) with {self.judge} would make {self.calls} "
            f"judge call(s) ({self.requests} proposition request(s)); none was made"
        )


def persona_rubric(spec: PersonaRubricArg) -> PersonaRubric:
    """A persona rubric: the default, a published version by name (``1.1``), a rubric
    object, or a file or mapping read by
    :func:`toolkit.rubrics.persona.load_persona_rubric`."""
    if spec is None:
        return DEFAULT_PERSONA_RUBRIC
    if isinstance(spec, PersonaRubric):
        return spec
    if isinstance(spec, str) and spec in PUBLISHED_PERSONA_RUBRICS:
        return PUBLISHED_PERSONA_RUBRICS[spec]
    return load_persona_rubric(spec)


def _judge(spec: JudgeArg) -> Judge:
    if spec is None:
        raise InputError(None, "persona runs are judged: give --judge SPEC", field="--judge")
    return judge_from_spec(spec) if isinstance(spec, str) else spec


def _sessions(
    source: str | Path | ChatRun, personas: str | Path | None
) -> list[tuple[str, ChatRun]]:
    if isinstance(source, ChatRun):
        return [("", source)]
    files = chat_files(source)
    runs = [(f.name, load_chat(f, personas=personas)) for f in files]
    return runs if len(runs) > 1 else [("", runs[0][1])]


def _side(results: Sequence[tuple[str, PersonaResult]], label: str, epoch: Epoch) -> Scored:
    units: list[dict[str, Any]] = []
    dims: list[dict[str, Any]] = []
    for name, result in results:
        for agent, card in result.scorecards.items():
            subject = f"{name}:{agent}" if name else agent
            units.append({"subject": subject, "verdict": card.verdict, "epoch": epoch.id,
                          "input_digest": card.meta.get("input_digest")})  # fmt: skip
            dims.extend(
                {"subject": subject, "dimension": r["dimension"], "value": r["value"],
                 "status": r["status"]}
                for r in card.dimensions.iter_rows(named=True)
            )  # fmt: skip
    return Scored.of(units, dims, label, epoch)


def dry_run_persona(
    source: str | Path | ChatRun,
    propositions: str | Path | PropositionSet,
    judge: JudgeArg = None,
    *,
    rubric: PersonaRubricArg = None,
    personas: str | Path | None = None,
) -> DryRun:
    """How many judge calls judging ``source`` would make (no judge is called)."""
    props = (
        load_propositions(propositions) if isinstance(propositions, str | Path) else propositions
    )
    spec = persona_rubric(rubric)
    counter = _Counter()
    sessions = _sessions(source, personas)
    for _, run in sessions:
        score_persona(run, props, counter, rubric=spec, progress=False)
    name = judge if isinstance(judge, str) else getattr(judge, "name", "the judge")
    return DryRun(str(name), counter.calls, len(counter.keys), len(sessions))


def rescore_persona(
    source: str | Path | ChatRun,
    propositions: str | Path | PropositionSet,
    judge_a: JudgeArg,
    judge_b: JudgeArg = None,
    *,
    rubric_a: PersonaRubricArg = None,
    rubric_b: PersonaRubricArg = None,
    personas: str | Path | None = None,
) -> RescoreResult:
    """Score persona sessions under (rubric A, judge A) and (rubric B, judge B).

    Without ``judge_b`` only the rubric changes: B is scored from the answers judge A
    gave for A (zero judge calls when the rubric does not change what the judge is
    asked); the result's ``judge_calls`` counts the calls B made.
    """
    props = (
        load_propositions(propositions) if isinstance(propositions, str | Path) else propositions
    )
    a_rubric, b_rubric = persona_rubric(rubric_a), persona_rubric(rubric_b)
    first = _judge(judge_a)
    second = first if judge_b is None else _judge(judge_b)
    memo_a = AnswerMemo(first)
    memo_b = memo_a if judge_b is None else AnswerMemo(second)
    sessions = _sessions(source, personas)
    scored_a = [(n, score_persona(r, props, memo_a, rubric=a_rubric, progress=False))
                for n, r in sessions]  # fmt: skip
    before = memo_b.calls
    scored_b = [(n, score_persona(r, props, memo_b, rubric=b_rubric, progress=False))
                for n, r in sessions]  # fmt: skip
    epoch_a, epoch_b = persona_epoch(a_rubric, first), persona_epoch(b_rubric, second)
    label_a = f"{a_rubric.rubric} {a_rubric.version}, {first.name}"
    label_b = f"{b_rubric.rubric} {b_rubric.version}, {second.name}"
    where = "a chat run" if isinstance(source, ChatRun) else str(source)
    return rescore_diff(
        _side(scored_a, label_a, epoch_a), _side(scored_b, label_b, epoch_b),
        family="persona", source=where, differences=epoch_a.differences(epoch_b),
        judge_calls=memo_b.calls - before,
    )  # fmt: skip
