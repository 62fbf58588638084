"""The experiments' page of the site: each treatment-vs-control results file found beside
the runs (:data:`~toolkit.fleet.families.EXPERIMENT`), tested as ``toolkit experiment
FILE`` tests it (Welch's two-sided t-test per experiment and metric, with the interval
of each difference and the assumption checks), as the JSON ``toolkit experiment
--format json`` prints; a report of the-office that carries its own numbers is shown as
reported (its rows are not tested again)."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.load.experiments import load_experiments, load_reference_table
from toolkit.rubrics.experiment import DEFAULT_RUBRIC, assumption_checks, experiment_stats
from toolkit.rubrics.experiment.rounding import format_p
from toolkit.views.experiment import experiment_report_dict

#: The columns of a reported row (the-office's own numbers) the page shows.
REPORTED_COLUMNS = ("t_n", "c_n", "t_mean", "c_mean", "t_sd", "c_sd", "delta", "percent_change",
                    "df", "p_value", "ci_low", "ci_high", "significant")  # fmt: skip


def _json(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _reported(reported: pl.DataFrame) -> dict[str, Any]:
    """A report's own rows in the shape of :func:`experiment_report_dict` (not tested)."""
    experiments: dict[str, Any] = {}
    for r in reported.iter_rows(named=True):
        cell = {k: _json(r.get(k)) for k in REPORTED_COLUMNS}
        cell["cohens_d"] = _json(r.get("effect_size"))  # the runner's d, as the text shows it
        p = r.get("p_value")  # as the text prints it (<0.001, not 0.000)
        shown = format_p(p, DEFAULT_RUBRIC.p_floor, DEFAULT_RUBRIC.decimals + 1)
        cell["p_display"] = "–" if shown == "-" else shown
        experiments.setdefault(r["experiment"], {"metrics": {}})["metrics"][r["metric"]] = cell
    return {
        "rubric": DEFAULT_RUBRIC.rubric,
        "rubric_version": DEFAULT_RUBRIC.version,
        "alpha": DEFAULT_RUBRIC.alpha,
        "test": "as reported by the file (its own numbers, not tested again)",
        "experiments": experiments,
        "warnings": [],
    }


def experiment_page(path: str) -> dict[str, Any]:
    """The site's record of one results file: ``{"source", "reported", "report"}``, the
    report as ``toolkit experiment FILE --format json`` prints it (``reported``: the
    file's own numbers, shown as they are).

    Raises:
        InputError: the file holds no experiment (a reference table is named as one:
            ``toolkit experiment --reference`` reads it).
    """
    try:
        loaded = load_experiments([path])
    except InputError as err:
        try:
            load_reference_table(path)
        except InputError:
            raise err from None
        raise InputError(path, "a reference table, not results: give it to toolkit "
                         "experiment --reference") from None  # fmt: skip
    if loaded.scores.height == 0 and loaded.reported.height:
        report = _reported(loaded.reported)
        report["warnings"] = list(loaded.warnings)
        return {"source": path, "reported": True, "report": report}
    if loaded.scores.height == 0:
        raise InputError(path, "no scores in it")
    stats = experiment_stats(loaded.scores, DEFAULT_RUBRIC)
    checks = assumption_checks(loaded.scores, DEFAULT_RUBRIC)
    report = experiment_report_dict(stats, DEFAULT_RUBRIC, None, loaded.warnings, checks)
    return {"source": path, "reported": False, "report": report}
