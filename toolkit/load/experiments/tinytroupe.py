"""TinyTroupe results JSON: one score per list element (the unit is its position), the
authors' own test results kept apart in ``reported``; a file with several treatment arms
beside its Control gives one experiment per arm, each against the same control."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict, ValidationError

from toolkit.errors import InputError
from toolkit.frames import (
    EXPERIMENT_REPORTED_SCHEMA,
    EXPERIMENT_SCORES_SCHEMA,
)
from toolkit.load._common import validation_problem
from toolkit.load._fields import Int64
from toolkit.load.experiments.cells import group_name, renamed, score_of

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
    parsed = _results_file(path, data)
    controls, treatments, warnings = _control_and_treatments(path, parsed)
    # One treatment keeps the file's experiment name; several become one experiment each
    # ("<name> / <arm>"), all of the same family, each against the same control.
    several = len(treatments) > 1
    names = {a: f"{experiment} / {a}" if several else experiment for a in treatments}
    control_names = list(names.values()) or [experiment]
    score_rows: list[dict[str, Any]] = []
    reported_rows: list[dict[str, Any]] = []
    for name in [*controls, *treatments]:
        arm = parsed.experiments[name]
        group = "control" if name in controls else "treatment"
        targets = control_names if group == "control" else [names[name]]
        if not arm.results:
            warnings.append(f"{path}: {name} has no results")
        score_rows.extend(_arm_scores(path, name, arm, group, targets, experiment, rename))
        if group == "control":
            reported_rows.extend(_reported_rows(path, arm, names, rename))
    if not controls:
        warnings.append(f"{path}: no Control group")
    if not treatments:
        warnings.append(f"{path}: no Treatment group")
    return (
        pl.DataFrame(score_rows, schema=EXPERIMENT_SCORES_SCHEMA),
        pl.DataFrame(reported_rows, schema=EXPERIMENT_REPORTED_SCHEMA),
        warnings,
    )


def _results_file(path: Path, data: Any) -> ResultsFile:
    """``data`` validated as a TinyTroupe results file.

    Raises:
        InputError: no top-level ``experiments`` object, or a field of the wrong type.
    """
    if not isinstance(data, dict) or "experiments" not in data:
        raise InputError(
            path,
            "not a TinyTroupe results file (no top-level 'experiments' object)",
            field="experiments",
            value=None if not isinstance(data, dict) else sorted(data)[:5],
        )
    try:
        return ResultsFile.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc


def _control_and_treatments(
    path: Path, parsed: ResultsFile
) -> tuple[list[str], list[str], list[str]]:
    """The file's control arm (at most one) and its treatment arms, and a warning per
    arm ignored: every arm but the control is a treatment, each compared with the one
    control; without a control only the (first) Treatment arm is read.

    Raises:
        InputError: two arms both mean control, or neither a treatment nor a control.
    """
    warnings: list[str] = []
    arms = list(parsed.experiments)
    controls = [a for a in arms if group_name(a) == "control"]
    if len(controls) > 1:
        raise InputError(
            path, "two groups both mean control", field=f"experiments.{controls[1]}",
            value=controls[1],
        )  # fmt: skip
    if controls:  # every other arm is a treatment, each compared with the one control
        treatments = [a for a in arms if a not in controls]
    else:
        treatments = [a for a in arms if group_name(a) == "treatment"][:1]
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
    return controls, treatments, warnings


def _arm_scores(
    path: Path,
    name: str,
    arm: ResultsGroup,
    group: str,
    targets: Sequence[str],
    family: str,
    rename: Mapping[str, str] | None,
) -> list[dict[str, Any]]:
    """The score rows of arm ``name``, once for each experiment in ``targets`` (a control
    serves every treatment of its file); one score per list element, its position the
    unit.

    Raises:
        InputError: a score that is not a number, or two metrics renamed to one.
    """
    rows: list[dict[str, Any]] = []
    used: dict[str, str] = {}
    for raw_metric, values in arm.results.items():
        metric = renamed(raw_metric, rename)
        if metric in used:
            raise InputError(
                path,
                f"metrics {used[metric]!r} and {raw_metric!r} are both renamed to {metric!r}",
                field=f"experiments.{name}.results",
                value=raw_metric,
            )
        used[metric] = raw_metric
        parsed_scores = [
            score_of(path, f"experiments.{name}.results.{raw_metric}[{i}]", value)
            for i, value in enumerate(values)
        ]
        for target in targets:
            rows.extend(
                {
                    "experiment": target,
                    "group": group,
                    "metric": metric,
                    "unit": str(i),
                    "score": score,
                    "source_file": str(path),
                    "family": family,
                }
                for i, score in enumerate(parsed_scores)
            )
    return rows


def _reported_rows(
    path: Path, arm: ResultsGroup, names: Mapping[str, str], rename: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    """The authors' own test results a control arm carries against each treatment arm
    read (``names``: arm -> experiment)."""
    rows: list[dict[str, Any]] = []
    for other, tests in (arm.statistical_test_results_vs_others or {}).items():
        if other not in names:
            continue
        for raw_metric, test in tests.items():
            ci = test.confidence_interval or []
            rows.append(
                {
                    "experiment": names[other],
                    "metric": renamed(raw_metric, rename),
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
    return rows
