"""Persona-drift rubric: five proposition scorers, baselines and regressions.

Each proposition is judged (0-9) about a windowed trajectory; its score is the raw
value, ``9 - raw`` when inverted, times :attr:`PersonaRubric.hard_multiplier` in hard
mode when below 9. A dimension's score is the weighted mean of its judged propositions;
absent propositions (no messages, judge errors) are left out of both sums and counted.
Agent dimensions (adherence, consistency, fluency) are scored per agent; environment
dimensions (convergence, ideas_quantity) once per run. ``ideas_quantity`` is a count.

Where each part lives: the rubric as data in :mod:`.spec`, preconditions in
:mod:`.preconditions`, trajectories and their windows in :mod:`.trajectory`, the judge
requests of a chat in :mod:`.requests`, asking the judge in :mod:`.judging`, proposition
and dimension scores in :mod:`.scores`, the result type in :mod:`.result`,
:func:`score_persona` in :mod:`.score`, baselines in :mod:`.baselines`, scorecards in
:mod:`.scorecards`, correction logs in :mod:`.corrections`, intervention logs in
:mod:`.interventions` and the-office harness's report in :mod:`.office`.
"""

from collections.abc import Sequence

from toolkit.rubrics.persona.baselines import BASELINE_DECIMALS, baselines_from, compare_baselines
from toolkit.rubrics.persona.corrections import CorrectionReport, correction_report
from toolkit.rubrics.persona.interventions import InterventionReport, intervention_report
from toolkit.rubrics.persona.judging import ask_pending
from toolkit.rubrics.persona.office import OfficeReport, office_harness_report
from toolkit.rubrics.persona.preconditions import (
    PRECONDITIONS,
    Precondition,
    PreconditionContext,
    register_precondition,
)
from toolkit.rubrics.persona.requests import (
    PendingRequest,
    chosen_agents,
    steps_anchor,
    whole_run_requests,
)
from toolkit.rubrics.persona.result import PersonaResult, persona_scores_frame
from toolkit.rubrics.persona.score import persona_epoch, score_persona
from toolkit.rubrics.persona.scores import dimension_scores, score_rows
from toolkit.rubrics.persona.spec import (
    DEFAULT_PERSONA_RUBRIC,
    ENVIRONMENT,
    PERSONA_RUBRIC_1_0,
    PUBLISHED_PERSONA_RUBRICS,
    JudgeEvidence,
    PersonaRubric,
    file_window,
    load_persona_rubric,
)
from toolkit.rubrics.persona.trajectory import format_trajectory, trajectory_rows, window_rows

__all__: Sequence[str] = [
    "BASELINE_DECIMALS",
    "DEFAULT_PERSONA_RUBRIC",
    "ENVIRONMENT",
    "PERSONA_RUBRIC_1_0",
    "PRECONDITIONS",
    "PUBLISHED_PERSONA_RUBRICS",
    "CorrectionReport",
    "InterventionReport",
    "JudgeEvidence",
    "OfficeReport",
    "PendingRequest",
    "PersonaResult",
    "PersonaRubric",
    "Precondition",
    "PreconditionContext",
    "ask_pending",
    "baselines_from",
    "chosen_agents",
    "compare_baselines",
    "correction_report",
    "dimension_scores",
    "file_window",
    "format_trajectory",
    "intervention_report",
    "load_persona_rubric",
    "office_harness_report",
    "persona_epoch",
    "persona_scores_frame",
    "register_precondition",
    "score_persona",
    "score_rows",
    "steps_anchor",
    "trajectory_rows",
    "whole_run_requests",
    "window_rows",
]
