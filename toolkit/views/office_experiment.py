"""the-office experiment runner reports as text and JSON: the report's own numbers in the
layout of Table 1, and, against a reference, per metric whether the direction matches
and the share of the reference's significant findings reproduced."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import polars as pl

from toolkit.rubrics.experiment.office import Reproduction
from toolkit.rubrics.experiment.rounding import format_number, format_p
from toolkit.rubrics.experiment.rubric import ExperimentRubric


def _mean_sd(mean: float | None, sd: float | None, decimals: int) -> str:
    return f"{format_number(mean, decimals)} ({format_number(sd, decimals)})"


def _table(reported: pl.DataFrame, rubric: ExperimentRubric, alpha: float) -> list[str]:
    d = rubric.decimals
    header = ["experiment", "metric", "T mean (sd)", "C mean (sd)", "Δ", "p", "d"]
    rows = [header]
    for r in reported.iter_rows(named=True):
        star = "*" if r["p_value"] is not None and r["p_value"] < alpha else ""
        rows.append(
            [
                r["experiment"], r["metric"], _mean_sd(r["t_mean"], r["t_sd"], d),
                _mean_sd(r["c_mean"], r["c_sd"], d), format_number(r["delta"], d),
                format_p(r["p_value"], rubric.p_floor, d + 1) + star,
                format_number(r["effect_size"], d),
            ]
        )  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def render_office_report_text(
    reported: pl.DataFrame,
    rubric: ExperimentRubric,
    alpha: float,
    reproduction: Reproduction | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The report's numbers as a table, then the comparison with the reference (if any):
    one line per metric, and the share reproduced."""
    lines = _table(reported, rubric, alpha)
    lines.append(
        f"* p < {alpha:g} (the runner's own Welch t-test, read as reported; "
        "Δ = treatment − control; d as the runner computes it)"
    )
    if reproduction is not None:
        lines += ["", "Table 1 comparison: direction (the-office's rule) and the directional check"]
        for r in reproduction.rows.iter_rows(named=True):
            ours, theirs = format_number(r["delta"]), format_number(r["ref_delta"])
            lines.append(
                f"  {r['experiment']} {r['metric']}: Δ {ours} vs reference {theirs} "
                f"(p {r['ref_p'] or '-'}): direction matches: {_yes_no(r['same_direction'])}"
                f"{'' if r['counted'] else ' (not a significant finding there)'}; {r['detail']}"
            )
        for e, matched, total, share in reproduction.by_experiment.rows():
            shown = "-" if share is None else f"{share:.2f}"
            lines.append(f"Reproduced in {e}: {matched}/{total} significant findings ({shown})")
        overall = "-" if reproduction.share is None else f"{reproduction.share:.2f}"
        lines.append(
            f"Reproduced overall: {reproduction.matched}/{reproduction.significant} of the "
            f"reference's significant findings in the same direction ({overall})"
        )
    lines += [f"note: {w}" for w in warnings]
    return "\n".join(lines)


def render_office_report_json(
    reported: pl.DataFrame,
    alpha: float,
    reproduction: Reproduction | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The report's rows, the comparison's rows and shares, and the warnings, as JSON."""
    doc: dict[str, Any] = {"alpha": alpha, "reported": reported.to_dicts()}
    if reproduction is not None:
        doc["comparison"] = reproduction.rows.to_dicts()
        doc["reproduced"] = {
            "by_experiment": reproduction.by_experiment.to_dicts(),
            "matched": reproduction.matched,
            "significant": reproduction.significant,
            "share": reproduction.share,
        }
    doc["warnings"] = list(warnings)
    return json.dumps(doc, indent=2, default=str)
