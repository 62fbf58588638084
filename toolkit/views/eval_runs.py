"""Views of dot-agents eval-harness runs (``toolkit outcome`` on a folder of them): one
line per run, the replicates of each task together under a line for the task, as text
or JSON. The frame is :data:`toolkit.frames.EVAL_RUNS_SCHEMA` plus the toolkit's
``value``, ``band``, ``scored`` and ``rubric_version``."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from toolkit.io.edge import visible
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


#: The table's columns after the run id: (head, right-aligned, the space before it).
_COLUMNS = (("verify", False, " "), ("score", True, " "), ("band", False, " "),
            ("retry", True, " "), ("took", True, " "), ("recorded", False, "  "))  # fmt: skip


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
    duration and the score dot-agents recorded. Columns are as wide as their cells; at
    a ``width`` (a terminal) a run id too long to leave the others room is printed whole
    on a line of its own, its cells on the next."""
    tasks = task_summary(runs)
    agents = runs.select("harness", "model").unique(maintain_order=True).rows()
    who = ", ".join(f"{h or '?'}/{m or '?'}" for h, m in agents)
    passed = int(runs["passed"].sum())
    lines = wrap_item(
        f"Eval-harness runs of {label} · {plural(runs.height, 'run')} of "
        f"{plural(tasks.height, 'task')} · {who}", width, bullet="", indent=2
    )  # fmt: skip
    lines += wrap_item(
        f"verify passed {passed}/{runs.height}; score: outcome rubric {version} "
        "(landed: not applicable in the harness)", width, bullet="", indent=2
    )  # fmt: skip
    rows = {t: [_run_cells(r) for r in runs.filter(pl.col("task_id") == t).sort("run_id")
                .iter_rows(named=True)] for t in tasks["task_id"]}  # fmt: skip
    every = [c for cells in rows.values() for c in cells]
    widths = [max([len(h), *(len(c[i + 1]) for c in every)]) for i, (h, *_) in enumerate(_COLUMNS)]
    rest = sum(widths) + sum(len(gap) for *_, gap in _COLUMNS)
    id_w = max([len("task / run") - 2, *(len(c[0]) for c in every)])
    if width is not None:  # a run id longer than the room left goes on a line of its own
        id_w = min(id_w, max(width - 2 - rest, len("task / run") - 2))
    heads = [
        h.rjust(w) if right else h.ljust(w)
        for (h, right, _), w in zip(_COLUMNS, widths, strict=True)
    ]
    lines += ["", _joined(f"{'task / run':<{id_w + 2}}", heads)]
    for t in tasks.iter_rows(named=True):
        mean = "-" if t["mean_value"] is None else f"{t['mean_value']:.3f}"
        lines += wrap_item(
            f"{t['task_id']} ({t['language'] or '?'}, {t['difficulty'] or '?'}): "
            f"{t['passed']}/{t['runs']} passed, mean score {mean}", width, bullet="", indent=2
        )  # fmt: skip
        for cells in rows[t["task_id"]]:
            lines += _run_lines(cells, id_w, widths, colour)
    for note in notes:
        lines += wrap_item(note, width)
    return "\n".join(lines)


def _run_cells(r: dict[str, Any]) -> list[str]:
    """A run's cells: id, verify, score, band, retries, took, recorded."""
    verify = "pass" if r["passed"] else f"FAIL {r['verify_phase'] or ''}".strip()
    value = "-" if r["value"] is None else f"{r['value']:.3f}"
    band = (r["band"] if r["scored"] else "unscored") or "-"
    recorded = (
        "-"
        if r["recorded_value"] is None
        else f"{r['recorded_value']:.3f} ({r['recorded_version'] or '?'})"
    )
    retries = "-" if r["retries"] is None else str(r["retries"])
    return [visible(str(r["run_id"])), verify, value, band, retries, duration_text(r["duration_s"]),
            recorded]  # fmt: skip


def _run_lines(cells: list[str], id_w: int, widths: list[int], colour: bool) -> list[str]:
    """A run's line (two, the id whole on the first, when it is wider than ``id_w``),
    the verdict and the band in their status colours when ``colour``."""
    shown = [c.rjust(w) if right else c.ljust(w)
             for c, w, (_, right, _) in zip(cells[1:], widths, _COLUMNS, strict=True)]  # fmt: skip
    shown[0] = paint(shown[0], "OK" if cells[1] == "pass" else "FAIL", colour)
    shown[2] = paint(shown[2], BAND_STATUS.get(cells[3], "N/A"), colour)
    own = len(cells[0]) > id_w
    line = _joined(f"  {'' if own else cells[0]:<{id_w}}", shown)
    return [f"  {cells[0]}", line] if own else [line]


def _joined(first: str, cells: list[str]) -> str:
    """``first`` then ``cells``, each after its column's space, the end stripped."""
    return (first + "".join(gap + c for (*_, gap), c in zip(_COLUMNS, cells, strict=True))).rstrip()


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
