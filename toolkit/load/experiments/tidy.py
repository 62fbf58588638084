"""Tidy score tables (CSV, JSON Lines or Parquet, or a frame in memory): one row per
score, the persona scorers' output for two runs of the same agents."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    EXPERIMENT_SCORES_SCHEMA,
)
from toolkit.io import edge
from toolkit.load._common import parse_json_lines
from toolkit.load.experiments.cells import group_name, renamed, score_of

#: Accepted spellings of the tidy table's columns, first the canonical one.
TIDY_COLUMNS: dict[str, tuple[str, ...]] = {
    "experiment": ("experiment",),
    "group": ("group",),
    "run": ("run",),
    "unit": ("agent", "unit", "agent_id"),
    "metric": ("metric", "dimension"),
    "score": ("score",),
    "window": ("window",),
}

TIDY_SUFFIXES = (".csv", ".jsonl", ".parquet")


def _column_map(path: Path, columns: Sequence[str]) -> dict[str, str]:
    """Canonical column name -> the column of the file that holds it."""
    found: dict[str, str] = {}
    lowered = {c.strip().lower(): c for c in columns}
    for canon, names in TIDY_COLUMNS.items():
        hits = [lowered[n] for n in names if n in lowered]
        if len(hits) > 1:
            raise InputError(
                path, f"columns {hits} all mean {canon!r}; keep one", field="columns", value=hits
            )
        if hits:
            found[canon] = hits[0]
    for canon in ("metric", "score"):
        if canon not in found:
            raise InputError(
                path,
                f"no {canon!r} column (accepted: {', '.join(TIDY_COLUMNS[canon])})",
                field="columns",
                value=list(columns),
            )
    if "group" not in found and "run" not in found:
        raise InputError(
            path,
            "no 'group' column (treatment | control), and no 'run' column to map to groups",
            field="columns",
            value=list(columns),
        )
    return found


def read_tidy(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The rows of a tidy table as dicts of raw values, and the line number of row 0."""
    suffix = path.suffix.lower()
    blob = edge.read_bytes(path)
    if suffix == ".csv":
        frame = edge.read_frame(blob, path, "csv")
        return frame.to_dicts(), 2
    if suffix == ".parquet":
        frame = edge.read_frame(blob, path, "parquet")
        return frame.to_dicts(), 1
    rows: list[dict[str, Any]] = []
    text = edge.decode_text(blob, path)
    first = 0
    for number, obj in parse_json_lines(path, text):
        if not isinstance(obj, dict):
            raise InputError(path, "each line must be a JSON object", line=number, value=obj)
        if not rows:
            first = number
        obj["__line__"] = number
        rows.append(obj)
    return rows, first


def parse_score_table(
    path: Path,
    rows: Sequence[Mapping[str, Any]],
    *,
    first_line: int = 1,
    experiment: str | None = None,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Validate the rows of a tidy score table into the long scores frame.

    Args:
        path: the file, for messages and ``source_file``.
        rows: one mapping per row (raw values as read).
        first_line: the file line of ``rows[0]`` (JSON Lines rows carry their own).
        experiment: the experiment name when the table has no ``experiment`` column
            (default: the file's stem).
        groups: run name -> ``treatment`` | ``control``, for tables with a ``run`` column
            instead of ``group``.
        rename: metric name -> the name to report it under.

    A ``window`` column (the persona scorers' successive message windows) keeps only the
    rows of window 0, the whole run.

    Raises:
        InputError: naming the file, the line, the field and the value.
    """
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k != "__line__" and k not in columns)
    cols = _column_map(path, columns)
    if "group" not in cols and not groups:
        raise InputError(
            path,
            "the table names runs, not groups: say which run is the treatment and which "
            "the control",
            field="run",
        )
    name = experiment or path.stem
    out: list[dict[str, Any]] = []
    counters: dict[tuple[str, str, str], int] = {}
    for index, row in enumerate(rows):
        line = int(row.get("__line__", first_line + index))
        if "window" in cols and str(row.get(cols["window"]) or 0).strip() not in ("0", ""):
            continue  # a persona scorer's successive message window: only 0 is the whole run
        group = _row_group(path, row, cols, groups, line)
        metric = _cell(row, cols, "metric")
        if metric is None:
            raise InputError(path, "metric is empty", field=cols["metric"], value=None, line=line)
        metric = renamed(metric, rename)
        exp = _cell(row, cols, "experiment") or name
        score = _table_score(path, row.get(cols["score"]), line)
        key = (exp, group, metric)
        position = counters.get(key, 0)
        counters[key] = position + 1
        out.append(
            {
                "experiment": exp,
                "group": group,
                "metric": metric,
                "unit": _cell(row, cols, "unit") or str(position),
                "score": score,
                "source_file": str(path),
                "family": exp,
            }
        )
    frame = pl.DataFrame(out, schema=EXPERIMENT_SCORES_SCHEMA)
    if "unit" in cols:
        _refuse_repeated_units(path, frame, cols["unit"])
    return frame


def _cell(row: Mapping[str, Any], cols: Mapping[str, str], canon: str) -> str | None:
    """The text of column ``canon`` in ``row``, stripped; None when absent or empty."""
    value = row.get(cols[canon]) if canon in cols else None
    if value is None:
        return None
    shown = str(value).strip()
    return shown or None


def _row_group(
    path: Path,
    row: Mapping[str, Any],
    cols: Mapping[str, str],
    groups: Mapping[str, str] | None,
    line: int,
) -> str:
    """``treatment`` or ``control``: the row's ``group``, or what ``groups`` maps its
    ``run`` to.

    Raises:
        InputError: a group that is neither, or a run mapped to neither.
    """
    if "group" in cols:
        raw_group = _cell(row, cols, "group")
        group = group_name(raw_group or "")
        if group is None:
            raise InputError(
                path, "group must be treatment or control", field="group",
                value=raw_group, line=line,
            )  # fmt: skip
        return group
    run = _cell(row, cols, "run")
    mapped = (groups or {}).get(run or "")
    group = group_name(mapped or "")
    if group is None:
        raise InputError(
            path, "this run is mapped to neither treatment nor control", field="run",
            value=run, line=line,
        )  # fmt: skip
    return group


def _table_score(path: Path, raw: Any, line: int) -> float | None:
    """A table's score cell as a number; None when empty (or NaN).

    Raises:
        InputError: text that is no number, or an infinite score.
    """
    score: float | None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        score = None
    elif isinstance(raw, str):
        try:
            score = float(raw)
        except ValueError:
            raise InputError(
                path, "a score must be a number or empty", field="score", value=raw, line=line
            ) from None
        if math.isinf(score):
            raise InputError(path, "a score must be finite", field="score", value=raw, line=line)
        score = None if math.isnan(score) else score
    else:
        score = score_of(path, "score", raw)
    return score


def _refuse_repeated_units(path: Path, frame: pl.DataFrame, unit_column: str) -> None:
    """Refuse an agent (unit) scored twice on one metric in one group.

    Raises:
        InputError: naming the agent, the metric and the group.
    """
    dupes = frame.filter(
        pl.struct("experiment", "group", "metric", "unit").is_duplicated()
        & pl.col("unit").is_not_null()
    )
    if dupes.height:
        row0 = dupes.row(0, named=True)
        raise InputError(
            path,
            f"agent {row0['unit']!r} has two {row0['metric']!r} scores in the "
            f"{row0['group']} group",
            field=unit_column,
            value=row0["unit"],
        )


def scores_from_frame(
    frame: pl.DataFrame,
    *,
    experiment: str,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """The long scores frame from a tidy table already in memory.

    Made for the persona scorers' per-dimension frames of two runs of the same agents:
    ``pl.concat([treated.dimensions, untreated.dimensions])`` has run, window, agent_id,
    dimension and score columns, so
    ``scores_from_frame(both, experiment="gate", groups={"run-b": "treatment",
    "run-a": "control"})`` gives the frame :func:`toolkit.experiment_stats` takes.

    Args:
        frame: columns as for a tidy score table (see :func:`load_experiment`).
        experiment: the experiment name (unless the frame has an ``experiment`` column).
        groups: run name -> treatment | control, when the frame has ``run``, not ``group``.
        rename: metric name -> the name to report it under.

    Returns:
        :data:`toolkit.frames.EXPERIMENT_SCORES_SCHEMA`, ``source_file`` = ``"(frame)"``;
        line numbers in errors count rows from 1.

    Raises:
        InputError: as for a file, naming the row, the column and the value.
    """
    return parse_score_table(
        Path("(frame)"),
        frame.to_dicts(),
        first_line=1,
        experiment=experiment,
        groups=groups,
        rename=rename,
    )
