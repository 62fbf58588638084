"""Scoring a fleet a chunk of runs at a time (issue 25: scoring's peak memory) gives the
same scorecards as one pass over the whole fleet, and each run's card the frames it has
when the run is scored alone."""

from __future__ import annotations

import polars as pl
import pytest
from conftest import SAMPLE_RUNS
from polars.testing import assert_frame_equal

import toolkit as tk
from toolkit.rubrics import simulation
from toolkit.rubrics.simulation import score as simulation_score
from toolkit.scorecard import Dimension, Scorecard


def _cards(universe: tk.Universe) -> list[dict[str, object]]:
    return [c.to_dict() for c in tk.score_universe(universe, series=False)]


def test_scores_are_the_same_whatever_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert len(universe.slugs) >= 3
    whole = _cards(universe)
    monkeypatch.setattr(simulation_score, "SCORE_CHUNK_TICKS", 1)  # every run a chunk of its own
    assert len(simulation.run_chunks(universe.ticks["slug"], 1)) == len(universe.slugs)
    assert _cards(universe) == whole


def test_chunks_hold_whole_runs_of_about_the_given_size() -> None:
    slugs = pl.Series(["a"] * 3 + ["b"] * 4 + ["c"] * 2 + ["d"] * 9)
    assert simulation.run_chunks(slugs, 7) == [(0, 7), (7, 2), (9, 9)]
    assert simulation.run_chunks(slugs, 100) == [(0, 18)]


def test_runs_whose_rows_are_apart_are_one_chunk() -> None:
    slugs = pl.Series(["a", "a", "b", "a", "b"])
    assert simulation.run_chunks(slugs, 1) == [(0, 5)]


def test_a_fleets_cards_hold_the_frames_each_run_scored_alone_holds() -> None:
    """A fleet's cards hold slices of one dimensions frame and one measures frame (issue
    25: 300 cards of two small frames each cost about 9 MiB): each slice is the frame
    the run's own card has when the run is scored alone."""
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    fleet = tk.score_universe(universe, series=False)
    assert [c.subject for c in fleet] == universe.slugs
    for card in fleet:
        (alone,) = tk.score_universe(universe.run(card.subject), series=False)
        assert card.dimensions["subject"].unique().to_list() == [card.subject]
        assert_frame_equal(card.dimensions, alone.dimensions)
        assert_frame_equal(card.measures, alone.measures)
        assert card.measures.height > 0


def test_frames_of_subjects_without_dimensions_are_empty_slices() -> None:
    dim = Dimension("a", "A", 1.0, "OK", "1/1", "≥ 1", "< 0", measures={"m": 2})
    frames = Scorecard.dimensions_frames([("x", []), ("y", [dim]), ("z", [])])
    assert [f.height for f in frames] == [0, 1, 0]
    assert frames[1]["subject"].to_list() == ["y"]
    measures = Scorecard.measures_frames([("x", [dim]), ("y", [])])
    assert [m.rows() for m in measures] == [[("x", "a", "m", 2.0)], []]


def test_a_fleet_of_up_to_two_chunks_is_scored_in_one_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass costs a fixed ~7 ms; a small fleet's temporaries are small: one pass."""
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    passes: list[int] = []
    real = simulation.window_scores

    def counted(ticks: pl.DataFrame, *args: object) -> object:
        passes.append(ticks.height)
        return real(ticks, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(simulation_score, "window_scores", counted)
    monkeypatch.setattr(simulation_score, "SCORE_CHUNK_TICKS", (universe.ticks.height + 1) // 2)
    tk.score_universe(universe, series=False)
    assert passes == [universe.ticks.height]
    passes.clear()
    monkeypatch.setattr(simulation_score, "SCORE_CHUNK_TICKS", universe.ticks.height // 3)
    tk.score_universe(universe, series=False)
    assert len(passes) > 1 and sum(passes) == universe.ticks.height


def test_the_series_are_the_same_whatever_the_chunk_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    one_pass = simulation.dimension_series(universe)
    per_run = simulation.run_chunks(universe.ticks["slug"], 1)
    assert len(per_run) == len(universe.slugs)
    chunked = simulation.dimension_series(universe, chunks=per_run)
    assert chunked.equals(one_pass)
    assert chunked.schema == one_pass.schema and chunked.height == one_pass.height > 0
    # and what the cards carry: each run's series, scored a run at a time or all at once
    whole = {c.subject: c.series for c in simulation.score_universe(universe)}
    monkeypatch.setattr(simulation_score, "SCORE_CHUNK_TICKS", 1)
    for card in simulation.score_universe(universe):
        assert card.series is not None and card.series.equals(whole[card.subject])
