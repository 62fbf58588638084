"""toolkit: score LLM-agent runs against explicit quality rubrics.

The public API is what this module exports (see ``__all__``): loaders that turn run
folders into typed Polars frames, rubrics that score those frames, and views that show
the resulting :class:`Scorecard` as text, JSON, HTML, charts and widgets.
"""

from __future__ import annotations

from toolkit.errors import InputError, RubricError, ToolkitError
from toolkit.load.universe import Universe, load_universe, load_universes
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
from toolkit.views.html import render_html
from toolkit.views.notebook import setup_notebook
from toolkit.views.simulation import LivePanel, fanout_chart, highlight_markers, quality_panel
from toolkit.views.text import render_json, render_text

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "LivePanel",
    "RubricError",
    "Scorecard",
    "SimulationRubric",
    "ToolkitError",
    "Universe",
    "__version__",
    "character_breaks",
    "dimension_series",
    "fanout_chart",
    "fanout_series",
    "highlight_markers",
    "load_simulation_rubric",
    "load_universe",
    "load_universes",
    "quality_panel",
    "refusal_clusters",
    "render_html",
    "render_json",
    "render_text",
    "score_universe",
    "scorecards_frame",
    "setup_notebook",
    "ungrounded_ticks",
]
