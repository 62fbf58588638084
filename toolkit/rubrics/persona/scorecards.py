"""The scorecards of a persona result: one per agent and one for the environment, each
dimension with its status, detail and ranges, and the card's verdict.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.rubrics.persona.result import PersonaResult
from toolkit.rubrics.persona.spec import ENVIRONMENT, PersonaRubric
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard, format_value


def dimension_status(value: float | None, count: bool, rubric: PersonaRubric) -> str:
    """A dimension's status (``count``: a count dimension's thresholds), decided on its
    value as printed (:func:`format_value`, three
    decimals): a score shown as "7.000" is at a 7.0 line, whatever float noise is below."""
    if value is None:
        return NA
    value = float(format_value(value))
    green, red = (
        (rubric.count_green_at, rubric.count_red_below)
        if count
        else (rubric.green_at, rubric.red_below)
    )
    if value >= green:
        return OK
    if value < red:
        return FAIL
    return WARN


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def persona_scorecards(
    result: PersonaResult, comparison: pl.DataFrame | None, rubric: PersonaRubric
) -> dict[str, Scorecard]:
    whole = result.dimensions.filter(pl.col("window") == 0)
    scores = result.scores.filter(pl.col("window") == 0)
    subjects: list[tuple[str, str | None, str]] = [
        (str(a), str(a), str(n))
        for a, n in scores.filter(pl.col("agent_id").is_not_null())
        .select("agent_id", "agent_name")
        .unique(maintain_order=True)
        .iter_rows()
    ]
    if whole.filter(pl.col("target_type") == ENVIRONMENT).height:
        subjects.append((ENVIRONMENT, None, ENVIRONMENT))
    cards: dict[str, Scorecard] = {}
    for key, agent_id, name in subjects:
        dims_rows = (
            whole.filter(pl.col("agent_id") == agent_id)
            if agent_id is not None
            else whole.filter(pl.col("target_type") == ENVIRONMENT)
        )
        records = [
            _dimension(row, scores, agent_id, comparison, rubric)
            for row in dims_rows.iter_rows(named=True)
        ]
        frame = Scorecard.dimensions_frame(key, records)
        verdict, why = _verdict(frame)
        title = (
            f"{result.run} · {name} ({agent_id})"
            if agent_id is not None
            else f"{result.run} · environment"
        )
        cards[key] = Scorecard(
            rubric=rubric.rubric,
            rubric_version=rubric.version,
            subject=f"{result.run}/{key}",
            title=title,
            verdict=verdict,
            verdict_reason=why,
            dimensions=frame,
            warnings=result.warnings,
            meta={"run": result.run, "agent_id": agent_id, "judge": result.judge},
        )
    return cards


def _dimension(
    row: dict[str, Any],
    scores: pl.DataFrame,
    agent_id: str | None,
    comparison: pl.DataFrame | None,
    rubric: PersonaRubric,
) -> Dimension:
    """One dimension of a subject's card (``agent_id``; ``None``: the environment) from its
    dimension-score ``row``, its window-0 proposition ``scores`` and the baselines."""
    count = row["dimension"] in rubric.count_dimensions
    props = scores.filter(
        (pl.col("dimension") == row["dimension"])
        & (
            (pl.col("agent_id") == agent_id)
            if agent_id is not None
            else pl.col("agent_id").is_null()
        )
    )
    forced = props.filter(pl.col("source") == "precondition").height
    total = props.height
    value = row["score"]
    status = dimension_status(value, count, rubric)
    if value is None:
        reasons = props["absent_reason"].drop_nulls().unique(maintain_order=True)
        detail = "absent: " + ("; ".join(reasons.to_list()) or "no proposition judged")
    elif count:
        detail = f"{_fmt(value)} distinct ideas counted by the judge"
    else:
        detail = (
            f"weighted mean of {row['judged']}/{total} propositions"
            + (f" ({forced} precondition not met: 9)" if forced else "")
            + (f", {row['absent']} absent" if row["absent"] else "")
            + f"; lowest {row['lowest_proposition']} {_fmt(row['lowest_score'])}"
        )
    green = f">= {_fmt(rubric.count_green_at if count else rubric.green_at)}"
    red = f"< {_fmt(rubric.count_red_below if count else rubric.red_below)}"
    if comparison is not None:
        whose = pl.col("agent_id") == (agent_id if agent_id is not None else ENVIRONMENT)
        cmp = comparison.filter(whose & (pl.col("dimension") == row["dimension"]))
        if cmp.height and cmp["baseline"][0] is not None and value is not None:
            detail += f"; baseline {_fmt(cmp['baseline'][0])}, delta {cmp['delta'][0]:+.2f}"
            if cmp["regression"][0]:
                status = FAIL
                detail = "REGRESSION: " + detail
        if agent_id is not None or cmp.height:
            red += f" or > {_fmt(rubric.regression_tolerance)} below baseline"
    return Dimension(
        key=row["dimension"],
        name=row["dimension"],
        value=value,
        status=status,
        detail=detail,
        green=green,
        red=red,
    )


def _verdict(frame: pl.DataFrame) -> tuple[str, str]:
    """A card's verdict and its reason from its dimensions frame's statuses."""
    statuses = frame["status"].to_list()
    if statuses and all(s == NA for s in statuses):
        verdict, why = "INSUFFICIENT_DATA", "no dimension could be scored"
    elif FAIL in statuses:
        verdict = "FAILED"
        why = "failing: " + ", ".join(frame.filter(pl.col("status") == FAIL)["dimension"])
    elif WARN in statuses:
        verdict = "DEGRADED"
        why = "warning: " + ", ".join(frame.filter(pl.col("status") == WARN)["dimension"])
    else:
        verdict, why = "HEALTHY", "every scored dimension in its green range"
    return verdict, why
