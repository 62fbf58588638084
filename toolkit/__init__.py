"""toolkit: score LLM-agent runs against explicit quality rubrics.

The public API is what this module exports (see ``__all__``): loaders that turn run
folders into typed Polars frames, rubrics that score those frames, and views that show
the resulting :class:`Scorecard` as text, JSON, HTML, charts and widgets.
"""

from __future__ import annotations

from toolkit.engine import FleetScores, score_fleet
from toolkit.errors import InputError, RubricError, ToolkitError
from toolkit.judge import (
    CassetteMiss,
    Judge,
    JudgeRequest,
    JudgeResult,
    RecordedJudge,
    RecordingJudge,
    judge_from_spec,
)
from toolkit.load.discussion import Discussion, load_discussion, load_discussions
from toolkit.load.experiments import (
    ExperimentScores,
    load_experiment,
    load_experiments,
    load_reference_table,
    scores_from_frame,
)
from toolkit.load.git import GitRepo
from toolkit.load.iterlog import IterationLog, load_iteration_log
from toolkit.load.outcome_evidence import OutcomeEvidence, collect_outcome_evidence
from toolkit.load.persona import (
    Baseline,
    ChatRun,
    PropositionSet,
    load_baseline,
    load_baselines,
    load_chat,
    load_correction_log,
    load_personas,
    load_propositions,
    render_claim,
    write_baselines,
)
from toolkit.load.ratings import FileRatings, LabelSource, RatingSource, load_ratings
from toolkit.load.transcripts import Transcripts, load_transcripts
from toolkit.load.universe import Universe, load_universe, load_universes
from toolkit.ratings.agreement import (
    Agreement,
    disagreements,
    krippendorff_alpha,
    pairwise_agreement,
    rating_agreement,
    transcript_agreement,
)
from toolkit.ratings.store import RatingStore, default_store_path, open_rating_store
from toolkit.reports import ReportError, render_report, report_footer, report_header
from toolkit.rubrics.discussion import DiscussionReport, score_discussion
from toolkit.rubrics.discussion_iterations import Comparison, SuccessCheck, success_check
from toolkit.rubrics.discussion_iterations import compare as compare_discussions
from toolkit.rubrics.discussion_spec import (
    DEFAULT_DISCUSSION_SPEC,
    DiscussionSpec,
    EngagementScale,
    load_discussion_spec,
)
from toolkit.rubrics.experiment import (
    ExperimentRubric,
    compare_to_reference,
    compare_to_reported,
    experiment_scorecards,
    experiment_stats,
    group_intervals,
    load_experiment_rubric,
)
from toolkit.rubrics.outcome import (
    OutcomeResult,
    OutcomeRubric,
    default_outcome_rubric,
    load_outcome_rubric,
    score_outcome,
)
from toolkit.rubrics.persona import (
    DEFAULT_PERSONA_RUBRIC,
    PRECONDITIONS,
    PersonaResult,
    PersonaRubric,
    baselines_from,
    compare_baselines,
    correction_report,
    load_persona_rubric,
    persona_scores_frame,
    register_precondition,
    score_persona,
)
from toolkit.rubrics.persona_evidence import PersonaEvidence, persona_evidence
from toolkit.rubrics.simulation import (
    SimulationRubric,
    character_breaks,
    dimension_series,
    fanout_series,
    load_simulation_rubric,
    refusal_clusters,
    score_universe,
    ungrounded_ticks,
)
from toolkit.scorecard import Scorecard, scorecards_frame
from toolkit.sidecars import write_score_sidecars
from toolkit.views.discussion import (
    comparison_chart,
    discussion_json,
    evidence_table,
    render_discussion_text,
    repeated_phrases,
    similarity_heatmap,
)
from toolkit.views.experiment import (
    distribution_chart,
    render_experiment_html,
    render_experiment_json,
    render_experiment_latex,
    render_experiment_text,
    table1_frame,
)
from toolkit.views.fleet import (
    Drilldown,
    failing_dimensions,
    failing_dimensions_chart,
    fleet_frame,
    render_fleet_json,
    render_fleet_text,
    trend_chart,
    verdict_chart,
)
from toolkit.views.html import render_html
from toolkit.views.notebook import setup_notebook
from toolkit.views.outcome import (
    integrity_chart,
    outcome_breakdown_chart,
    outcome_explorer,
    outcome_scores_chart,
    render_outcome_iteration,
    render_outcome_json,
    render_outcome_table,
    sessions_chart,
)
from toolkit.views.persona import (
    baseline_chart,
    drift_chart,
    persona_heatmap,
    persona_table,
    render_persona_table,
    similarity_chart,
)
from toolkit.views.rating import RatingSession, rater_page, rating_session, ratings_chart
from toolkit.views.simulation import LivePanel, fanout_chart, highlight_markers, quality_panel
from toolkit.views.text import render_json, render_text

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_DISCUSSION_SPEC",
    "DEFAULT_PERSONA_RUBRIC",
    "PRECONDITIONS",
    "Agreement",
    "Baseline",
    "CassetteMiss",
    "ChatRun",
    "Comparison",
    "Discussion",
    "DiscussionReport",
    "DiscussionSpec",
    "Drilldown",
    "EngagementScale",
    "ExperimentRubric",
    "ExperimentScores",
    "FileRatings",
    "FleetScores",
    "GitRepo",
    "InputError",
    "IterationLog",
    "Judge",
    "JudgeRequest",
    "JudgeResult",
    "LabelSource",
    "LivePanel",
    "OutcomeEvidence",
    "OutcomeResult",
    "OutcomeRubric",
    "PersonaEvidence",
    "PersonaResult",
    "PersonaRubric",
    "PropositionSet",
    "RatingSession",
    "RatingSource",
    "RatingStore",
    "RecordedJudge",
    "RecordingJudge",
    "ReportError",
    "RubricError",
    "Scorecard",
    "SimulationRubric",
    "SuccessCheck",
    "ToolkitError",
    "Transcripts",
    "Universe",
    "__version__",
    "baseline_chart",
    "baselines_from",
    "character_breaks",
    "collect_outcome_evidence",
    "compare_baselines",
    "compare_discussions",
    "compare_to_reference",
    "compare_to_reported",
    "comparison_chart",
    "correction_report",
    "default_outcome_rubric",
    "default_store_path",
    "dimension_series",
    "disagreements",
    "discussion_json",
    "distribution_chart",
    "drift_chart",
    "evidence_table",
    "experiment_scorecards",
    "experiment_stats",
    "failing_dimensions",
    "failing_dimensions_chart",
    "fanout_chart",
    "fanout_series",
    "fleet_frame",
    "group_intervals",
    "highlight_markers",
    "integrity_chart",
    "judge_from_spec",
    "krippendorff_alpha",
    "load_baseline",
    "load_baselines",
    "load_chat",
    "load_correction_log",
    "load_discussion",
    "load_discussion_spec",
    "load_discussions",
    "load_experiment",
    "load_experiment_rubric",
    "load_experiments",
    "load_iteration_log",
    "load_outcome_rubric",
    "load_persona_rubric",
    "load_personas",
    "load_propositions",
    "load_ratings",
    "load_reference_table",
    "load_simulation_rubric",
    "load_transcripts",
    "load_universe",
    "load_universes",
    "open_rating_store",
    "outcome_breakdown_chart",
    "outcome_explorer",
    "outcome_scores_chart",
    "pairwise_agreement",
    "persona_evidence",
    "persona_heatmap",
    "persona_scores_frame",
    "persona_table",
    "quality_panel",
    "rater_page",
    "rating_agreement",
    "rating_session",
    "ratings_chart",
    "refusal_clusters",
    "register_precondition",
    "render_claim",
    "render_discussion_text",
    "render_experiment_html",
    "render_experiment_json",
    "render_experiment_latex",
    "render_experiment_text",
    "render_fleet_json",
    "render_fleet_text",
    "render_html",
    "render_json",
    "render_outcome_iteration",
    "render_outcome_json",
    "render_outcome_table",
    "render_persona_table",
    "render_report",
    "render_text",
    "repeated_phrases",
    "report_footer",
    "report_header",
    "score_discussion",
    "score_fleet",
    "score_outcome",
    "score_persona",
    "score_universe",
    "scorecards_frame",
    "scores_from_frame",
    "sessions_chart",
    "setup_notebook",
    "similarity_chart",
    "similarity_heatmap",
    "success_check",
    "table1_frame",
    "transcript_agreement",
    "trend_chart",
    "ungrounded_ticks",
    "verdict_chart",
    "write_baselines",
    "write_score_sidecars",
]
