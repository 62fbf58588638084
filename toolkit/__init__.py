"""toolkit: score LLM-agent runs against explicit quality rubrics.

The public API is what this module exports (see ``__all__``): loaders that turn run
folders into typed Polars frames, rubrics that score those frames, and views that show
the resulting :class:`Scorecard` as text, JSON, HTML, charts and widgets.

Each public name is imported on first use (PEP 562, as Scientific Python's SPEC 1
describes): ``import toolkit`` imports none of the parts, and only the first chart or
widget pays for Altair or ipywidgets. ``_LAZY`` maps every public name to the module that
defines it; ``__all__`` and ``dir(toolkit)`` follow from it. The ``TYPE_CHECKING`` imports
below show the same names to type checkers and IDEs, one line per name
(``tests/test_startup_imports.py`` keeps the two in step). Adding a public name is one
line in ``_LAZY`` and its import line below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit._lazy import attach
from toolkit._version import __version__
from toolkit.summary import register_html


def _drawer(kind: str, name: str) -> Callable[..., str]:
    """How a result draws itself as HTML (``kind``): :mod:`toolkit._html`'s ``name``,
    imported when the first result is drawn (its swatch table and dataclass are ~1.5 ms
    of every toolkit import, and a command line draws no notebook HTML; issue 38)."""

    def draw(*args: Any, **kwargs: Any) -> str:
        from toolkit import _html  # (registers its drawers in place of this one)

        drawn: str = getattr(_html, name)(*args, **kwargs)
        return drawn

    draw.__qualname__ = draw.__name__ = f"draw_{kind}"
    return draw


register_html("summary", _drawer("summary", "render_summary"))
register_html("scorecard", _drawer("scorecard", "render_card"))

#: Public name -> the module that defines it ("module:attribute" when renamed here).
_LAZY: dict[str, str] = {
    "InputError": "toolkit.errors",
    "RubricError": "toolkit.errors",
    "ToolkitError": "toolkit.errors",
    "CassetteMiss": "toolkit.judge",
    "Judge": "toolkit.judge",
    "JudgeRequest": "toolkit.judge",
    "JudgeResult": "toolkit.judge",
    "RecordedJudge": "toolkit.judge",
    "RecordingJudge": "toolkit.judge",
    "StoredJudge": "toolkit.judge",
    "judge_from_spec": "toolkit.judge",
    "JudgeUsage": "toolkit.judge",
    "load_prices": "toolkit.judge",
    "Discussion": "toolkit.load.discussion",
    "load_discussion": "toolkit.load.discussion",
    "load_discussions": "toolkit.load.discussion",
    "ExperimentScores": "toolkit.load.experiments",
    "load_experiment": "toolkit.load.experiments",
    "load_experiments": "toolkit.load.experiments",
    "load_reference_table": "toolkit.load.experiments",
    "scores_from_frame": "toolkit.load.experiments",
    "GitRepo": "toolkit.load.git",
    "IterationLog": "toolkit.load.iterlog",
    "load_iteration_log": "toolkit.load.iterlog",
    "load_iteration_logs": "toolkit.load.iterlog",
    "OutcomeEvidence": "toolkit.load.outcome_evidence",
    "collect_outcome_evidence": "toolkit.load.outcome_evidence",
    "Baseline": "toolkit.load.persona",
    "ChatRun": "toolkit.load.persona",
    "PropositionSet": "toolkit.load.persona",
    "load_baseline": "toolkit.load.persona",
    "load_baselines": "toolkit.load.persona",
    "load_chat": "toolkit.load.persona",
    "load_correction_log": "toolkit.load.persona",
    "correction_log_from_rows": "toolkit.load.persona",
    "load_intervention_log": "toolkit.load.persona",
    "intervention_log_from_rows": "toolkit.load.persona",
    "load_personas": "toolkit.load.persona",
    "load_propositions": "toolkit.load.persona",
    "render_claim": "toolkit.load.persona",
    "write_baselines": "toolkit.load.persona",
    "OfficeLogs": "toolkit.rubrics.persona.office_logs",
    "load_office_experiments": "toolkit.load.persona.office_tables",
    "load_office_logs": "toolkit.rubrics.persona.office_logs",
    "load_office_transcripts": "toolkit.load.persona.office_tables",
    "load_stored_scores": "toolkit.load.persona.office_tables",
    "proposition_settings": "toolkit.load.persona.office_tables",
    "FileRatings": "toolkit.load.ratings",
    "LabelSource": "toolkit.load.ratings",
    "RatingSource": "toolkit.load.ratings",
    "load_ratings": "toolkit.load.ratings",
    "Transcripts": "toolkit.load.transcripts",
    "load_transcripts": "toolkit.load.transcripts",
    "Universe": "toolkit.load.universe",
    "FleetScores": "toolkit.fleet.engine",
    "score_fleet": "toolkit.fleet.engine",
    "load_universe": "toolkit.load.universe",
    "load_universes": "toolkit.load.universe",
    "Agreement": "toolkit.ratings.agreement",
    "disagreements": "toolkit.ratings.agreement",
    "krippendorff_alpha": "toolkit.ratings.agreement",
    "pairwise_agreement": "toolkit.ratings.agreement",
    "rating_agreement": "toolkit.ratings.agreement",
    "transcript_agreement": "toolkit.ratings.agreement",
    "RatingStore": "toolkit.ratings.store",
    "default_store_path": "toolkit.ratings.store",
    "open_rating_store": "toolkit.ratings.store",
    "ReportError": "toolkit.reports",
    "render_report": "toolkit.reports",
    "report_footer": "toolkit.reports",
    "report_header": "toolkit.reports",
    "DiscussionReport": "toolkit.rubrics.discussion",
    "score_discussion": "toolkit.rubrics.discussion",
    "Comparison": "toolkit.rubrics.discussion",
    "SuccessCheck": "toolkit.rubrics.discussion",
    "success_check": "toolkit.rubrics.discussion",
    "compare_discussions": "toolkit.rubrics.discussion:compare",
    "DEFAULT_DISCUSSION_SPEC": "toolkit.rubrics.discussion",
    "DiscussionSpec": "toolkit.rubrics.discussion",
    "EngagementScale": "toolkit.rubrics.discussion",
    "load_discussion_spec": "toolkit.rubrics.discussion",
    "judge_discussion": "toolkit.rubrics.discussion",
    "JudgedDiscussion": "toolkit.rubrics.discussion",
    "ExperimentRubric": "toolkit.rubrics.experiment",
    "compare_to_reference": "toolkit.rubrics.experiment",
    "compare_to_reported": "toolkit.rubrics.experiment",
    "office_reproduction": "toolkit.rubrics.experiment",
    "experiment_scorecards": "toolkit.rubrics.experiment",
    "experiment_stats": "toolkit.rubrics.experiment",
    "anova_stats": "toolkit.rubrics.experiment",
    "assumption_checks": "toolkit.rubrics.experiment",
    "group_intervals": "toolkit.rubrics.experiment",
    "load_experiment_rubric": "toolkit.rubrics.experiment",
    "OutcomeResult": "toolkit.rubrics.outcome",
    "OutcomeRubric": "toolkit.rubrics.outcome",
    "default_outcome_rubric": "toolkit.rubrics.outcome",
    "load_outcome_rubric": "toolkit.rubrics.outcome",
    "score_outcome": "toolkit.rubrics.outcome",
    "DEFAULT_PERSONA_RUBRIC": "toolkit.rubrics.persona",
    "PRECONDITIONS": "toolkit.rubrics.persona",
    "PersonaResult": "toolkit.rubrics.persona",
    "PersonaRubric": "toolkit.rubrics.persona",
    "baselines_from": "toolkit.rubrics.persona",
    "compare_baselines": "toolkit.rubrics.persona",
    "correction_report": "toolkit.rubrics.persona",
    "intervention_report": "toolkit.rubrics.persona",
    "office_harness_report": "toolkit.rubrics.persona",
    "load_persona_rubric": "toolkit.rubrics.persona",
    "persona_scores_frame": "toolkit.rubrics.persona",
    "register_precondition": "toolkit.rubrics.persona",
    "score_persona": "toolkit.rubrics.persona",
    "PersonaEvidence": "toolkit.rubrics.persona_evidence",
    "persona_evidence": "toolkit.rubrics.persona_evidence",
    "SimulationRubric": "toolkit.rubrics.simulation",
    "character_breaks": "toolkit.rubrics.simulation",
    "dimension_series": "toolkit.rubrics.simulation",
    "fanout_series": "toolkit.rubrics.simulation",
    "load_simulation_rubric": "toolkit.rubrics.simulation",
    "refusal_clusters": "toolkit.rubrics.simulation",
    "score_universe": "toolkit.rubrics.simulation",
    "ungrounded_ticks": "toolkit.rubrics.simulation",
    "Scorecard": "toolkit.scorecard",
    "measures_frame": "toolkit.scorecard",
    "scorecards_frame": "toolkit.scorecard",
    "write_score_sidecars": "toolkit.sidecars",
    "compare": "toolkit.fleet.compare",
    "compare_plan": "toolkit.fleet.compare",
    "rescore": "toolkit.fleet.rescore",
    "sweep": "toolkit.fleet.rescore",
    "RescoreResult": "toolkit.rubrics.rescore",
    "SweepResult": "toolkit.rubrics.rescore",
    "sweep_chart": "toolkit.views.rescore",
    "CompareResult": "toolkit.rubrics.compare",
    "CompareRubric": "toolkit.rubrics.compare",
    "load_compare_rubric": "toolkit.rubrics.compare",
    "calibrate": "toolkit.rubrics.calibrate",
    "Calibration": "toolkit.rubrics.calibrate",
    "CalibrateRubric": "toolkit.rubrics.calibrate",
    "load_calibrate_rubric": "toolkit.rubrics.calibrate",
    "estimate": "toolkit.rubrics.estimate",
    "Estimate": "toolkit.rubrics.estimate",
    "alt_test": "toolkit.rubrics.alt_test",
    "estimate_difference": "toolkit.rubrics.estimate",
    "Difference": "toolkit.rubrics.estimate",
    "AltTest": "toolkit.rubrics.alt_test",
    "load_calibration_scores": "toolkit.load.calibration",
    "load_item_ratings": "toolkit.load.item_ratings",
    "PersonaItem": "toolkit.rubrics.persona_items",
    "persona_items": "toolkit.rubrics.persona_items",
    "persona_calibration_frame": "toolkit.rubrics.persona_calibration",
    "compare_chart": "toolkit.views.compare",
    "comparison_chart": "toolkit.views.discussion",
    "discussion_json": "toolkit.views.discussion",
    "evidence_table": "toolkit.views.discussion",
    "render_discussion_text": "toolkit.views.discussion",
    "repeated_phrases": "toolkit.views.discussion",
    "similarity_heatmap": "toolkit.views.discussion",
    "distribution_chart": "toolkit.views.experiment",
    "render_experiment_html": "toolkit.views.experiment",
    "render_experiment_json": "toolkit.views.experiment",
    "render_experiment_latex": "toolkit.views.experiment",
    "render_experiment_text": "toolkit.views.experiment",
    "table1_frame": "toolkit.views.experiment",
    "failing_dimensions": "toolkit.views.fleet",
    "failing_dimensions_chart": "toolkit.views.fleet",
    "fleet_frame": "toolkit.views.fleet",
    "render_fleet_json": "toolkit.views.fleet",
    "render_fleet_text": "toolkit.views.fleet",
    "trend_chart": "toolkit.views.fleet",
    "verdict_chart": "toolkit.views.fleet",
    "render_html": "toolkit.views.html",
    "setup_notebook": "toolkit.views.notebook",
    "integrity_chart": "toolkit.views.outcome",
    "outcome_breakdown_chart": "toolkit.views.outcome",
    "outcome_explorer": "toolkit.views.outcome",
    "outcome_scores_chart": "toolkit.views.outcome",
    "render_outcome_iteration": "toolkit.views.outcome",
    "render_outcome_json": "toolkit.views.outcome",
    "render_outcome_table": "toolkit.views.outcome",
    "sessions_chart": "toolkit.views.outcome",
    "Drilldown": "toolkit.views.panels",
    "LivePanel": "toolkit.views.panels",
    "baseline_chart": "toolkit.views.persona",
    "drift_chart": "toolkit.views.persona",
    "persona_heatmap": "toolkit.views.persona",
    "persona_table": "toolkit.views.persona",
    "render_persona_table": "toolkit.views.persona",
    "similarity_chart": "toolkit.views.persona",
    "RatingSession": "toolkit.views.rating",
    "rater_page": "toolkit.views.rating",
    "rating_session": "toolkit.views.rating",
    "ratings_chart": "toolkit.views.rating",
    "fanout_chart": "toolkit.views.simulation",
    "highlight_markers": "toolkit.views.simulation",
    "quality_panel": "toolkit.views.simulation",
    "Table": "toolkit.views.table",
    "show_table": "toolkit.views.table",
    "render_json": "toolkit.views.text",
    "render_text": "toolkit.views.text",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:
    from toolkit.errors import InputError as InputError
    from toolkit.errors import RubricError as RubricError
    from toolkit.errors import ToolkitError as ToolkitError
    from toolkit.fleet.compare import compare as compare
    from toolkit.fleet.compare import compare_plan as compare_plan
    from toolkit.fleet.engine import FleetScores as FleetScores
    from toolkit.fleet.engine import score_fleet as score_fleet
    from toolkit.fleet.rescore import rescore as rescore
    from toolkit.fleet.rescore import sweep as sweep
    from toolkit.judge import CassetteMiss as CassetteMiss
    from toolkit.judge import Judge as Judge
    from toolkit.judge import JudgeRequest as JudgeRequest
    from toolkit.judge import JudgeResult as JudgeResult
    from toolkit.judge import JudgeUsage as JudgeUsage
    from toolkit.judge import RecordedJudge as RecordedJudge
    from toolkit.judge import RecordingJudge as RecordingJudge
    from toolkit.judge import StoredJudge as StoredJudge
    from toolkit.judge import judge_from_spec as judge_from_spec
    from toolkit.judge import load_prices as load_prices
    from toolkit.load.calibration import load_calibration_scores as load_calibration_scores
    from toolkit.load.discussion import Discussion as Discussion
    from toolkit.load.discussion import load_discussion as load_discussion
    from toolkit.load.discussion import load_discussions as load_discussions
    from toolkit.load.experiments import ExperimentScores as ExperimentScores
    from toolkit.load.experiments import load_experiment as load_experiment
    from toolkit.load.experiments import load_experiments as load_experiments
    from toolkit.load.experiments import load_reference_table as load_reference_table
    from toolkit.load.experiments import scores_from_frame as scores_from_frame
    from toolkit.load.git import GitRepo as GitRepo
    from toolkit.load.item_ratings import load_item_ratings as load_item_ratings
    from toolkit.load.iterlog import IterationLog as IterationLog
    from toolkit.load.iterlog import load_iteration_log as load_iteration_log
    from toolkit.load.iterlog import load_iteration_logs as load_iteration_logs
    from toolkit.load.outcome_evidence import OutcomeEvidence as OutcomeEvidence
    from toolkit.load.outcome_evidence import collect_outcome_evidence as collect_outcome_evidence
    from toolkit.load.persona import Baseline as Baseline
    from toolkit.load.persona import ChatRun as ChatRun
    from toolkit.load.persona import PropositionSet as PropositionSet
    from toolkit.load.persona import correction_log_from_rows as correction_log_from_rows
    from toolkit.load.persona import intervention_log_from_rows as intervention_log_from_rows
    from toolkit.load.persona import load_baseline as load_baseline
    from toolkit.load.persona import load_baselines as load_baselines
    from toolkit.load.persona import load_chat as load_chat
    from toolkit.load.persona import load_correction_log as load_correction_log
    from toolkit.load.persona import load_intervention_log as load_intervention_log
    from toolkit.load.persona import load_personas as load_personas
    from toolkit.load.persona import load_propositions as load_propositions
    from toolkit.load.persona import render_claim as render_claim
    from toolkit.load.persona import write_baselines as write_baselines
    from toolkit.load.persona.office_tables import (
        load_office_experiments as load_office_experiments,
    )
    from toolkit.load.persona.office_tables import (
        load_office_transcripts as load_office_transcripts,
    )
    from toolkit.load.persona.office_tables import load_stored_scores as load_stored_scores
    from toolkit.load.persona.office_tables import proposition_settings as proposition_settings
    from toolkit.load.ratings import FileRatings as FileRatings
    from toolkit.load.ratings import LabelSource as LabelSource
    from toolkit.load.ratings import RatingSource as RatingSource
    from toolkit.load.ratings import load_ratings as load_ratings
    from toolkit.load.transcripts import Transcripts as Transcripts
    from toolkit.load.transcripts import load_transcripts as load_transcripts
    from toolkit.load.universe import Universe as Universe
    from toolkit.load.universe import load_universe as load_universe
    from toolkit.load.universe import load_universes as load_universes
    from toolkit.ratings.agreement import Agreement as Agreement
    from toolkit.ratings.agreement import disagreements as disagreements
    from toolkit.ratings.agreement import krippendorff_alpha as krippendorff_alpha
    from toolkit.ratings.agreement import pairwise_agreement as pairwise_agreement
    from toolkit.ratings.agreement import rating_agreement as rating_agreement
    from toolkit.ratings.agreement import transcript_agreement as transcript_agreement
    from toolkit.ratings.store import RatingStore as RatingStore
    from toolkit.ratings.store import default_store_path as default_store_path
    from toolkit.ratings.store import open_rating_store as open_rating_store
    from toolkit.reports import ReportError as ReportError
    from toolkit.reports import render_report as render_report
    from toolkit.reports import report_footer as report_footer
    from toolkit.reports import report_header as report_header
    from toolkit.rubrics.alt_test import AltTest as AltTest
    from toolkit.rubrics.alt_test import alt_test as alt_test
    from toolkit.rubrics.calibrate import CalibrateRubric as CalibrateRubric
    from toolkit.rubrics.calibrate import Calibration as Calibration
    from toolkit.rubrics.calibrate import calibrate as calibrate
    from toolkit.rubrics.calibrate import load_calibrate_rubric as load_calibrate_rubric
    from toolkit.rubrics.compare import CompareResult as CompareResult
    from toolkit.rubrics.compare import CompareRubric as CompareRubric
    from toolkit.rubrics.compare import load_compare_rubric as load_compare_rubric
    from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC as DEFAULT_DISCUSSION_SPEC
    from toolkit.rubrics.discussion import Comparison as Comparison
    from toolkit.rubrics.discussion import DiscussionReport as DiscussionReport
    from toolkit.rubrics.discussion import DiscussionSpec as DiscussionSpec
    from toolkit.rubrics.discussion import EngagementScale as EngagementScale
    from toolkit.rubrics.discussion import JudgedDiscussion as JudgedDiscussion
    from toolkit.rubrics.discussion import SuccessCheck as SuccessCheck
    from toolkit.rubrics.discussion import compare as compare_discussions
    from toolkit.rubrics.discussion import judge_discussion as judge_discussion
    from toolkit.rubrics.discussion import load_discussion_spec as load_discussion_spec
    from toolkit.rubrics.discussion import score_discussion as score_discussion
    from toolkit.rubrics.discussion import success_check as success_check
    from toolkit.rubrics.estimate import Difference as Difference
    from toolkit.rubrics.estimate import Estimate as Estimate
    from toolkit.rubrics.estimate import estimate as estimate
    from toolkit.rubrics.estimate import estimate_difference as estimate_difference
    from toolkit.rubrics.experiment import ExperimentRubric as ExperimentRubric
    from toolkit.rubrics.experiment import anova_stats as anova_stats
    from toolkit.rubrics.experiment import assumption_checks as assumption_checks
    from toolkit.rubrics.experiment import compare_to_reference as compare_to_reference
    from toolkit.rubrics.experiment import compare_to_reported as compare_to_reported
    from toolkit.rubrics.experiment import experiment_scorecards as experiment_scorecards
    from toolkit.rubrics.experiment import experiment_stats as experiment_stats
    from toolkit.rubrics.experiment import group_intervals as group_intervals
    from toolkit.rubrics.experiment import load_experiment_rubric as load_experiment_rubric
    from toolkit.rubrics.experiment import office_reproduction as office_reproduction
    from toolkit.rubrics.outcome import OutcomeResult as OutcomeResult
    from toolkit.rubrics.outcome import OutcomeRubric as OutcomeRubric
    from toolkit.rubrics.outcome import default_outcome_rubric as default_outcome_rubric
    from toolkit.rubrics.outcome import load_outcome_rubric as load_outcome_rubric
    from toolkit.rubrics.outcome import score_outcome as score_outcome
    from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC as DEFAULT_PERSONA_RUBRIC
    from toolkit.rubrics.persona import PRECONDITIONS as PRECONDITIONS
    from toolkit.rubrics.persona import PersonaResult as PersonaResult
    from toolkit.rubrics.persona import PersonaRubric as PersonaRubric
    from toolkit.rubrics.persona import baselines_from as baselines_from
    from toolkit.rubrics.persona import compare_baselines as compare_baselines
    from toolkit.rubrics.persona import correction_report as correction_report
    from toolkit.rubrics.persona import intervention_report as intervention_report
    from toolkit.rubrics.persona import load_persona_rubric as load_persona_rubric
    from toolkit.rubrics.persona import office_harness_report as office_harness_report
    from toolkit.rubrics.persona import persona_scores_frame as persona_scores_frame
    from toolkit.rubrics.persona import register_precondition as register_precondition
    from toolkit.rubrics.persona import score_persona as score_persona
    from toolkit.rubrics.persona.office_logs import OfficeLogs as OfficeLogs
    from toolkit.rubrics.persona.office_logs import load_office_logs as load_office_logs
    from toolkit.rubrics.persona_calibration import (
        persona_calibration_frame as persona_calibration_frame,
    )
    from toolkit.rubrics.persona_evidence import PersonaEvidence as PersonaEvidence
    from toolkit.rubrics.persona_evidence import persona_evidence as persona_evidence
    from toolkit.rubrics.persona_items import PersonaItem as PersonaItem
    from toolkit.rubrics.persona_items import persona_items as persona_items
    from toolkit.rubrics.rescore import RescoreResult as RescoreResult
    from toolkit.rubrics.rescore import SweepResult as SweepResult
    from toolkit.rubrics.simulation import SimulationRubric as SimulationRubric
    from toolkit.rubrics.simulation import character_breaks as character_breaks
    from toolkit.rubrics.simulation import dimension_series as dimension_series
    from toolkit.rubrics.simulation import fanout_series as fanout_series
    from toolkit.rubrics.simulation import load_simulation_rubric as load_simulation_rubric
    from toolkit.rubrics.simulation import refusal_clusters as refusal_clusters
    from toolkit.rubrics.simulation import score_universe as score_universe
    from toolkit.rubrics.simulation import ungrounded_ticks as ungrounded_ticks
    from toolkit.scorecard import Scorecard as Scorecard
    from toolkit.scorecard import measures_frame as measures_frame
    from toolkit.scorecard import scorecards_frame as scorecards_frame
    from toolkit.sidecars import write_score_sidecars as write_score_sidecars
    from toolkit.views.compare import compare_chart as compare_chart
    from toolkit.views.discussion import comparison_chart as comparison_chart
    from toolkit.views.discussion import discussion_json as discussion_json
    from toolkit.views.discussion import evidence_table as evidence_table
    from toolkit.views.discussion import render_discussion_text as render_discussion_text
    from toolkit.views.discussion import repeated_phrases as repeated_phrases
    from toolkit.views.discussion import similarity_heatmap as similarity_heatmap
    from toolkit.views.experiment import distribution_chart as distribution_chart
    from toolkit.views.experiment import render_experiment_html as render_experiment_html
    from toolkit.views.experiment import render_experiment_json as render_experiment_json
    from toolkit.views.experiment import render_experiment_latex as render_experiment_latex
    from toolkit.views.experiment import render_experiment_text as render_experiment_text
    from toolkit.views.experiment import table1_frame as table1_frame
    from toolkit.views.fleet import failing_dimensions as failing_dimensions
    from toolkit.views.fleet import failing_dimensions_chart as failing_dimensions_chart
    from toolkit.views.fleet import fleet_frame as fleet_frame
    from toolkit.views.fleet import render_fleet_json as render_fleet_json
    from toolkit.views.fleet import render_fleet_text as render_fleet_text
    from toolkit.views.fleet import trend_chart as trend_chart
    from toolkit.views.fleet import verdict_chart as verdict_chart
    from toolkit.views.html import render_html as render_html
    from toolkit.views.notebook import setup_notebook as setup_notebook
    from toolkit.views.outcome import integrity_chart as integrity_chart
    from toolkit.views.outcome import outcome_breakdown_chart as outcome_breakdown_chart
    from toolkit.views.outcome import outcome_explorer as outcome_explorer
    from toolkit.views.outcome import outcome_scores_chart as outcome_scores_chart
    from toolkit.views.outcome import render_outcome_iteration as render_outcome_iteration
    from toolkit.views.outcome import render_outcome_json as render_outcome_json
    from toolkit.views.outcome import render_outcome_table as render_outcome_table
    from toolkit.views.outcome import sessions_chart as sessions_chart
    from toolkit.views.panels import Drilldown as Drilldown
    from toolkit.views.panels import LivePanel as LivePanel
    from toolkit.views.persona import baseline_chart as baseline_chart
    from toolkit.views.persona import drift_chart as drift_chart
    from toolkit.views.persona import persona_heatmap as persona_heatmap
    from toolkit.views.persona import persona_table as persona_table
    from toolkit.views.persona import render_persona_table as render_persona_table
    from toolkit.views.persona import similarity_chart as similarity_chart
    from toolkit.views.rating import RatingSession as RatingSession
    from toolkit.views.rating import rater_page as rater_page
    from toolkit.views.rating import rating_session as rating_session
    from toolkit.views.rating import ratings_chart as ratings_chart
    from toolkit.views.rescore import sweep_chart as sweep_chart
    from toolkit.views.simulation import fanout_chart as fanout_chart
    from toolkit.views.simulation import highlight_markers as highlight_markers
    from toolkit.views.simulation import quality_panel as quality_panel
    from toolkit.views.table import Table as Table
    from toolkit.views.table import show_table as show_table
    from toolkit.views.text import render_json as render_json
    from toolkit.views.text import render_text as render_text

    __all__ += ["compare_discussions"]  # renamed on import, so not exported by "X as X"
else:
    __getattr__, __dir__ = attach(__name__, _LAZY)
