"""A stored judge: the scores a system's own judge already recorded, answered as a judge.

the-office scores its agents itself and keeps the answers (``evaluation_runs`` /
``evaluation_scores``). :class:`StoredJudge` answers a :class:`JudgeRequest` with the
score stored for the same proposition and agent: no call, no cost, deterministic; so the
system's history can be gated, compared and calibrated against people like any judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

import polars as pl

from toolkit.errors import InputError
from toolkit.judge._protocol import JudgeRequest, JudgeResult

#: The columns a stored-score frame needs.
STORED_COLUMNS = ("evaluation_run_id", "agent_id", "created_at", "dimension", "proposition_id",
                  "score", "reasoning")  # fmt: skip

ENVIRONMENT = "environment"


class StoredJudge:
    """Answers requests from stored scores (one evaluation run per agent: its latest).

    A request about an agent is answered with that agent's stored score of the
    proposition; a request about the environment (convergence, ideas) with the median of
    the agents' stored scores of it. A stored score that is not a whole number is rounded
    to the nearest (the reasoning says so); a proposition with no stored score is an
    absent answer naming it (never a guess).

    Args:
        scores: one row per stored score (:data:`STORED_COLUMNS`).
        source: where the scores came from (shown in the judge's name).
    """

    def __init__(self, scores: pl.DataFrame, source: str) -> None:
        missing = [c for c in STORED_COLUMNS if c not in scores.columns]
        if missing:
            raise InputError(source, "stored scores need columns " + ", ".join(missing))
        latest = (
            scores.sort("created_at", "evaluation_run_id")
            .group_by("agent_id", maintain_order=True)
            .agg(pl.col("evaluation_run_id").last())
        )
        kept = scores.join(latest, on=["agent_id", "evaluation_run_id"], how="semi")
        self.runs: dict[str, str] = dict(latest.select("agent_id", "evaluation_run_id").rows())
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

    def _answer(self, request: JudgeRequest) -> JudgeResult:
        prop = request.proposition_id
        if request.subject == ENVIRONMENT:
            values = self._by_proposition.get(prop, [])
            if not values:
                return _missing(request)
            middle = median(values)
            note = f"median of {len(values)} agents' stored scores" if len(values) > 1 else ""
            return _result(middle, note)
        stored = self._by_agent.get((request.subject, prop))
        if stored is None:
            return _missing(request)
        return _result(stored[0], stored[1])


def _result(score: float, reasoning: str) -> JudgeResult:
    whole = round(score)
    if whole != score:
        reasoning = f"(stored {score:g}, rounded to {whole}) {reasoning}".strip()
    return JudgeResult(value=whole, reasoning=reasoning)


def _missing(request: JudgeRequest) -> JudgeResult:
    return JudgeResult(
        value=None,
        reasoning="",
        error=f"no stored score for proposition {request.proposition_id!r} about "
        f"{request.subject!r}",
    )


__all__ = ["STORED_COLUMNS", "StoredJudge"]
