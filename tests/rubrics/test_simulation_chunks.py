"""Scoring a fleet a chunk of runs at a time (issue 25: scoring's peak memory) gives the
same scorecards as one pass over the whole fleet."""

from __future__ import annotations

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.rubrics import simulation


def _cards(universe: tk.Universe) -> list[dict[str, object]]:
    return [c.to_dict() for c in tk.score_universe(universe, series=False)]


def test_scores_are_the_same_whatever_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "fleet" / "*")
    assert len(universe.slugs) >= 3
    whole = _cards(universe)
    monkeypatch.setattr(simulation, "SCORE_CHUNK_TICKS", 1)  # every run a chunk of its own
    assert len(simulation.run_chunks(universe.ticks["slug"], 1)) == len(universe.slugs)
    assert _cards(universe) == whole


def test_chunks_hold_whole_runs_of_about_the_given_size() -> None:
    slugs = pl.Series(["a"] * 3 + ["b"] * 4 + ["c"] * 2 + ["d"] * 9)
    assert simulation.run_chunks(slugs, 7) == [(0, 7), (7, 2), (9, 9)]
    assert simulation.run_chunks(slugs, 100) == [(0, 18)]


def test_runs_whose_rows_are_apart_are_one_chunk() -> None:
    slugs = pl.Series(["a", "a", "b", "a", "b"])
    assert simulation.run_chunks(slugs, 1) == [(0, 5)]
