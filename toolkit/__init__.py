"""toolkit: score LLM-agent runs against explicit quality rubrics.

The public API is what this module exports (see ``__all__``): loaders that turn run
folders into typed Polars frames, rubrics that score those frames, and views that show
the resulting :class:`Scorecard` as text, JSON, HTML, charts and widgets.
"""

from __future__ import annotations

from toolkit.errors import InputError, RubricError, ToolkitError
from toolkit.load.experiments import (
    ExperimentScores,
    load_experiment,
    load_experiments,
    load_reference_table,
    scores_from_frame,
)
from toolkit.load.universe import Universe, load_universe, load_universes
from toolkit.rubrics.experiment import (
    ExperimentRubric,
    compare_to_reference,
    compare_to_reported,
    experiment_scorecards,
    experiment_stats,
    group_intervals,
    load_experiment_rubric,
)
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
from toolkit.views.experiment import (
    distribution_chart,
    render_experiment_html,
    render_experiment_json,
    render_experiment_latex,
    render_experiment_text,
    table1_frame,
)
from toolkit.views.html import render_html
from toolkit.views.notebook import setup_notebook
from toolkit.views.simulation import LivePanel, fanout_chart, highlight_markers, quality_panel
from toolkit.views.text import render_json, render_text

__version__ = "0.1.0"

__all__ = [
    "ExperimentRubric",
    "ExperimentScores",
    "InputError",
    "LivePanel",
    "RubricError",
    "Scorecard",
    "SimulationRubric",
    "ToolkitError",
    "Universe",
    "__version__",
    "character_breaks",
    "compare_to_reference",
    "compare_to_reported",
    "dimension_series",
    "distribution_chart",
    "experiment_scorecards",
    "experiment_stats",
    "fanout_chart",
    "fanout_series",
    "group_intervals",
    "highlight_markers",
    "load_experiment",
    "load_experiment_rubric",
    "load_experiments",
    "load_reference_table",
    "load_simulation_rubric",
    "load_universe",
    "load_universes",
    "quality_panel",
    "refusal_clusters",
    "render_experiment_html",
    "render_experiment_json",
    "render_experiment_latex",
    "render_experiment_text",
    "render_html",
    "render_json",
    "render_text",
    "score_universe",
    "scorecards_frame",
    "scores_from_frame",
    "setup_notebook",
    "table1_frame",
    "ungrounded_ticks",
]
