"""The simulation health rubric: eight dimensions over the last W ticks of a run.

Seven decide the verdict; the eighth, novel subtype rate, is informational by default
(``novel_subtype_rate.verdict: false``): it is scored and shown, never counted.

Everything is computed column-wise: per-tick features, then one rolling pass over the
ticks (``LazyFrame.rolling`` with a window of W rows, grouped by run) that yields the
trailing-window value of every dimension at every tick. The scorecard is the last row of
that series, so the card and the charts can never disagree.

Where each part lives: the rubric as data in :mod:`.spec`, the per-tick features in
:mod:`.features`, the trailing window in :mod:`.windows`, graph fan-out in
:mod:`.fanout`, the per-tick series in :mod:`.series`, each dimension of a card in
:mod:`.dimensions`, the card's verdict and the gate in :mod:`.card`,
:func:`score_universe` in :mod:`.score`, the ticks behind a status in
:mod:`.evidence`, and the ticks that decided each dimension (a tick's own reasons, the
ticks where a window's status changed) in :mod:`.reasons`.
"""

from typing import TYPE_CHECKING

from toolkit._lazy import attach
from toolkit.rubrics.simulation._values import (
    DEFAULT_VALUES,
    DEGRADED,
    DIMENSIONS,
    FAILED,
    HEALTHY,
    INSUFFICIENT,
    SLOPE_DECIMALS,
    SUBTYPE_PROPERTY,
)
from toolkit.rubrics.simulation.card import GATE_MODES, passes_gate
from toolkit.rubrics.simulation.dimensions import MEASURES, series_thresholds
from toolkit.rubrics.simulation.fanout import fanout_series
from toolkit.rubrics.simulation.features import tick_features
from toolkit.rubrics.simulation.score import SCORE_CHUNK_TICKS, run_chunks, score_universe
from toolkit.rubrics.simulation.windows import scored_window, window_scores, window_series

if TYPE_CHECKING:  # for type checkers; at run time from _FROM_SPEC and _LATER below
    from toolkit.rubrics.simulation.evidence import character_breaks as character_breaks
    from toolkit.rubrics.simulation.evidence import refusal_clusters as refusal_clusters
    from toolkit.rubrics.simulation.evidence import ungrounded_ticks as ungrounded_ticks
    from toolkit.rubrics.simulation.series import SERIES_SCHEMA as SERIES_SCHEMA
    from toolkit.rubrics.simulation.series import dimension_series as dimension_series
    from toolkit.rubrics.simulation.spec import DEFAULT_RUBRIC as DEFAULT_RUBRIC
    from toolkit.rubrics.simulation.spec import PUBLISHED as PUBLISHED
    from toolkit.rubrics.simulation.spec import RUBRIC_1_0_0 as RUBRIC_1_0_0
    from toolkit.rubrics.simulation.spec import RUBRIC_1_1_0 as RUBRIC_1_1_0
    from toolkit.rubrics.simulation.spec import CharacterSpec as CharacterSpec
    from toolkit.rubrics.simulation.spec import ClusterSpec as ClusterSpec
    from toolkit.rubrics.simulation.spec import CoherenceSpec as CoherenceSpec
    from toolkit.rubrics.simulation.spec import DriftSpec as DriftSpec
    from toolkit.rubrics.simulation.spec import FanoutSpec as FanoutSpec
    from toolkit.rubrics.simulation.spec import RatioBand as RatioBand
    from toolkit.rubrics.simulation.spec import SimulationRubric as SimulationRubric
    from toolkit.rubrics.simulation.spec import SubtypeSpec as SubtypeSpec
    from toolkit.rubrics.simulation.spec import VocabularySpec as VocabularySpec
    from toolkit.rubrics.simulation.spec import load_simulation_rubric as load_simulation_rubric

# The rubric's pydantic models (pydantic and the nine classes: about 0.1 s of CPU) are
# imported the first time one is named; scoring one run with the default rubric never
# names one (``._values``; tests/test_startup_imports.py).
_SPEC = "toolkit.rubrics.simulation.spec"
_FROM_SPEC = (
    "DEFAULT_RUBRIC",
    "PUBLISHED",
    "RUBRIC_1_0_0",
    "RUBRIC_1_1_0",
    "CharacterSpec",
    "ClusterSpec",
    "CoherenceSpec",
    "DriftSpec",
    "FanoutSpec",
    "RatioBand",
    "SimulationRubric",
    "SubtypeSpec",
    "VocabularySpec",
    "load_simulation_rubric",
)
# The ticks behind a status and the per-tick series: imported when first named (a
# one-run card names neither; about 1 M instructions of its start, issue 38).
_LATER = {
    "character_breaks": "toolkit.rubrics.simulation.evidence",
    "refusal_clusters": "toolkit.rubrics.simulation.evidence",
    "ungrounded_ticks": "toolkit.rubrics.simulation.evidence",
    "SERIES_SCHEMA": "toolkit.rubrics.simulation.series",
    "dimension_series": "toolkit.rubrics.simulation.series",
}
__getattr__, __dir__ = attach(__name__, {**dict.fromkeys(_FROM_SPEC, _SPEC), **_LATER})

__all__ = [
    "DEFAULT_VALUES",
    "DEGRADED",
    "DIMENSIONS",
    "FAILED",
    "GATE_MODES",
    "HEALTHY",
    "INSUFFICIENT",
    "MEASURES",
    "SCORE_CHUNK_TICKS",
    "SERIES_SCHEMA",
    "SLOPE_DECIMALS",
    "SUBTYPE_PROPERTY",
    "character_breaks",
    "dimension_series",
    "fanout_series",
    "passes_gate",
    "refusal_clusters",
    "run_chunks",
    "score_universe",
    "scored_window",
    "series_thresholds",
    "tick_features",
    "ungrounded_ticks",
    "window_scores",
    "window_series",
    *_FROM_SPEC,
]
