"""A boolean where a rubric expects a number (found in review: ``min: true`` was read
as 1.0) is refused in one line naming the file, the field and the value; a field typed
as a boolean still takes one, and the published rubrics still load."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import RubricError
from toolkit.rubrics.outcome.spec import load_outcome_rubric
from toolkit.rubrics.persona.spec import load_persona_rubric
from toolkit.rubrics.simulation.spec import load_simulation_rubric

_BANDS = """\
version: 2.3.0-team
bands:
  - {band: excellent, min: 0.85}
  - {band: good, min: true}
  - {band: fair, min: 0.50}
  - {band: poor, min: 0.0}
"""


def test_a_band_min_of_true_is_refused_naming_file_field_and_value(tmp_path: Path) -> None:
    rubric = tmp_path / "outcome.yaml"
    rubric.write_text(_BANDS)
    with pytest.raises(RubricError) as caught:
        load_outcome_rubric(rubric)
    line = str(caught.value)
    assert "\n" not in line
    assert str(rubric) in line and "bands.1.min" in line and "True" in line


@pytest.mark.parametrize(
    ("load", "override", "field"),
    [
        (load_simulation_rubric, {"groundedness": {"ok_min": True}}, "groundedness.ok_min"),
        (load_simulation_rubric, {"refusal_cluster": {"fail_min": False}}, "refusal_cluster"),
        (load_persona_rubric, {"consistency_pairs": True}, "consistency_pairs"),
        (load_persona_rubric, {"hard_multiplier": True}, "hard_multiplier"),
    ],
)
def test_a_boolean_for_a_number_is_refused_in_every_rubric(
    load: object, override: dict[str, object], field: str
) -> None:
    assert callable(load)
    with pytest.raises(RubricError, match=rf"{field}.*a number, not true or false"):
        load({"version": "9.9.9-team", **override})


def test_a_boolean_field_still_takes_a_boolean() -> None:
    rubric = load_outcome_rubric({"version": "2.3.0-team", "landed_in_eval_runs": False})
    assert rubric.landed_in_eval_runs is False


def test_the_published_rubrics_load() -> None:
    for version in ("2.1.0", "3.0.0"):
        assert load_outcome_rubric({"version": version}).version == version
