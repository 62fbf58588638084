"""An independent, loop-by-loop implementation of the eight rules (bench/naive.py) agrees
with the column-wise rubric on every sample run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_RUNS

import toolkit as tk


def _naive():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("naive", ROOT / "bench" / "naive.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["naive"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder", ["fleet", "universes"])
def test_naive_reference_and_rubric_agree_on_every_status(folder: str) -> None:
    naive = _naive()
    root = SAMPLE_RUNS / folder
    expected = naive.score_fleet(naive.load_fleet(Path(root)))
    cards = tk.score_universe(tk.load_universes(root / "*"), series=False)
    got = {c.subject: dict(c.dimensions.select("dimension", "status").iter_rows()) for c in cards}
    assert got == expected
    assert len(got) >= 3
