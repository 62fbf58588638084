"""Reference tables of treatment-vs-control results (a paper's Table 1, or an earlier
run's JSON report)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    EXPERIMENT_REFERENCE_SCHEMA,
)
from toolkit.load._common import read_json

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
