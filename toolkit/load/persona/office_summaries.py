"""the-office's experiments as treatment-vs-control scores, from the frames
:mod:`toolkit.load.persona.office_tables` reads (pure: no database).

Nothing is dropped silently: an experiment score whose agent is in no environment, or
whose proposition is not the experiment's, is counted in a warning. (The correction and
intervention logs are read by :func:`toolkit.correction_log_from_rows` and
:func:`toolkit.intervention_log_from_rows` and reported on in
:mod:`toolkit.rubrics.persona.office_logs`.)
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from toolkit.frames import EXPERIMENT_REPORTED_SCHEMA, EXPERIMENT_SCORES_SCHEMA
from toolkit.load.experiments import ExperimentScores

_EXPERIMENT_PROPOSITION = re.compile(r"^experiment-(.+)-([a-z_]+)$")


def experiment_scores(
    experiments: pl.DataFrame, environments: pl.DataFrame, scores: pl.DataFrame, url: str
) -> ExperimentScores:
    """the-office's experiments as treatment-vs-control scores per dimension.

    Each agent's group is its environment's; each score is an ``evaluation_scores`` row
    of the experiment's evaluation runs whose proposition is ``experiment-<id>-<dim>``
    (the metric is ``<dim>``, the unit the agent id). The experiment is named after its
    scenario (and id when two share a scenario).
    """
    warnings: list[str] = []
    names = _experiment_names(experiments)
    group_of: dict[tuple[str, str], str] = {}
    for env in environments.iter_rows(named=True):
        for agent in env["agent_ids"] or []:
            group_of[(str(env["experiment_id"]), str(agent))] = str(env["group"])
    rows: list[dict[str, Any]] = []
    skipped: dict[str, int] = {}
    for r in scores.iter_rows(named=True):
        exp, agent = str(r["experiment_id"]), str(r["agent_id"])
        match = _EXPERIMENT_PROPOSITION.match(str(r["proposition_id"]))
        group = group_of.get((exp, agent))
        if match is None or match.group(1) != exp:
            skipped["not an experiment-<id>-<dimension> proposition"] = (
                skipped.get("not an experiment-<id>-<dimension> proposition", 0) + 1
            )
            continue
        if group not in ("treatment", "control"):
            why = f"agent in no environment of its experiment (group {group!r})"
            skipped[why] = skipped.get(why, 0) + 1
            continue
        rows.append(
            {
                "experiment": names[exp],
                "group": group,
                "metric": match.group(2),
                "unit": agent,
                "score": r["score"],
                "source_file": url,
                "family": names[exp],
            }
        )
    warnings += [f"{n} experiment score(s) skipped: {why}" for why, n in sorted(skipped.items())]
    frame = pl.DataFrame(rows, schema=EXPERIMENT_SCORES_SCHEMA)
    return ExperimentScores(
        scores=frame,
        reported=pl.DataFrame(schema=EXPERIMENT_REPORTED_SCHEMA),
        warnings=tuple(warnings),
        sources={name: url for name in names.values()},
    )


def _experiment_names(experiments: pl.DataFrame) -> dict[str, str]:
    scenarios = experiments["scenario_id"].cast(pl.String).to_list()
    out = {}
    for exp, scenario in zip(experiments["id"].to_list(), scenarios, strict=True):
        shared = scenarios.count(scenario) > 1
        out[str(exp)] = f"{scenario} ({exp})" if shared or not scenario else str(scenario)
    return out


__all__ = ["experiment_scores"]
