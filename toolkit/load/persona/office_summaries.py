"""Summaries of the-office's logs and its experiments as treatment-vs-control scores,
from the frames :mod:`toolkit.load.persona.office_tables` reads (pure: no database).

Nothing is dropped silently: a log row with a stage, outcome or type the schema does not
list is counted under its own name (and in a warning), a null under ``(none)``; an
experiment score whose agent is in no environment, or whose proposition is not the
experiment's, is counted in a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit.frames import EXPERIMENT_REPORTED_SCHEMA, EXPERIMENT_SCORES_SCHEMA
from toolkit.load.experiments import ExperimentScores
from toolkit.summary import Shows, Summary

#: What the-office's schema lists (late 2026).
STAGES = ("original", "regeneration", "direct_correction")
OUTCOMES = ("passed", "regeneration_requested", "regeneration_success",
            "direct_correction_success", "forced_through", "timeout_pass_through")  # fmt: skip
INTERVENTION_TYPES = ("anti_convergence", "variety", "custom")
PRECONDITIONS = ("textual_precondition_result", "functional_precondition_result",
                 "propositional_precondition_result")  # fmt: skip

_NONE = "(none)"


@dataclass(frozen=True, repr=False)
class OfficeLogs(Shows):
    """the-office's correction and intervention logs of a scope, whole, and their
    summaries (:func:`correction_summary`, :func:`intervention_summary`).

    Attributes:
        corrections: every ``correction_logs`` row (the table shape, all columns).
        interventions: every ``intervention_logs`` row (all columns).
        correction_table: attempts by stage and outcome.
        intervention_table: fired rate and precondition results by type.
        warnings: values the schema does not list (counted, never dropped).
    """

    corrections: pl.DataFrame
    interventions: pl.DataFrame
    correction_table: pl.DataFrame
    intervention_table: pl.DataFrame
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        return Summary(
            "OfficeLogs",
            "the-office correction and intervention logs",
            (
                ("correction attempts", self.corrections.height),
                ("interventions", self.interventions.height),
                ("fired", int(self.interventions["fired"].fill_null(False).sum())),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    def to_dict(self) -> dict[str, Any]:
        """The summaries as JSON-ready records."""
        return {
            "corrections": self.correction_table.to_dicts(),
            "interventions": self.intervention_table.to_dicts(),
            "warnings": list(self.warnings),
        }


def office_logs(corrections: pl.DataFrame, interventions: pl.DataFrame) -> OfficeLogs:
    """Both logs with their summaries."""
    c_table, c_warn = correction_summary(corrections)
    i_table, i_warn = intervention_summary(interventions)
    return OfficeLogs(corrections, interventions, c_table, i_table, tuple(c_warn + i_warn))


def correction_summary(logs: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Correction-log rows counted by stage and outcome.

    Args:
        logs: ``correction_logs`` rows (the table shape).

    Returns:
        One row per (stage, outcome) present: stage, outcome, attempts (rows), agents
        (distinct), mean_total_score; stages and outcomes in the schema's order, others
        after them. Warnings name every value the schema does not list.
    """
    frame = logs.with_columns(
        pl.col("stage").cast(pl.String).fill_null(_NONE),
        pl.col("outcome").cast(pl.String).fill_null(_NONE),
    )
    warnings = _unknown(frame, "stage", STAGES, "correction_logs") + _unknown(
        frame, "outcome", OUTCOMES, "correction_logs"
    )
    table = (
        frame.group_by("stage", "outcome")
        .agg(
            pl.len().alias("attempts"),
            pl.col("agent_id").n_unique().alias("agents"),
            pl.col("total_score").cast(pl.Float64).mean().alias("mean_total_score"),
        )
        .with_columns(_order("stage", STAGES).alias("_s"), _order("outcome", OUTCOMES).alias("_o"))
        .sort("_s", "stage", "_o", "outcome")
        .drop("_s", "_o")
    )
    return table, warnings


def intervention_summary(logs: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Intervention-log rows by type: how often each fired and what each precondition
    said.

    Returns:
        One row per intervention type present: intervention_type, logged, fired,
        fired_rate, and for each precondition (textual, functional, propositional) the
        number of rows where it held, failed and was not evaluated (``<name>_true``,
        ``_false``, ``_null``). A null ``fired`` is counted in ``fired_null`` and left
        out of the rate's denominator.
    """
    frame = logs.with_columns(pl.col("intervention_type").cast(pl.String).fill_null(_NONE))
    warnings = _unknown(frame, "intervention_type", INTERVENTION_TYPES, "intervention_logs")
    aggs: list[pl.Expr] = [
        pl.len().alias("logged"),
        pl.col("fired").fill_null(False).sum().alias("fired"),
        pl.col("fired").null_count().alias("fired_null"),
        (pl.col("fired").fill_null(False).sum() / pl.col("fired").count()).alias("fired_rate"),
    ]
    for column in PRECONDITIONS:
        short = column.removesuffix("_precondition_result")
        aggs += [
            (pl.col(column) == True).sum().alias(f"{short}_true"),  # noqa: E712
            (pl.col(column) == False).sum().alias(f"{short}_false"),  # noqa: E712
            pl.col(column).null_count().alias(f"{short}_null"),
        ]
    table = (
        frame.group_by("intervention_type")
        .agg(aggs)
        .with_columns(_order("intervention_type", INTERVENTION_TYPES).alias("_t"))
        .sort("_t", "intervention_type")
        .drop("_t")
    )
    return table, warnings


def _order(column: str, known: tuple[str, ...]) -> pl.Expr:
    return pl.col(column).replace_strict(list(known), list(range(len(known))), default=len(known))


def _unknown(frame: pl.DataFrame, column: str, known: tuple[str, ...], table: str) -> list[str]:
    counts = frame.filter(~pl.col(column).is_in(list(known)))[column].value_counts(sort=True)
    return [
        f"{n} {table} row(s) with {column} {value!r} (not in the schema); counted as such"
        for value, n in counts.iter_rows()
    ]


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


__all__ = [
    "INTERVENTION_TYPES",
    "OUTCOMES",
    "PRECONDITIONS",
    "STAGES",
    "OfficeLogs",
    "correction_summary",
    "experiment_scores",
    "intervention_summary",
    "office_logs",
]
