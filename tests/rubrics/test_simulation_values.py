"""The default simulation rubric's plain values (what one run on the command line scores
with, without pydantic: issue 38) answer every read exactly as the pydantic model does."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from conftest import SAMPLE_RUNS
from pydantic import BaseModel

from toolkit.epoch import spec_epoch
from toolkit.load.universe import load_universe
from toolkit.rubrics.simulation import (
    DEFAULT_RUBRIC,
    DEFAULT_VALUES,
    PUBLISHED,
    SimulationRubric,
    score_universe,
)
from toolkit.rubrics.simulation._values import RubricValues


def _reads(model: BaseModel, values: Any, where: str) -> None:
    """Every field of ``model``, read from ``values`` as an attribute, is equal and of the
    same type (nested models compared field by field)."""
    for name in type(model).model_fields:
        mine, theirs = getattr(model, name), getattr(values, name)
        if isinstance(mine, BaseModel):
            _reads(mine, theirs, f"{where}.{name}")
        else:
            assert (theirs, type(theirs)) == (mine, type(mine)), f"{where}.{name}"


def test_the_default_values_read_as_the_default_rubric() -> None:
    _reads(DEFAULT_RUBRIC, DEFAULT_VALUES, "rubric")
    assert DEFAULT_VALUES.dimension_keys() == DEFAULT_RUBRIC.dimension_keys()
    assert DEFAULT_VALUES.informational() == ["novel_subtype_rate"]


@pytest.mark.parametrize("mode", ["python", "json"])
def test_the_default_values_dump_as_the_default_rubric(mode: str) -> None:
    assert DEFAULT_VALUES.model_dump(mode=mode) == DEFAULT_RUBRIC.model_dump(mode=mode)
    assert DEFAULT_VALUES.model_dump(mode=mode, exclude={"rubric", "version"}) == (
        DEFAULT_RUBRIC.model_dump(mode=mode, exclude={"rubric", "version"})
    )
    # the JSON form holds lists where the model keeps tuples, as pydantic writes it
    markers = DEFAULT_VALUES.model_dump(mode="json")["character_stability"]["markers"]
    assert isinstance(markers, list) and markers[0] == "framework"


def test_the_default_values_have_the_default_rubrics_epoch() -> None:
    for window in (None, 20):
        assert spec_epoch(DEFAULT_VALUES, window=window) == spec_epoch(
            DEFAULT_RUBRIC, window=window
        )


@pytest.mark.parametrize("version", sorted(PUBLISHED))
def test_values_of_each_published_version_read_as_its_model(version: str) -> None:
    model = PUBLISHED[version]
    values: Any = RubricValues(model.model_dump())
    _reads(model, values, version)
    assert values.dimension_keys() == model.dimension_keys()
    assert values.informational() == model.informational()
    assert values.model_dump(mode="json") == model.model_dump(mode="json")


def test_the_values_survive_pickling_as_a_worker_receives_them() -> None:
    copy = pickle.loads(pickle.dumps(DEFAULT_VALUES))
    assert copy.model_dump() == DEFAULT_RUBRIC.model_dump()
    assert copy.character_stability.markers == DEFAULT_RUBRIC.character_stability.markers


def test_the_values_are_read_only() -> None:
    with pytest.raises(AttributeError):
        DEFAULT_VALUES.window = 20  # type: ignore[misc]
    with pytest.raises(AttributeError):
        _ = DEFAULT_VALUES.no_such_field  # type: ignore[attr-defined]


@pytest.mark.parametrize("run", ["ashfall", "harbor-town", "willowbrook"])
@pytest.mark.parametrize("window", [None, 10])
def test_a_run_scored_with_the_values_gets_the_models_card(run: str, window: int | None) -> None:
    universe = load_universe(SAMPLE_RUNS / "universes" / run)
    by_values = score_universe(universe, DEFAULT_VALUES, window, series=False)[0]
    by_model = score_universe(universe, DEFAULT_RUBRIC, window, series=False)[0]
    assert isinstance(DEFAULT_RUBRIC, SimulationRubric)
    assert by_values.to_dict() == by_model.to_dict()
    assert by_values.meta == by_model.meta  # the epoch included


def test_the_values_equal_the_model_and_their_own_pickled_copy() -> None:
    """Typed as the model they stand in for, the values compare as it does: equal to
    ``DEFAULT_RUBRIC`` (either side first), to a copy a worker unpickles, and not to
    another version; equal values hash alike."""
    copy = pickle.loads(pickle.dumps(DEFAULT_VALUES))
    assert DEFAULT_VALUES == DEFAULT_RUBRIC and DEFAULT_RUBRIC == DEFAULT_VALUES
    assert copy == DEFAULT_VALUES and hash(copy) == hash(DEFAULT_VALUES)
    values, older = DEFAULT_VALUES, PUBLISHED["1.1.0"]
    assert values != older  # the values first: their own __eq__
    assert DEFAULT_VALUES.vocabulary_growth == DEFAULT_RUBRIC.vocabulary_growth


@pytest.mark.parametrize("version", sorted(PUBLISHED))
def test_values_equal_to_a_model_hash_as_it_does_so_dicts_and_sets_find_either(
    version: str,
) -> None:
    """``==`` and ``hash`` agree across the two forms: values equal to a published model
    (the whole rubric and each part) hash as that model does, so a dict keyed by the model
    finds the values and a set holds one of the pair, not two."""
    model = PUBLISHED[version]
    values = RubricValues(model.model_dump())
    assert values == model
    assert hash(values) == hash(model)
    assert {model: "card"}[values] == "card"  # type: ignore[index]
    assert len({model, values}) == 1
    for name in type(model).model_fields:
        part = getattr(model, name)
        if isinstance(part, BaseModel):
            assert getattr(values, name) == part
            assert hash(getattr(values, name)) == hash(part), name
    assert hash(DEFAULT_VALUES) == hash(DEFAULT_RUBRIC)


def test_a_copy_of_the_values_with_changes_is_the_models_copy() -> None:
    """``model_copy(update=...)``, the way a notebook varies a rubric, gives the pydantic
    model (the values themselves stay read-only), at the top and for a part."""
    window = DEFAULT_VALUES.model_copy(update={"window": 30, "version": "1.2.0-w30"})
    assert isinstance(window, SimulationRubric)
    assert (window.window, window.version) == (30, "1.2.0-w30")
    assert window.model_dump(exclude={"window", "version"}) == DEFAULT_RUBRIC.model_dump(
        exclude={"window", "version"}
    )
    unit = DEFAULT_VALUES.vocabulary_growth.model_copy(update={"unit": "mechanic"})
    assert unit == DEFAULT_RUBRIC.vocabulary_growth.model_copy(update={"unit": "mechanic"})
    assert type(unit) is type(DEFAULT_RUBRIC.vocabulary_growth)
    assert DEFAULT_VALUES.window == 50  # unchanged
