"""A stored judge: the scores a system's own judge already recorded, answered as a judge.

the-office scores its agents itself and keeps the answers (``evaluation_runs`` /
``evaluation_scores``). :class:`StoredJudge` answers a :class:`JudgeRequest` with the
score stored for the same proposition and agent: no call, no cost, deterministic; so the
system's history can be gated, compared and calibrated against people like any judge.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from statistics import median

import polars as pl

from toolkit.errors import InputError
from toolkit.judge._protocol import JudgeRequest, JudgeResult

#: The columns a stored-score frame needs.
STORED_COLUMNS = ("evaluation_run_id", "agent_id", "created_at", "dimension", "proposition_id",
                  "score", "reasoning")  # fmt: skip

ENVIRONMENT = "environment"


#: The hard-mode factor the-office applies to a score below 9 before storing it.
HARD_FACTOR = 0.8


class StoredJudge:
    """Answers requests from stored scores (per agent and dimension, the latest
    evaluation run: the-office runs one evaluation per dimension).

    the-office stores a proposition's *final* score: the mean of the judge's answers over
    the sampled messages, then inverted (``9 - x``) for an inverted proposition and
    multiplied by 0.8 below 9 in hard mode. Given ``settings`` (proposition id ->
    ``(inverted, hard)``, from the proposition files), the judge undoes both, so the
    rubric applies them once, as it does to a live answer. A value that is then not a
    whole number is rounded to the nearest (the reasoning says so and :attr:`rounded`
    counts them). A request about the environment (convergence, ideas) is answered with
    the median of the agents' stored scores of it; a proposition with no stored score is
    an absent answer naming it (never a guess).

    Args:
        scores: one row per stored score (:data:`STORED_COLUMNS`).
        source: where the scores came from (shown in the judge's name).
        settings: proposition id -> ``(inverted, hard)``; ``None``: the stored scores are
            taken as the judge's answers as they are.
    """

    def __init__(
        self,
        scores: pl.DataFrame,
        source: str,
        settings: Mapping[str, tuple[bool, bool]] | None = None,
    ) -> None:
        missing = [c for c in STORED_COLUMNS if c not in scores.columns]
        if missing:
            raise InputError(source, "stored scores need columns " + ", ".join(missing))
        latest = (
            scores.sort("created_at", "evaluation_run_id")
            .group_by("agent_id", "dimension", maintain_order=True)
            .agg(pl.col("evaluation_run_id").last())
        )
        kept = scores.join(latest, on=["agent_id", "dimension", "evaluation_run_id"], how="semi")
        self.runs: tuple[str, ...] = tuple(dict.fromkeys(latest["evaluation_run_id"].to_list()))
        self.rounded = 0
        self._lock = threading.Lock()  # guards rounded (judge may run on several threads)
        self._settings = dict(settings or {})
        self._by_agent: dict[tuple[str, str], tuple[float, str]] = {}
        self._by_proposition: dict[str, list[float]] = {}
        for agent, prop, score, reasoning in kept.select(
            "agent_id", "proposition_id", "score", "reasoning"
        ).rows():
            if score is None:
                continue
            self._by_agent[(str(agent), str(prop))] = (float(score), str(reasoning or ""))
            self._by_proposition.setdefault(str(prop), []).append(float(score))
        self.name = f"stored:{source} ({len(self.runs)} evaluation run(s))"

    def __len__(self) -> int:
        return len(self._by_agent)

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """The stored answer to each request (``double_check`` changes nothing: the
        answers were given once, when they were stored)."""
        return [self._answer(r) for r in requests]

    def _raw(self, request: JudgeRequest, stored: float) -> float:
        """The judge's answer behind a stored final score."""
        if request.kind != "score" or request.proposition_id not in self._settings:
            return stored
        inverted, hard = self._settings[request.proposition_id]
        value = stored / HARD_FACTOR if hard and stored < 9 else stored
        return 9 - value if inverted else value

    def _answer(self, request: JudgeRequest) -> JudgeResult:
        prop = request.proposition_id
        if request.subject == ENVIRONMENT:
            values = self._by_proposition.get(prop, [])
            if not values:
                return _missing(request)
            note = f"median of {len(values)} agents' stored scores" if len(values) > 1 else ""
            return self._result(self._raw(request, median(values)), note)
        stored = self._by_agent.get((request.subject, prop))
        if stored is None:
            return _missing(request)
        return self._result(self._raw(request, stored[0]), stored[1])

    def _result(self, score: float, reasoning: str) -> JudgeResult:
        whole = round(score)
        if abs(whole - score) > 1e-6:
            with self._lock:
                self.rounded += 1
            reasoning = f"(stored {score:.4g}, rounded to {whole}) {reasoning}".strip()
        return JudgeResult(value=whole, reasoning=reasoning)


def _missing(request: JudgeRequest) -> JudgeResult:
    return JudgeResult(
        value=None,
        reasoning="",
        error=f"no stored score for proposition {request.proposition_id!r} about "
        f"{request.subject!r}",
    )


__all__ = ["HARD_FACTOR", "STORED_COLUMNS", "StoredJudge"]
