"""toolkit: score LLM-agent runs against explicit quality rubrics.

The public API is what this module exports (see ``__all__``): loaders that turn run
folders into typed Polars frames, rubrics that score those frames, and views that show
the resulting :class:`Scorecard` as text, JSON, HTML, charts and widgets.
"""

from __future__ import annotations

from toolkit.errors import InputError, RubricError, ToolkitError
from toolkit.load.git import GitRepo
from toolkit.load.iterlog import IterationLog, load_iteration_log
from toolkit.load.outcome_evidence import OutcomeEvidence, collect_outcome_evidence
from toolkit.load.transcripts import Transcripts, load_transcripts
from toolkit.rubrics.outcome import (
    OutcomeResult,
    OutcomeRubric,
    default_outcome_rubric,
    load_outcome_rubric,
    score_outcome,
)
from toolkit.scorecard import Scorecard, scorecards_frame
from toolkit.sidecars import write_score_sidecars
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
from toolkit.views.text import render_json, render_text

__version__ = "0.1.0"

__all__ = [
    "GitRepo",
    "InputError",
    "IterationLog",
    "OutcomeEvidence",
    "OutcomeResult",
    "OutcomeRubric",
    "RubricError",
    "Scorecard",
    "ToolkitError",
    "Transcripts",
    "__version__",
    "collect_outcome_evidence",
    "default_outcome_rubric",
    "integrity_chart",
    "load_iteration_log",
    "load_outcome_rubric",
    "load_transcripts",
    "outcome_breakdown_chart",
    "outcome_explorer",
    "outcome_scores_chart",
    "render_html",
    "render_json",
    "render_outcome_iteration",
    "render_outcome_json",
    "render_outcome_table",
    "render_text",
    "score_outcome",
    "scorecards_frame",
    "sessions_chart",
    "setup_notebook",
    "write_score_sidecars",
]
