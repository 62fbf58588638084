"""The simulation rubric's constants and its default (1.2.0) as plain values, without
pydantic: what one run on the command line scores with (issue 38).

Importing pydantic and building the rubric's nine model classes costs about 0.1 s of CPU,
a third of ``toolkit quality RUN`` above ``import polars``. The scorers only read the
rubric's attributes, its two methods and its JSON form (for the epoch), so the default
rubric is also kept here as :data:`DEFAULT_VALUES`, a read-only view of the same data that
answers those reads exactly as :data:`toolkit.rubrics.simulation.DEFAULT_RUBRIC` does.
The public pydantic models stay in :mod:`.spec` and are imported the first time a user
asks for one (``SimulationRubric``, ``DEFAULT_RUBRIC``, a rubric file);
``tests/rubrics/test_simulation_values.py`` checks that every read, ``model_dump`` and
epoch of :data:`DEFAULT_VALUES` equals the model's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from toolkit.rubrics._plain_values import PlainValues

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric, SubtypeSpec

HEALTHY, DEGRADED, FAILED, INSUFFICIENT = "HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT_DATA"

#: Slopes are rounded to this many decimals before they meet a threshold, so float noise
#: (2.06 - 2.08 = -0.020000000000000018) cannot push a value across a boundary.
SLOPE_DECIMALS = 9

#: Dimension keys in scorecard order, with their display names.
DIMENSIONS: dict[str, str] = {
    "groundedness": "Groundedness",
    "character_stability": "Character stability",
    "action_coherence": "Action coherence",
    "refusal_cluster": "Refusal cluster",
    "vocabulary_growth": "Vocabulary growth",
    "conservation_drift": "Conservation drift",
    "graph_fanout": "Graph fan-out",
    "novel_subtype_rate": "Novel subtype rate",
}

#: The mutation property whose new values :data:`DIMENSIONS` ``novel_subtype_rate`` counts.
SUBTYPE_PROPERTY = "subtype"

#: Novel subtype rate's defaults (``SubtypeSpec()``), for a rubric that does not score it.
_SUBTYPE: dict[str, Any] = {"warn_zero_min_ticks": 30, "per_ticks": 10, "verdict": False}

#: Version 1.2.0 in pydantic's ``model_dump()`` form (field order included): the one place its
#: numbers are written; the models in ``spec`` take their defaults from here.
DEFAULT_DATA: dict[str, Any] = {
    "rubric": "simulation",
    "version": "1.2.0",
    "window": 50,
    "groundedness": {"ok_min": 0.95, "fail_below": 0.85},
    "character_stability": {
        "ok_min": 0.98,
        "fail_below": 0.9,
        "markers": ("framework", "yield", "mechanic", "system prompt", "operator", "scenario"),
    },
    "action_coherence": {
        "ok_streak_min": 15,
        "ok_rate_max": 1.5,
        "fail_streak_below": 5,
        "fail_rate_min": 4.0,
        "per_ticks": 10,
    },
    "refusal_cluster": {"ok_max": 2, "fail_min": 5},
    "vocabulary_growth": {
        "unit": "verb",
        "ok_rate_min": 0.5,
        "ok_rate_max": 2.5,
        "fail_rate_above": 4.0,
        "fail_stagnant_min": 30,
        "per_ticks": 10,
    },
    "conservation_drift": {"ok_max": 0.02, "fail_min": 0.1},
    "graph_fanout": {
        "checkpoint_every": 10,
        "checkpoints": 5,
        "ok_slope_min": 0.0,
        "fail_slope_below": -0.02,
        "recent_steps": 3,
        "per_ticks": 10,
        "sustained": "slope",
    },
    "novel_subtype_rate": _SUBTYPE,
}


def scored_dimensions(subtype: Any) -> list[str]:
    """The dimensions a rubric scores, in scorecard order: novel subtype rate only when
    the rubric has its part (``subtype``: that part, or None), for the model and the
    plain values alike."""
    return [k for k in DIMENSIONS if k != "novel_subtype_rate" or subtype]


def informational_dimensions(subtype: Any) -> list[str]:
    """Dimensions scored and shown but kept out of the verdict and the gate: novel
    subtype rate when its part says ``verdict: false``."""
    return ["novel_subtype_rate"] if subtype is not None and not subtype.verdict else []


class RubricValues(PlainValues):
    """A read-only view of rubric data: each key an attribute, each mapping a nested
    view, and the pydantic model's ``model_dump``, ``dimension_keys`` and
    ``informational`` for the reads the scorers make (compared and hashed as the model
    is: :class:`PlainValues`)."""

    __slots__ = ("_path", "_root")

    def __init__(
        self,
        data: Mapping[str, Any],
        _root: RubricValues | None = None,
        _path: tuple[str, ...] = (),
    ) -> None:
        root = self if _root is None else _root  # the whole rubric, for model_copy
        fields = {
            k: RubricValues(v, root, (*_path, k)) if isinstance(v, Mapping) else v
            for k, v in data.items()
        }
        self._set("_fields", fields)
        self._set("_root", root)
        self._set("_path", _path)

    def __reduce__(self) -> tuple[type[RubricValues], tuple[dict[str, Any]]]:
        # pickled (a Dask worker, a process pool) as its data, rebuilt by __init__
        return (RubricValues, (self.model_dump(),))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """The pydantic model these values stand for (``SimulationRubric``, or the part of
        it they are), copied with ``update`` as the model's ``model_copy`` does: the way a
        notebook varies the default rubric. The values themselves stay read-only."""
        # the models (pydantic and the rubric's classes, ~0.1 s of CPU): only when a
        # copy is asked for, never on the one-run path (tests/test_startup_imports.py)
        from toolkit.rubrics.simulation.spec import SimulationRubric

        if "rubric" not in self._root._fields:  # values of a part alone: no model known
            raise AttributeError("model_copy")
        model: Any = SimulationRubric.model_validate(self._root.model_dump())
        for key in self._path:
            model = getattr(model, key)
        return model.model_copy(update=update, deep=deep)

    def dimension_keys(self) -> list[str]:
        """The dimensions this rubric scores, in scorecard order."""
        return scored_dimensions(self._fields.get("novel_subtype_rate"))

    def informational(self) -> list[str]:
        """Dimensions scored and shown but kept out of the verdict and the gate."""
        return informational_dimensions(self._fields.get("novel_subtype_rate"))


# Typed as the model they stand in for: every scorer takes a SimulationRubric and reads
# only what RubricValues answers (tests/rubrics/test_simulation_values.py).
#: Version 1.2.0, the default rubric, as plain values (equal to ``DEFAULT_RUBRIC``'s).
DEFAULT_VALUES = cast("SimulationRubric", RubricValues(DEFAULT_DATA))
#: ``SubtypeSpec()``'s values, for a rubric without novel subtype rate.
DEFAULT_SUBTYPE = cast("SubtypeSpec", RubricValues(_SUBTYPE))
