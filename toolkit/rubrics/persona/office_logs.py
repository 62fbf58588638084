"""the-office's correction and intervention logs of a database scope: its rows read by
the one reader of each log (:func:`toolkit.correction_log_from_rows`,
:func:`toolkit.intervention_log_from_rows`) and summarised by the one report of each
(:func:`~toolkit.rubrics.persona.corrections.correction_report`,
:func:`~toolkit.rubrics.persona.interventions.intervention_report`).

A stage, outcome or intervention type the schema does not list, or a row the reader
refuses, is an :class:`~toolkit.errors.InputError` naming the table, the row, the field
and the value (exit 2 from the CLI), never counted silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit.frames import CORRECTION_LOG_SCHEMA, INTERVENTION_LOG_SCHEMA
from toolkit.load.persona.corrections import correction_log_from_rows
from toolkit.load.persona.interventions import intervention_log_from_rows
from toolkit.load.persona.office_db import office_tables, parse_window
from toolkit.load.persona.office_tables import correction_logs, intervention_logs
from toolkit.rubrics.persona.corrections import CorrectionReport, correction_report
from toolkit.rubrics.persona.interventions import InterventionReport, intervention_report
from toolkit.summary import Shows, Summary


@dataclass(frozen=True, repr=False)
class OfficeLogs(Shows):
    """the-office's correction and intervention logs of a scope and their reports.

    Attributes:
        corrections: the correction log (:data:`toolkit.frames.CORRECTION_LOG_SCHEMA`:
            one row per attempt and dimension; ``line`` numbers the attempts).
        interventions: the intervention log (:data:`toolkit.frames.INTERVENTION_LOG_SCHEMA`).
        correction: :func:`correction_report` of ``corrections`` (``stage_outcomes``:
            attempts by stage and outcome).
        intervention: :func:`intervention_report` of ``interventions`` (fired rate by
            type; each precondition passed, failed, not checked).
    """

    corrections: pl.DataFrame
    interventions: pl.DataFrame
    correction: CorrectionReport
    intervention: InterventionReport

    @property
    def attempts(self) -> int:
        """Correction attempts (rows of the ``correction_logs`` table)."""
        return int(self.corrections["line"].n_unique())

    def _summary(self) -> Summary:
        return Summary(
            "OfficeLogs",
            "the-office correction and intervention logs",
            (
                ("correction attempts", self.attempts),
                ("interventions", self.interventions.height),
                ("fired", int(self.interventions["fired"].sum())),
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """The reports as JSON-ready records."""
        stages = self.correction.stage_outcomes
        return {
            "corrections": [] if stages is None else stages.to_dicts(),
            "interventions": self.intervention.by_type.to_dicts(),
            "preconditions": self.intervention.preconditions.to_dicts(),
            "inconsistent_interventions": self.intervention.inconsistent.to_dicts(),
        }


def office_logs(corrections: pl.DataFrame, interventions: pl.DataFrame, source: str) -> OfficeLogs:
    """Rows of the ``correction_logs`` and ``intervention_logs`` tables (the table shape,
    as :func:`toolkit.load.persona.office_tables.correction_logs` returns them) read and
    reported on.

    Args:
        source: where the rows came from (the database URL, redacted), for errors.

    Raises:
        InputError: a row the reader refuses, naming ``source``, the table, the row,
            the field and the value.
    """
    c_log = (
        correction_log_from_rows(corrections, f"{source}#correction_logs")
        if corrections.height
        else pl.DataFrame(schema=CORRECTION_LOG_SCHEMA)
    )
    i_log = (
        intervention_log_from_rows(interventions, f"{source}#intervention_logs")
        if interventions.height
        else pl.DataFrame(schema=INTERVENTION_LOG_SCHEMA)
    )
    return OfficeLogs(c_log, i_log, correction_report(c_log), intervention_report(i_log))


def load_office_logs(
    url: str,
    *,
    channel: str | Sequence[str] | None = None,
    window: str | None = None,
    agents: Sequence[str] | None = None,
) -> OfficeLogs:
    """the-office's correction and intervention logs in a channel, window and agents,
    read whole, with their reports."""
    win = parse_window(window)
    with office_tables(url) as tables:
        corrections = correction_logs(tables, channel=channel, window=win, agents=agents)
        interventions = intervention_logs(tables, channel=channel, window=win, agents=agents)
        source = tables.url()
    return office_logs(corrections, interventions, source)


__all__ = ["OfficeLogs", "load_office_logs", "office_logs"]
