"""A run's rates per 10 ticks are Python's ``count / (ticks / 10)`` to the last digit, and
the same whether the run is scored alone or beside others: Polars divides a column of more
than one row by a constant through its reciprocal (76 / 10 = 7.6000000000000005), so the
rates of a run of 76 ticks once changed in the last digit with the runs beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk


def _rates(card: tk.Scorecard) -> tuple[float, float]:
    values = dict(card.dimensions.select("dimension", "value").iter_rows())
    return values["vocabulary_growth"], values["novel_subtype_rate"]


@pytest.mark.parametrize("window", [100_000, 33])
def test_rates_are_exact_and_the_same_alone_and_in_a_fleet(tmp_path: Path, window: int) -> None:
    for i in range(12):
        shutil.copytree(SAMPLE_RUNS / "universes" / "harbor-town", tmp_path / f"harbor-{i:02d}")
    (alone,) = tk.score_universe(tk.load_universes(tmp_path / "harbor-00"), window=window)
    fleet = tk.score_universe(tk.load_universes(tmp_path / "*"), window=window, series=False)
    assert len(fleet) == 12
    ticks = int(alone.measures_of("groundedness")["ticks"] or 0)
    novel = int(alone.measures_of("vocabulary_growth")["novel"] or 0)
    new = int(alone.measures_of("novel_subtype_rate")["new_values"] or 0)
    assert ticks % 10 and novel and new  # a count of ticks 10 does not divide
    expected = (novel / (ticks / 10), new / (ticks / 10))
    assert expected != (novel / (ticks * 0.1), new / (ticks * 0.1))  # (what Polars did)
    assert _rates(alone) == expected
    assert {_rates(card) for card in fleet} == {expected}
    # the per-tick series ends on the card's value
    assert alone.series is not None
    last = alone.series.filter(alone.series["tick"] == alone.series["tick"].max())
    series = dict(last.select("dimension", "value").iter_rows())
    assert (series["vocabulary_growth"], series["novel_subtype_rate"]) == expected
