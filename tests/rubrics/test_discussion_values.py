"""The default discussion rubric's plain values (what ``toolkit discussion`` scores with,
without pydantic: issue 38) answer every read exactly as the pydantic model does, and a
user's rubric still goes through the models."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_RUNS
from pydantic import BaseModel

from toolkit.cli import main
from toolkit.errors import RubricError
from toolkit.load.discussion import load_discussions
from toolkit.load.ratings import open_rating_source
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    METRIC_KEYS,
    DiscussionSpec,
    compare,
    load_discussion_spec,
    score_discussion,
    success_check,
)
from toolkit.rubrics.discussion._values import (
    DEFAULT_DATA,
    DEFAULT_VALUES,
    PUBLISHED_DATA,
    SpecValues,
)
from toolkit.rubrics.discussion.epoch import discussion_epoch
from toolkit.rubrics.discussion.spec import PUBLISHED, PUBLISHED_ENGAGEMENT_SCALES
from toolkit.views.discussion import render_discussion_json

GAMES = SAMPLE_RUNS / "discussions"

#: Each published version's fingerprint as the code before this change gave it (main at
#: 423d925, where the versions were written as models): the data moved, it did not change.
FINGERPRINTS = {
    "1.0.0": "834ddb169fe3f0e5",
    "1.1.0": "e48ce7ba79fa8158",
    "1.2.0": "aaf1b3117dc23972",
}


def _reads(model: Any, values: Any, where: str) -> None:
    """Every field of ``model``, read from ``values`` as an attribute, is equal and of the
    same type (nested models, dicts of models and tuples of models compared field by
    field)."""
    if isinstance(model, BaseModel):
        for name in type(model).model_fields:
            _reads(getattr(model, name), getattr(values, name), f"{where}.{name}")
    elif isinstance(model, dict):
        assert (type(values), list(values)) == (dict, list(model)), where
        for key in model:
            _reads(model[key], values[key], f"{where}[{key}]")
    elif isinstance(model, tuple) and any(isinstance(m, BaseModel) for m in model):
        assert (type(values), len(values)) == (tuple, len(model)), where
        for i, (mine, theirs) in enumerate(zip(model, values, strict=True)):
            _reads(mine, theirs, f"{where}[{i}]")
    else:
        assert (values, type(values)) == (model, type(model)), where


def test_the_default_values_read_as_the_default_rubric() -> None:
    _reads(DEFAULT_DISCUSSION_SPEC, DEFAULT_VALUES, "spec")


def test_the_default_values_answer_the_models_methods() -> None:
    model, values = DEFAULT_DISCUSSION_SPEC, DEFAULT_VALUES
    for key in METRIC_KEYS:
        assert values.threshold(key) == model.threshold(key)
        assert values.metrics[key].guidance == model.metrics[key].guidance
    assert "Fixes to try:" in values.metrics["coherence"].guidance  # 1.1.0's fixes
    assert values.fingerprint() == model.fingerprint() == FINGERPRINTS["1.2.0"]
    scale, theirs = values.engagement_scale, model.engagement_scale
    assert scale.hint == theirs.hint == "4 or more yes answers suggest a score of 3 or more."
    assert scale.required == theirs.required == ()  # no packaged question is required
    assert [scale.level(s).label for s in range(1, 6)] == [
        theirs.level(s).label for s in range(1, 6)
    ]
    with pytest.raises(KeyError):
        scale.level(6)
    assert scale.fingerprint() == theirs.fingerprint() == PUBLISHED_ENGAGEMENT_SCALES["2L-1.0.0"]


@pytest.mark.parametrize("mode", ["python", "json"])
def test_the_values_dump_as_the_model_both_ways(mode: str) -> None:
    """The plain form is the model's ``model_dump`` (key order included), and the model
    validated from the plain form is the default model."""
    plain, model = (
        DEFAULT_VALUES.model_dump(mode=mode),
        DEFAULT_DISCUSSION_SPEC.model_dump(mode=mode),
    )
    assert plain == model
    assert json.dumps(plain, default=list) == json.dumps(model, default=list)  # same order
    assert DiscussionSpec.model_validate(plain) == DEFAULT_DISCUSSION_SPEC
    assert SpecValues(DEFAULT_DISCUSSION_SPEC.model_dump()).model_dump(mode=mode) == plain
    excluded = DEFAULT_VALUES.model_dump(mode=mode, exclude={"rubric", "version"})
    assert excluded == DEFAULT_DISCUSSION_SPEC.model_dump(mode=mode, exclude={"rubric", "version"})
    # pydantic's JSON form holds lists where the model keeps tuples
    assert isinstance(DEFAULT_VALUES.model_dump(mode="json")["game_terms"], list)
    assert isinstance(DEFAULT_VALUES.model_dump()["game_terms"], tuple)


@pytest.mark.parametrize("version", sorted(PUBLISHED_DATA))
def test_each_published_versions_data_is_its_model_unchanged(version: str) -> None:
    model = PUBLISHED[version]
    assert model.fingerprint() == FINGERPRINTS[version]
    values: Any = SpecValues(
        {**PUBLISHED_DATA[version], "engagement_scale": DEFAULT_DATA["engagement_scale"]}
    )
    _reads(model, values, version)
    assert values.model_dump(mode="json") == model.model_dump(mode="json")
    assert values.fingerprint() == FINGERPRINTS[version]


@pytest.mark.parametrize("engagement", ["humans", "judge"])
@pytest.mark.parametrize("require_cost", [False, True])
def test_the_values_have_the_models_epoch(require_cost: bool, engagement: str) -> None:
    options: dict[str, Any] = {"require_cost": require_cost, "engagement": engagement}
    by_values = discussion_epoch(DEFAULT_VALUES, None, **options)
    assert by_values == discussion_epoch(DEFAULT_DISCUSSION_SPEC, None, **options)
    assert by_values.id == discussion_epoch(DEFAULT_DISCUSSION_SPEC, {}, **options).id


def test_the_samples_scored_with_the_values_get_the_models_cards() -> None:
    games = load_discussions([GAMES])
    ratings = open_rating_source(str(GAMES / "ratings.csv"))
    baseline = score_discussion(
        load_discussions([GAMES / "baseline"]), spec=DEFAULT_DISCUSSION_SPEC
    )
    rendered = []
    for spec in (DEFAULT_VALUES, DEFAULT_DISCUSSION_SPEC):
        report = score_discussion(games, ratings=ratings, spec=spec)
        rendered.append(
            render_discussion_json(
                report, compare(baseline, report, spec), success_check(report, spec)
            )
        )
    assert rendered[0] == rendered[1]
    assert '"epoch"' in rendered[0]


def test_the_values_are_read_only_compare_by_data_and_pickle() -> None:
    with pytest.raises(AttributeError):
        DEFAULT_VALUES.min_passed = 4  # type: ignore[misc]
    with pytest.raises(AttributeError):
        _ = DEFAULT_VALUES.no_such_field  # type: ignore[attr-defined]
    copy = pickle.loads(pickle.dumps(DEFAULT_VALUES))
    assert copy == DEFAULT_VALUES == DEFAULT_DISCUSSION_SPEC
    assert DEFAULT_DISCUSSION_SPEC == DEFAULT_VALUES
    values, older = DEFAULT_VALUES, PUBLISHED["1.1.0"]
    assert values != older  # the values first: their own __eq__
    assert copy.role.general_statements == DEFAULT_DISCUSSION_SPEC.role.general_statements


def test_a_copy_of_the_values_with_changes_is_the_models_copy() -> None:
    copy = DEFAULT_VALUES.model_copy(update={"min_passed": 4, "version": "1.2.0-m4"})
    assert isinstance(copy, DiscussionSpec)
    assert (copy.min_passed, copy.version) == (4, "1.2.0-m4")
    assert copy.model_dump(exclude={"min_passed", "version"}) == DEFAULT_DISCUSSION_SPEC.model_dump(
        exclude={"min_passed", "version"}
    )
    assert DEFAULT_VALUES.min_passed == 5  # unchanged


def test_a_users_rubric_is_still_validated_by_the_models() -> None:
    spec = load_discussion_spec({"version": "9.0.0", "min_passed": 4})
    assert isinstance(spec, DiscussionSpec) and spec.min_passed == 4
    with pytest.raises(RubricError, match="min_passed"):
        load_discussion_spec({"version": "9.0.0", "min_passed": 9})
    with pytest.raises(RubricError, match="bump its version"):
        load_discussion_spec({"version": "1.2.0", "min_passed": 4})


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "version: 9.0.0\nmin_passed: 9\n",
            "min_passed=9: Input should be less than or equal to 7",
        ),
        ("version: 9.0.0\nrole:\n  accusation: true\n", "a number, not true or false"),
        ("version: 1.2.0\nmin_passed: 4\n", "the rubric differs from published version 1.2.0"),
    ],
)
def test_a_bad_rubric_file_is_refused_in_one_line_by_the_cli(
    text: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(text, encoding="utf-8")
    assert main(["discussion", str(GAMES / "game-pass.json"), "--rubric", str(rubric)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and shown in err and str(rubric) in err


def test_the_values_hash_as_the_model_does_part_by_part() -> None:
    """``==`` and ``hash`` agree across the two forms, as for the simulation rubric: each
    part of the values hashes as the equal model part does (so a dict keyed by one finds
    the other), and the whole rubric, whose ``metrics`` is a mapping, is unhashable like
    the model (before, the values hashed their repr while the model raised)."""
    with pytest.raises(TypeError):
        hash(DEFAULT_DISCUSSION_SPEC)
    with pytest.raises(TypeError):
        hash(DEFAULT_VALUES)
    parts = [k for k, v in DEFAULT_VALUES.model_dump().items() if isinstance(v, dict)]
    hashed = 0
    for name in parts:
        model, values = getattr(DEFAULT_DISCUSSION_SPEC, name), getattr(DEFAULT_VALUES, name)
        try:
            expected = hash(model)
        except TypeError:
            with pytest.raises(TypeError):
                hash(values)
            continue
        assert hash(values) == expected, name
        assert {model: name}[values] == name
        hashed += 1
    assert hashed >= 3  # success, memory, role, engagement_scale are models of their own
