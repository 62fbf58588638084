"""Asking the judge: the pending requests batched, run under the cost cap, and each
answer written into its proposition row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.judge import (
    Judge,
    JudgeResult,
    JudgeUsage,
    PriceTable,
    budget_for,
    judge_usage,
    load_prices,
    run_batches,
)
from toolkit.rubrics.persona.requests import PendingRequest
from toolkit.rubrics.persona.spec import PersonaRubric


def ask_pending(
    judge: Judge,
    pending: list[PendingRequest],
    rubric: PersonaRubric,
    *,
    double_check: bool,
    concurrency: int,
    max_cost: float | None,
    prices: PriceTable | str | Path | None,
    progress: bool | None,
) -> JudgeUsage:
    """Batch the pending requests (same window, trajectory, persona, kind), run the
    batches (concurrently, under the cost cap), fill each row, and account for it."""
    groups: dict[tuple[int, str, str | None, str, str | None], list[PendingRequest]] = {}
    for item in pending:
        request = item.request
        key = (
            item.row["window"],
            request.trajectory,
            request.persona,
            request.kind,
            request.evidence,
        )
        groups.setdefault(key, []).append(item)
    chunks = [
        items[start : start + rubric.batch_size]
        for items in groups.values()
        for start in range(0, len(items), rubric.batch_size)
    ]
    table: PriceTable | None = None
    if isinstance(prices, PriceTable):
        table = prices
    elif prices is not None or max_cost is not None or getattr(judge, "model", None):
        table = load_prices(*([] if prices is None else [prices]))
    budget = None
    if max_cost is not None and table is not None:
        budget = budget_for(judge, max_cost, table)
    outcome = run_batches(
        judge,
        [[c.request for c in chunk] for chunk in chunks],
        double_check=double_check,
        concurrency=concurrency,
        budget=budget,
        progress=progress,
    )
    entries: list[tuple[str, str, JudgeResult]] = []
    usable: list[bool] = []
    for chunk, results in zip(chunks, outcome.results, strict=True):
        for item, result in zip(chunk, results, strict=True):
            _apply(item.row, result, item.request.kind, outcome.cap_reason)
            entries.append((item.request.dimension, item.request.subject, result))
            usable.append(item.row["source"] != "absent")
    return judge_usage(judge, entries, outcome, prices=table, max_cost=max_cost, usable=usable)


def _apply(
    row: dict[str, Any], result: JudgeResult, kind: str, cap_reason: str | None = None
) -> None:
    if result.transient and result.error is not None and result.error == cap_reason:
        row.update(source="absent", absent_reason=result.error, reasoning="")
    elif result.value is not None and (result.value < 0 or (kind == "score" and result.value > 9)):
        row.update(
            source="absent",
            absent_reason=f"judge value {result.value} is outside "
            + ("0-9" if kind == "score" else "0 and up"),
            reasoning=result.reasoning,
        )
    elif result.value is None:
        raw = f"; reply: {result.raw[:80]!r}" if result.raw else ""
        row.update(
            source="absent",
            absent_reason=f"judge error: {result.error or 'no value'}{raw}",
            reasoning=result.reasoning,
        )
    else:
        row.update(raw=result.value, source="judge", reasoning=result.reasoning)
