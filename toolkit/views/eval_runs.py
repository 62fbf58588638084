"""Views of dot-agents eval-harness runs (``toolkit outcome`` on a folder of them): one
line per run, the replicates of each task together under a line for the task, as text
or JSON. The frame is :data:`toolkit.frames.EVAL_RUNS_SCHEMA` plus the toolkit's
``value``, ``band``, ``scored`` and ``rubric_version``."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from toolkit.summary import plural
from toolkit.views.text import paint, wrap_item

#: The status colour of a band (the outcome rubric's bands).
BAND_STATUS = {"excellent": "OK", "good": "OK", "fair": "WARN", "poor": "FAIL"}


def duration_text(seconds: float | None) -> str:
    """``4m21s`` (whole seconds), ``-`` when absent."""
    if seconds is None:
        return "-"
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def task_summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Per task (sorted by task id): language, difficulty, runs, passes, the mean
    toolkit score, and pass^k at k = its runs (all of them passed: 1, else 0)."""
    return (
        runs.group_by("task_id")
        .agg(
            pl.col("language").first(),
            pl.col("difficulty").first(),
            pl.len().cast(pl.Int64).alias("runs"),
            pl.col("passed").sum().cast(pl.Int64).alias("passed"),
            pl.col("value").mean().alias("mean_value"),
        )
        .sort("task_id")
    )


def render_eval_runs_text(
    runs: pl.DataFrame,
    label: str,
    version: str,
    *,
    notes: tuple[str, ...] = (),
    width: int | None = None,
    colour: bool = False,
) -> str:
    """Each task (its replicates passed, the mean score) then one line per run: the
    verifier's verdict and phase, the toolkit's score and band, retries, the agent's
    duration and the score dot-agents recorded."""
    tasks = task_summary(runs)
    agents = runs.select("harness", "model").unique(maintain_order=True).rows()
    who = ", ".join(f"{h or '?'}/{m or '?'}" for h, m in agents)
    passed = int(runs["passed"].sum())
    lines = [
        f"Eval-harness runs of {label} · {plural(runs.height, 'run')} of "
        f"{plural(tasks.height, 'task')} · {who}",
        f"verify passed {passed}/{runs.height}; score: outcome rubric {version} "
        "(landed: not applicable in the harness)",
        "",
        f"{'task / run':<30} {'verify':<12} {'score':>5} {'band':<9} {'retry':>5} "
        f"{'took':>6}  recorded",
    ]
    for t in tasks.iter_rows(named=True):
        mean = "-" if t["mean_value"] is None else f"{t['mean_value']:.3f}"
        lines.append(
            f"{t['task_id']} ({t['language'] or '?'}, {t['difficulty'] or '?'}): "
            f"{t['passed']}/{t['runs']} passed, mean score {mean}"
        )
        for r in (
            runs.filter(pl.col("task_id") == t["task_id"]).sort("run_id").iter_rows(named=True)
        ):
            lines.append(_run_line(r, colour))
    for note in notes:
        lines += wrap_item(note, width)
    return "\n".join(lines)


def _run_line(r: dict[str, Any], colour: bool) -> str:
    verify = "pass" if r["passed"] else f"FAIL {r['verify_phase'] or ''}".strip()
    verify = paint(f"{verify:<12}", "OK" if r["passed"] else "FAIL", colour)
    value = "-" if r["value"] is None else f"{r['value']:.3f}"
    band = r["band"] if r["scored"] else "unscored"
    band = paint(f"{band or '-':<9}", BAND_STATUS.get(band or "", "N/A"), colour)
    recorded = (
        "-"
        if r["recorded_value"] is None
        else f"{r['recorded_value']:.3f} ({r['recorded_version'] or '?'})"
    )
    retries = "-" if r["retries"] is None else str(r["retries"])
    return (
        f"  {r['run_id']:<28} {verify} {value:>5} {band} {retries:>5} "
        f"{duration_text(r['duration_s']):>6}  {recorded}"
    )


def render_eval_runs_json(runs: pl.DataFrame, version: str, notes: tuple[str, ...] = ()) -> str:
    """Every run's row and each task's summary as JSON."""
    doc = {
        "rubric": "outcome",
        "rubric_version": version,
        "runs": runs.to_dicts(),
        "tasks": task_summary(runs).to_dicts(),
        "notes": list(notes),
    }
    return json.dumps(doc, indent=2, default=str)
