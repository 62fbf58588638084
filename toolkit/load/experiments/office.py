"""the-office's experiment runner report (``npm run experiment:run``), told apart by shape.

``{scenario, seed, agentsCount, environmentsCount, metrics: {<dimension>: {treatment:
{mean, sd}, control: {mean, sd}, delta, tTest: {tStatistic, degreesOfFreedom, pValue,
significant, meanA, meanB, sdA, sdB}, effectSize}}, displayLabels: {<dimension>:
<label>}, timestamp}``. Group A of its t-test is the treatment, so its t has the sign of
treatment - control.

The report holds summaries, not the scores behind them, so it becomes rows of
``ExperimentScores.reported`` (:data:`toolkit.frames.EXPERIMENT_REPORTED_SCHEMA`; its
``reported_t`` keeps TinyTroupe's control - treatment convention, so it is the negated
``tStatistic``) and no score rows: the toolkit cannot rerun the test, it reads the
runner's numbers and compares their conclusions with a reference table. A metric is
named by its display label (``persona_adherence``, ``self_consistency``, ``fluency``,
``divergence``, ``ideas_qty``: the TinyTroupe names Table 1 uses), and the experiment by
the Table 1 experiment of its scenario where the-office names one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import EXPERIMENT_REPORTED_SCHEMA
from toolkit.load.experiments.cells import renamed

#: the-office's scenarios that reproduce Table 1 of the TinyTroupe paper, and the
#: experiment each one is (from its ``table1-reference.ts``).
OFFICE_TABLE1_SCENARIOS: dict[str, str] = {
    "brainstorming-average": "exp_1",
    "brainstorming-difficult-full": "exp_2_1",
    "brainstorming-difficult-variety": "exp_2_2",
    "debate-controversial": "exp_3",
}


def is_office_report(data: Any) -> bool:
    """Whether ``data`` has the shape of the-office's experiment runner report."""
    if not isinstance(data, Mapping) or not isinstance(data.get("metrics"), Mapping):
        return False
    if "scenario" not in data:
        return False
    return all(isinstance(m, Mapping) and "tTest" in m for m in data["metrics"].values())


def _number(path: Path, where: str, value: Any) -> float | None:
    """A number of the report; null (JavaScript's NaN written by JSON.stringify) is None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isinf(value):
        raise InputError(path, "must be a number or null", field=where, value=value)
    return None if math.isnan(value) else float(value)


def _group(path: Path, where: str, value: Any) -> tuple[float | None, float | None]:
    if not isinstance(value, Mapping):
        raise InputError(path, "must be an object {mean, sd}", field=where, value=value)
    return _number(path, f"{where}.mean", value.get("mean")), _number(
        path, f"{where}.sd", value.get("sd")
    )


def parse_office_report(
    path: Path,
    data: Mapping[str, Any],
    experiment: str | None = None,
    rename: Mapping[str, str] | None = None,
) -> tuple[pl.DataFrame, list[str]]:
    """The report's metrics as reported rows, and warnings.

    Args:
        path: the file, for messages and ``source_file``.
        data: the parsed report (:func:`is_office_report` holds).
        experiment: the experiment's name (default: the Table 1 experiment of the
            scenario, else the scenario id).
        rename: metric (display label) -> the name to report it under.

    Raises:
        InputError: a field of the wrong type, naming the file, the field and the value.
    """
    scenario = str(data.get("scenario"))
    name = experiment or OFFICE_TABLE1_SCENARIOS.get(scenario, scenario)
    given = data.get("displayLabels")
    labels: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    for dim, cell in data["metrics"].items():
        where = f"metrics.{dim}"
        if not isinstance(cell, Mapping) or not isinstance(cell.get("tTest"), Mapping):
            raise InputError(path, "must be an object with tTest", field=where, value=cell)
        t_mean, t_sd = _group(path, f"{where}.treatment", cell.get("treatment"))
        c_mean, c_sd = _group(path, f"{where}.control", cell.get("control"))
        test = cell["tTest"]
        t_stat = _number(path, f"{where}.tTest.tStatistic", test.get("tStatistic"))
        significant = test.get("significant")
        if significant is not None and not isinstance(significant, bool):
            raise InputError(path, "must be true or false", field=f"{where}.tTest.significant",
                             value=significant)  # fmt: skip
        rows.append(
            {
                "experiment": name,
                "metric": renamed(str(labels.get(dim, dim)), rename),
                "test_type": "welch",
                "t_mean": t_mean, "c_mean": c_mean, "t_sd": t_sd, "c_sd": c_sd,
                "delta": _number(path, f"{where}.delta", cell.get("delta")),
                "reported_t": None if t_stat is None else -t_stat,
                "df": _number(path, f"{where}.tTest.degreesOfFreedom",
                              test.get("degreesOfFreedom")),
                "p_value": _number(path, f"{where}.tTest.pValue", test.get("pValue")),
                "effect_size": _number(path, f"{where}.effectSize", cell.get("effectSize")),
                "significant": significant,
                "source_file": str(path),
            }
        )  # fmt: skip
    if not rows:
        warnings.append(f"{path}: the report has no metrics")
    warnings.append(
        f"{path}: the-office experiment report (scenario {scenario}, seed {data.get('seed')}, "
        f"{data.get('agentsCount')} agents, {data.get('environmentsCount')} environments): "
        "its own numbers, read as reported (no scores to test again)"
    )
    return pl.DataFrame(rows, schema=EXPERIMENT_REPORTED_SCHEMA), warnings
