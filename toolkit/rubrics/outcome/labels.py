"""The ``human_label`` signal (rubric 3.0.0): reviewers' labels of an iteration, reduced
as dot-agents reduces them.

For each iteration: each label's judgement is its latest edit (the loader keeps only that
one); when any label has ``admin_override``, only those labels count; of the rest, the
latest-updated label of each actor counts. A label's sub-score is the mean of
correctness / 3, the scope judgement (on-target 1, partial 0.5, breach 0) and the
hallucination answer (none 1, minor 0.5, major 0) over the answers it gives; the signal is
the mean over the counted labels. Free text never scores.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from toolkit.rubrics.outcome.spec import OutcomeRubric

#: The per-label view: who said what, its sub-score, whether it counted and why not.
LABEL_VIEW_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "actor": pl.String(),
    "role": pl.String(),
    "admin_override": pl.Boolean(),
    "correctness": pl.Int64(),
    "scope_judgement": pl.String(),
    "hallucination": pl.String(),
    "free_text": pl.String(),
    "sub_score": pl.Float64(),
    "counted": pl.Boolean(),
    "why_not": pl.String(),
    "updated_at": pl.Datetime("us", "UTC"),
}

#: Per iteration: the signal's sub-score and its detail (only iterations with labels).
LABEL_FACTS_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "hl_score": pl.Float64(),
    "hl_detail": pl.String(),
}

_FLOOR = dt.datetime.min.replace(tzinfo=dt.UTC)


def label_sub_score(row: dict[str, Any], rubric: OutcomeRubric) -> float | None:
    """One label's sub-score: the mean of its mapped answers (``None`` without any)."""
    parts: list[float] = []
    if row["correctness"] is not None:
        parts.append(row["correctness"] / rubric.label_correctness_max)
    if row["scope_judgement"] in rubric.label_scope_scores:
        parts.append(rubric.label_scope_scores[row["scope_judgement"]])
    if row["hallucination"] in rubric.label_hallucination_scores:
        parts.append(rubric.label_hallucination_scores[row["hallucination"]])
    return sum(parts) / len(parts) if parts else None


def _judge_iteration(rows: list[dict[str, Any]], rubric: OutcomeRubric) -> list[dict[str, Any]]:
    """Mark which labels of one iteration count (and why the others do not)."""
    override = any(r["admin_override"] for r in rows)
    latest: dict[str, dict[str, Any]] = {}
    for r in rows:
        r["sub_score"] = label_sub_score(r, rubric)
        r["why_not"] = None
        if override and not r["admin_override"]:
            r["why_not"] = "an admin override label counts instead"
            continue
        kept = latest.get(r["actor"])
        key = (r["updated_at"] or _FLOOR, r["position"])
        if kept is None or key >= (kept["updated_at"] or _FLOOR, kept["position"]):
            if kept is not None:
                kept["why_not"] = f"a later label by {r['actor']} replaces it"
            latest[r["actor"]] = r
        else:
            r["why_not"] = f"a later label by {r['actor']} replaces it"
    for r in rows:
        r["counted"] = r["why_not"] is None
    return rows


def label_view(labels: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    """Every label with its sub-score and whether it counts toward ``human_label``
    (:data:`LABEL_VIEW_SCHEMA`, by iteration and position in the file)."""
    out: list[dict[str, Any]] = []
    by_iteration: dict[int, list[dict[str, Any]]] = {}
    for row in labels.sort("iteration", "position").iter_rows(named=True):
        by_iteration.setdefault(row["iteration"], []).append(dict(row))
    for rows in by_iteration.values():
        out.extend(_judge_iteration(rows, rubric))
    return pl.DataFrame(
        [{k: r[k] for k in LABEL_VIEW_SCHEMA} for r in out], schema=LABEL_VIEW_SCHEMA
    )


def human_label_facts(view: pl.DataFrame) -> pl.DataFrame:
    """Per iteration with labels: ``hl_score`` (the mean of the counted labels'
    sub-scores) and ``hl_detail`` (who said what)."""
    rows: list[dict[str, Any]] = []
    for (iteration,), group in view.group_by("iteration", maintain_order=True):
        counted = group.filter(pl.col("counted"))
        scores = [s for s in counted["sub_score"].to_list() if s is not None]
        said = ", ".join(
            f"{r['actor']} ({r['role'] or 'no role'}) {r['sub_score']:.3f}"
            for r in counted.iter_rows(named=True)
        )
        dropped = group.height - counted.height
        notes = []
        if counted["admin_override"].any():
            notes.append("admin override: only admin-override labels count")
        if dropped:
            notes.append(f"{dropped} label(s) not counted")
        tail = f"; {'; '.join(notes)}" if notes else ""
        rows.append(
            {
                "iteration": iteration,
                "hl_score": sum(scores) / len(scores) if scores else None,
                "hl_detail": f"mean of {len(scores)} label(s): {said}{tail}",
            }
        )
    return pl.DataFrame(rows, schema=LABEL_FACTS_SCHEMA)
