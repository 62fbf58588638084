"""A fleet's scoring builds the dimensions' green and red ranges once (issue 38:
``dimension_ranges`` passed to ``dimension_rows``), and the cards are the ones each run
gets when its dimensions build the ranges themselves."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.rubrics.simulation import dimensions
from toolkit.rubrics.simulation import score as simulation_score
from toolkit.rubrics.simulation._values import DEFAULT_VALUES


def test_ranges_are_written_from_the_rubrics_thresholds() -> None:
    grounded = DEFAULT_VALUES.groundedness.model_copy(update={"ok_min": 0.9, "fail_below": 0.5})
    rubric = DEFAULT_VALUES.model_copy(update={"groundedness": grounded})
    ranges = dimensions.dimension_ranges(rubric)
    assert ranges["groundedness"] == (">= 0.9", "< 0.5")  # by hand, from the two values
    assert dimensions.dimension_ranges(DEFAULT_VALUES)["groundedness"] == (">= 0.95", "< 0.85")


def test_given_ranges_are_the_ones_a_dimension_shows() -> None:
    marked = {key: (f"green {key}", f"red {key}") for key in dimensions.DIMENSIONS}
    dims = dimensions.dimension_rows(None, None, DEFAULT_VALUES, "observer", marked)
    assert dims
    assert all((d.green, d.red) == (f"green {d.key}", f"red {d.key}") for d in dims)


def test_a_fleet_scored_with_the_ranges_built_once_equals_it_built_a_run_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert len(universe.slugs) >= 3
    once = [c.to_dict() for c in tk.score_universe(universe, series=False)]
    calls: list[object] = []
    built = dimensions.dimension_ranges

    def counted(rubric: object) -> dict[str, tuple[str, str]]:
        calls.append(rubric)
        return built(rubric)  # type: ignore[arg-type]

    monkeypatch.setattr(simulation_score, "dimension_ranges", counted)
    assert [c.to_dict() for c in tk.score_universe(universe, series=False)] == once
    assert len(calls) == 1  # once for the fleet, not once a run

    def per_run(row: object, fan: object, rubric: object, source: object, _: object) -> object:
        return dimensions.dimension_rows(row, fan, rubric, source)  # type: ignore[arg-type]

    monkeypatch.setattr(simulation_score, "dimension_rows", per_run)
    assert [c.to_dict() for c in tk.score_universe(universe, series=False)] == once
