"""Scorecards, one per experiment (the shape every rubric returns)."""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.rubrics.experiment.reference import match_key
from toolkit.rubrics.experiment.rounding import format_number, format_p
from toolkit.rubrics.experiment.rubric import (
    DEFAULT_RUBRIC,
    NOT_SIGNIFICANT,
    SIGNIFICANT,
    ExperimentRubric,
)
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard


def experiment_scorecards(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
) -> list[Scorecard]:
    """One :class:`~toolkit.Scorecard` per experiment, one dimension per metric.

    Each dimension's value is the difference (treatment - control); its status is
    ``SIGNIFICANT`` or ``n.s.`` (``N/A`` with the reason when absent), or, when a
    directional check ``direction`` is given, ``OK`` (agrees with the reference),
    ``FAIL`` (disagrees), ``WARN`` (undecidable) or ``N/A``. The detail holds the numbers:
    ``T 5.81 (1.66) vs C 6.72 (1.50), p<0.001``.
    """
    cards: list[Scorecard] = []
    d = rubric.decimals
    for experiment in stats["experiment"].unique(maintain_order=True).to_list():
        rows = stats.filter(pl.col("experiment") == experiment)
        checks: dict[str, dict[str, Any]] = {}
        if direction is not None:
            for r in direction.filter(pl.col("experiment") == experiment).iter_rows(named=True):
                checks[r["metric"]] = r
        dims: list[Dimension] = []
        for r in rows.iter_rows(named=True):
            numbers = (
                f"T {format_number(r['t_mean'], d)} ({format_number(r['t_sd'], d)}) vs "
                f"C {format_number(r['c_mean'], d)} ({format_number(r['c_sd'], d)}), "
                f"p {format_p(r['p_value'], rubric.p_floor)}"
            )
            if r["absent_reason"] is not None and r["significant"] is None:
                status, detail = NA, f"{r['absent_reason']}; {numbers}"
            elif direction is not None:
                check = checks.get(r["metric"])
                if check is None or check["ref_delta"] is None:
                    status, detail = NA, f"{numbers}; not in the reference"
                else:
                    agrees = check["agrees"]
                    status = OK if agrees else FAIL if agrees is False else WARN
                    detail = f"{numbers}; {check['detail']}"
            else:
                status = SIGNIFICANT if r["significant"] else NOT_SIGNIFICANT
                detail = numbers
            dims.append(
                Dimension(
                    key=match_key(r["metric"]),
                    name=r["metric"],
                    value=r["delta"],
                    status=status,
                    detail=detail,
                    green=f"p < {r['alpha']:g}",
                    red="",
                )
            )
        frame = Scorecard.dimensions_frame(experiment, dims)
        statuses = frame["status"].to_list()
        if direction is not None:
            bad = [n for n, s in zip(frame["name"], statuses, strict=True) if s == FAIL]
            verdict = "DIVERGES" if bad else "REPRODUCED"
            reason = ", ".join(bad)
        else:
            hits = [n for n, s in zip(frame["name"], statuses, strict=True) if s == SIGNIFICANT]
            verdict = f"{len(hits)}/{len(statuses)} SIGNIFICANT"
            reason = ", ".join(hits)
        cards.append(
            Scorecard(
                rubric=rubric.rubric,
                rubric_version=rubric.version,
                subject=experiment,
                title=f"{experiment} · treatment vs control (Welch's t-test)",
                verdict=verdict,
                verdict_reason=reason,
                dimensions=frame,
                meta={"alpha": rows["alpha"][0] if rows.height else rubric.alpha},
            )
        )
    return cards
