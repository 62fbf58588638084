"""An independent, loop-by-loop implementation of the eight rules (bench/naive.py) agrees
with the column-wise rubric on every sample run."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, SAMPLE_RUNS, script_module

import toolkit as tk


def _naive() -> ModuleType:
    return script_module(ROOT / "bench" / "naive.py", register=True)


@pytest.mark.parametrize("folder", ["fleet", "universes"])
def test_naive_reference_and_rubric_agree_on_every_status(folder: str) -> None:
    naive = _naive()
    root = SAMPLE_RUNS / folder
    expected = naive.score_fleet(naive.load_fleet(Path(root)))
    cards = tk.score_universe(tk.load_universes(root / "*"), series=False)
    got = {c.subject: dict(c.dimensions.select("dimension", "status").iter_rows()) for c in cards}
    assert got == expected
    assert len(got) >= 3
