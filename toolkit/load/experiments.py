"""Treatment-vs-control experiment results into one long frame of scores.

Two input forms:

* **TinyTroupe results JSON** (``{"experiments": {"Control": {"results": {<metric>:
  [scores...]}, "statistical_test_results_vs_others": {...}}, "Treatment": {...}}}``):
  one score per list element; the unit is the element's position (``"0"``, ``"1"``, ...)
  because the lists are anonymous. The authors' own test results are kept apart, in
  ``reported``, so a reproduction can be checked against them.
* **A tidy score table** (CSV, JSON Lines or Parquet), one row per score, which is what
  the persona scorers write for two runs of the same agents: columns ``group``
  (``treatment`` | ``control``; or ``run`` plus a run -> group mapping), ``agent`` (or
  ``unit``), ``metric`` (or ``dimension``), ``score``, and optionally ``experiment``.
  See ``docs/rubrics/experiment.md``.

Every score lands in :data:`toolkit.frames.EXPERIMENT_SCORES_SCHEMA` (experiment, group,
metric, unit, score, source_file, family). A TinyTroupe file with several treatment arms
beside its Control gives one experiment per arm (``<name> / <arm>``), each against the same
control scores, all of family ``<name>`` (what a one-way ANOVA compares). A null or empty
score stays in the frame as a null, so the statistics can drop it *and count it*; a score
that is not a number is an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict, ValidationError

from toolkit._show import Shows, Summary, plural
from toolkit.errors import InputError
from toolkit.frames import (
    EXPERIMENT_REFERENCE_SCHEMA,
    EXPERIMENT_REPORTED_SCHEMA,
    EXPERIMENT_SCORES_SCHEMA,
)
from toolkit.io import edge
from toolkit.load._common import parse_json_lines, read_json, validation_problem
from toolkit.load._fields import Int64

GROUPS = ("treatment", "control")

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

# ---------------------------------------------------------------------------
# File models (the edge)
# ---------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ReportedTest(_Model):
    """One metric of TinyTroupe's ``statistical_test_results_vs_others``."""

    test_type: str | None = None
    control_mean: float | None = None
    treatment_mean: float | None = None
    mean_difference: float | None = None
    percent_change: float | None = None
    t_statistic: float | None = None
    p_value: float | None = None
    confidence_interval: list[float] | None = None
    confidence_level: float | None = None
    significant: bool | None = None
    degrees_of_freedom: float | None = None
    control_sample_size: Int64 | None = None
    treatment_sample_size: Int64 | None = None
    control_std: float | None = None
    treatment_std: float | None = None
    effect_size: float | None = None


class ResultsGroup(_Model):
    """One arm (``Control`` or ``Treatment``) of a TinyTroupe results file."""

    results: dict[str, list[Any]] = {}
    statistical_test_results_vs_others: dict[str, dict[str, ReportedTest]] | None = None


class ResultsFile(_Model):
    """A TinyTroupe experiment results file."""

    experiments: dict[str, ResultsGroup]


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class ExperimentScores(Shows):
    """Scores of one or more treatment-vs-control experiments.

    Attributes:
        scores: one row per score, :data:`toolkit.frames.EXPERIMENT_SCORES_SCHEMA`
            (experiment, group, metric, unit, score, source_file); null scores kept.
        reported: the authors' own test results where the file carries them,
            :data:`toolkit.frames.EXPERIMENT_REPORTED_SCHEMA`.
        warnings: leniencies applied while loading (one sentence each).
        sources: the file each experiment came from.
    """

    scores: pl.DataFrame
    reported: pl.DataFrame
    warnings: tuple[str, ...] = ()
    sources: Mapping[str, str] | None = None

    def _summary(self) -> Summary:
        names = self.experiments
        shown = ", ".join(names[:3]) + (f", … {len(names) - 3} more" if len(names) > 3 else "")
        return Summary(
            "ExperimentScores",
            f"{plural(len(names), 'experiment')} ({shown or 'none'})",
            (
                ("scores", self.scores.height),
                ("metrics", self.scores["metric"].n_unique()),
                ("null scores", self.scores["score"].null_count()),
                ("reported tests", self.reported.height),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def experiments(self) -> list[str]:
        """Experiment names in load order."""
        return list(dict.fromkeys(self.scores["experiment"].to_list()))


# ---------------------------------------------------------------------------
# TinyTroupe results JSON
# ---------------------------------------------------------------------------


def _score(path: Path, where: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, "a score must be a number or null", field=where, value=value)
    number = float(value)
    if math.isinf(number):
        raise InputError(path, "a score must be finite", field=where, value=value)
    return None if math.isnan(number) else number


def _group_name(name: str) -> str | None:
    key = name.strip().lower()
    return key if key in GROUPS else None


def _renamed(metric: str, rename: Mapping[str, str] | None) -> str:
    return rename.get(metric, metric) if rename else metric


def parse_tinytroupe_results(
    path: Path,
    data: Any,
    experiment: str,
    rename: Mapping[str, str] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Validate one parsed TinyTroupe results file into (scores, reported, warnings).

    Raises:
        InputError: the data is not a results file, or a score is not a number.
    """
    if not isinstance(data, dict) or "experiments" not in data:
        raise InputError(
            path,
            "not a TinyTroupe results file (no top-level 'experiments' object)",
            field="experiments",
            value=None if not isinstance(data, dict) else sorted(data)[:5],
        )
    try:
        parsed = ResultsFile.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc

    warnings: list[str] = []
    score_rows: list[dict[str, Any]] = []
    reported_rows: list[dict[str, Any]] = []
    arms = list(parsed.experiments)
    controls = [a for a in arms if _group_name(a) == "control"]
    if len(controls) > 1:
        raise InputError(
            path, "two groups both mean control", field=f"experiments.{controls[1]}",
            value=controls[1],
        )  # fmt: skip
    if controls:  # every other arm is a treatment, each compared with the one control
        treatments = [a for a in arms if a not in controls]
    else:
        treatments = [a for a in arms if _group_name(a) == "treatment"][:1]
        for name in arms:
            if name not in treatments:
                warnings.append(
                    f"{path}: group {name!r} ignored: without a Control group only the "
                    "Treatment group is read"
                )
    if not controls and not treatments:
        raise InputError(
            path,
            "no Treatment or Control group under 'experiments'",
            field="experiments",
            value=sorted(parsed.experiments)[:5],
        )
    # One treatment keeps the file's experiment name; several become one experiment each
    # ("<name> / <arm>"), all of the same family, each against the same control.
    several = len(treatments) > 1
    names = {a: f"{experiment} / {a}" if several else experiment for a in treatments}
    control_names = list(names.values()) or [experiment]
    for name in [*controls, *treatments]:
        arm = parsed.experiments[name]
        group = "control" if name in controls else "treatment"
        targets = control_names if group == "control" else [names[name]]
        if not arm.results:
            warnings.append(f"{path}: {name} has no results")
        used: dict[str, str] = {}
        for raw_metric, values in arm.results.items():
            metric = _renamed(raw_metric, rename)
            if metric in used:
                raise InputError(
                    path,
                    f"metrics {used[metric]!r} and {raw_metric!r} are both renamed to {metric!r}",
                    field=f"experiments.{name}.results",
                    value=raw_metric,
                )
            used[metric] = raw_metric
            parsed_scores = [
                _score(path, f"experiments.{name}.results.{raw_metric}[{i}]", value)
                for i, value in enumerate(values)
            ]
            for target in targets:
                score_rows.extend(
                    {
                        "experiment": target,
                        "group": group,
                        "metric": metric,
                        "unit": str(i),
                        "score": score,
                        "source_file": str(path),
                        "family": experiment,
                    }
                    for i, score in enumerate(parsed_scores)
                )
        for other, tests in (arm.statistical_test_results_vs_others or {}).items():
            if group != "control" or other not in names:
                continue
            for raw_metric, test in tests.items():
                ci = test.confidence_interval or []
                reported_rows.append(
                    {
                        "experiment": names[other],
                        "metric": _renamed(raw_metric, rename),
                        "test_type": test.test_type,
                        "t_n": test.treatment_sample_size,
                        "c_n": test.control_sample_size,
                        "t_mean": test.treatment_mean,
                        "c_mean": test.control_mean,
                        "t_sd": test.treatment_std,
                        "c_sd": test.control_std,
                        "delta": test.mean_difference,
                        "percent_change": test.percent_change,
                        "reported_t": test.t_statistic,
                        "df": test.degrees_of_freedom,
                        "p_value": test.p_value,
                        "effect_size": test.effect_size,
                        "ci_low": ci[0] if len(ci) == 2 else None,
                        "ci_high": ci[1] if len(ci) == 2 else None,
                        "confidence_level": test.confidence_level,
                        "significant": test.significant,
                        "source_file": str(path),
                    }
                )
    if not controls:
        warnings.append(f"{path}: no Control group")
    if not treatments:
        warnings.append(f"{path}: no Treatment group")
    return (
        pl.DataFrame(score_rows, schema=EXPERIMENT_SCORES_SCHEMA),
        pl.DataFrame(reported_rows, schema=EXPERIMENT_REPORTED_SCHEMA),
        warnings,
    )


# ---------------------------------------------------------------------------
# Tidy score tables (the persona scorers' output for two runs)
# ---------------------------------------------------------------------------


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


def _read_tidy(path: Path) -> tuple[list[dict[str, Any]], int]:
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

        def text(canon: str, row: Mapping[str, Any] = row) -> str | None:
            value = row.get(cols[canon]) if canon in cols else None
            if value is None:
                return None
            shown = str(value).strip()
            return shown or None

        if "group" in cols:
            raw_group = text("group")
            group = _group_name(raw_group or "")
            if group is None:
                raise InputError(
                    path, "group must be treatment or control", field="group",
                    value=raw_group, line=line,
                )  # fmt: skip
        else:
            run = text("run")
            mapped = (groups or {}).get(run or "")
            group = _group_name(mapped or "")
            if group is None:
                raise InputError(
                    path, "this run is mapped to neither treatment nor control", field="run",
                    value=run, line=line,
                )  # fmt: skip
        metric = text("metric")
        if metric is None:
            raise InputError(path, "metric is empty", field=cols["metric"], value=None, line=line)
        metric = _renamed(metric, rename)
        exp = text("experiment") or name
        raw = row.get(cols["score"])
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
                raise InputError(
                    path, "a score must be finite", field="score", value=raw, line=line
                )
            score = None if math.isnan(score) else score
        else:
            score = _score(path, "score", raw)
        key = (exp, group, metric)
        position = counters.get(key, 0)
        counters[key] = position + 1
        out.append(
            {
                "experiment": exp,
                "group": group,
                "metric": metric,
                "unit": text("unit") or str(position),
                "score": score,
                "source_file": str(path),
                "family": exp,
            }
        )
    frame = pl.DataFrame(out, schema=EXPERIMENT_SCORES_SCHEMA)
    dupes = frame.filter(
        pl.struct("experiment", "group", "metric", "unit").is_duplicated()
        & pl.col("unit").is_not_null()
    )
    if "unit" in cols and dupes.height:
        row0 = dupes.row(0, named=True)
        raise InputError(
            path,
            f"agent {row0['unit']!r} has two {row0['metric']!r} scores in the "
            f"{row0['group']} group",
            field=cols["unit"],
            value=row0["unit"],
        )
    return frame


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


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------

_NAMED = re.compile(r"^([^=/\\]+)=(.+)$")


def split_named_path(arg: str) -> tuple[str | None, Path]:
    """``"exp_1=path/file.json"`` -> ``("exp_1", path)``; a plain path -> ``(None, path)``."""
    if Path(arg).exists():
        return None, Path(arg)
    m = _NAMED.match(arg)
    if m:
        return m.group(1).strip(), Path(m.group(2))
    return None, Path(arg)


def load_experiment(
    path: str | Path,
    *,
    experiment: str | None = None,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> ExperimentScores:
    """Load one experiment file: TinyTroupe results JSON, or a tidy score table.

    Args:
        path: a ``.json`` TinyTroupe results file, or a ``.csv`` / ``.jsonl`` /
            ``.parquet`` tidy table.
        experiment: the experiment's name (default: the file's stem; a tidy table's
            ``experiment`` column wins over both).
        groups: for tidy tables with a ``run`` column: run name -> treatment | control.
        rename: metric name as written in the file -> the name to report it under (e.g.
            ``{"Hard Persona Adherence": "Persona Adherence"}``).

    Returns:
        :class:`ExperimentScores` whose ``scores`` frame has the columns experiment,
        group (treatment | control), metric, unit, score (Float64, null kept),
        source_file.

    Raises:
        InputError: the file is missing, unreadable or not in either format; one line
            naming the file, the field and the value.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(
            p, "is a folder: name the results files in it (e.g. FOLDER/*.json FOLDER/*.csv)"
        )
    if not p.exists():
        raise InputError(p, "no such file")
    name = experiment or p.stem
    suffix = p.suffix.lower()
    if suffix == ".json":
        scores, reported, warnings = parse_tinytroupe_results(p, read_json(p), name, rename)
    elif suffix in TIDY_SUFFIXES:
        rows, first = _read_tidy(p)
        scores = parse_score_table(
            p, rows, first_line=first, experiment=experiment, groups=groups, rename=rename
        )
        reported, warnings = pl.DataFrame(schema=EXPERIMENT_REPORTED_SCHEMA), []
    else:
        raise InputError(
            p,
            "unknown experiment file type (expected .json, .csv, .jsonl or .parquet)",
            field="suffix",
            value=p.suffix,
        )
    if scores.height == 0:
        warnings.append(f"{p}: no scores")
    sources = {e: str(p) for e in dict.fromkeys(scores["experiment"].to_list())} or {name: str(p)}
    return ExperimentScores(scores, reported, tuple(warnings), sources)


def load_experiments(
    paths: Iterable[str | Path | tuple[str, str | Path]],
    *,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> ExperimentScores:
    """Load several experiment files into one :class:`ExperimentScores`.

    Args:
        paths: files, or ``(experiment name, file)`` pairs; a string ``"NAME=FILE"`` also
            names the experiment (as on the command line).
        groups: see :func:`load_experiment`.
        rename: see :func:`load_experiment`.

    Raises:
        InputError: a bad file, or two files giving the same experiment name.
    """
    loaded: list[ExperimentScores] = []
    owner: dict[str, str] = {}
    for item in paths:
        if isinstance(item, tuple):
            name: str | None = item[0]
            path = Path(item[1])
        else:
            name, path = split_named_path(str(item))
        one = load_experiment(path, experiment=name, groups=groups, rename=rename)
        for exp, src in (one.sources or {}).items():
            if exp in owner:
                raise InputError(
                    path,
                    f"experiment name already used by {owner[exp]}; name it NAME=FILE",
                    field="experiment",
                    value=exp,
                )
            owner[exp] = src
        loaded.append(one)
    if not loaded:
        raise InputError(None, "no experiment files given")
    return ExperimentScores(
        scores=pl.concat([x.scores for x in loaded], how="vertical"),
        reported=pl.concat([x.reported for x in loaded], how="vertical"),
        warnings=tuple(w for x in loaded for w in x.warnings),
        sources=owner,
    )


# ---------------------------------------------------------------------------
# Reference tables (a paper's Table 1, or an earlier run's JSON report)
# ---------------------------------------------------------------------------

_P_BELOW = re.compile(r"^\s*<\s*([0-9.eE+-]+)\s*$")


def _reference_number(path: Path, where: str, value: Any, required: bool) -> float | None:
    if value is None:
        if required:
            raise InputError(path, "required", field=where, value=None)
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, "must be a number", field=where, value=value)
    return float(value)


def _reference_p(path: Path, where: str, value: Any) -> tuple[float | None, bool | None]:
    if value is None:
        return None, None
    if isinstance(value, str):
        m = _P_BELOW.match(value)
        try:
            if m:
                return float(m.group(1)), True
            return float(value), False
        except ValueError:
            pass
        raise InputError(path, 'a p-value must be a number or "<number"', field=where, value=value)
    number = _reference_number(path, where, value, required=False)
    if number is not None and not 0 <= number <= 1:
        raise InputError(path, "a p-value must lie between 0 and 1", field=where, value=value)
    return number, False


def load_reference_table(path: str | Path) -> pl.DataFrame:
    """Load a reference table of treatment-vs-control results.

    The format (also what ``toolkit experiment --format json`` writes, so one run's report
    can be the next run's reference)::

        {"experiments": {<experiment>: {"label": "...", "metrics": {<metric>: {
            "t_mean": 5.81, "t_sd": 1.66, "c_mean": 6.72, "c_sd": 1.50,
            "delta": -0.92, "p_value": "<0.001" | 0.05}}}}}

    Only ``delta`` and ``p_value`` are needed for the directional check; other keys are
    ignored.

    Returns:
        :data:`toolkit.frames.EXPERIMENT_REFERENCE_SCHEMA` (experiment, metric, t_mean,
        t_sd, c_mean, c_sd, delta, p_value, p_below, source_file).

    Raises:
        InputError: naming the file, the field and the value.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "no such reference file")
    data = read_json(p)
    experiments = data.get("experiments") if isinstance(data, dict) else None
    if not isinstance(experiments, dict):
        raise InputError(
            p, "a reference table needs an 'experiments' object", field="experiments",
            value=None if not isinstance(data, dict) else data.get("experiments"),
        )  # fmt: skip
    rows: list[dict[str, Any]] = []
    for exp, block in experiments.items():
        metrics = block.get("metrics") if isinstance(block, dict) else None
        if not isinstance(metrics, dict):
            raise InputError(
                p, "each experiment needs a 'metrics' object", field=f"experiments.{exp}.metrics",
                value=metrics,
            )  # fmt: skip
        for metric, cell in metrics.items():
            where = f"experiments.{exp}.metrics.{metric}"
            if not isinstance(cell, dict):
                raise InputError(p, "a metric must be an object", field=where, value=cell)
            p_value, below = _reference_p(p, f"{where}.p_value", cell.get("p_value"))
            row: dict[str, Any] = {"experiment": exp, "metric": metric}
            for name in ("t_mean", "t_sd", "c_mean", "c_sd", "delta"):
                row[name] = _reference_number(
                    p, f"{where}.{name}", cell.get(name), required=name == "delta"
                )
            rows.append({**row, "p_value": p_value, "p_below": below, "source_file": str(p)})
    return pl.DataFrame(rows, schema=EXPERIMENT_REFERENCE_SCHEMA)
