"""A comparison's epoch moves with every option that moves its numbers (found in review:
``--window`` and ``--pair-by`` changed p-values under one epoch)."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

PAIR = SAMPLE_RUNS / "compare"


def _epoch(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    args = ["compare", str(PAIR / "a"), str(PAIR / "b"), "--format", "json", *extra]
    assert main(args) == 0
    return str(json.loads(capsys.readouterr().out)["epoch"])


def test_window_and_pairing_each_give_their_own_epoch(capsys: pytest.CaptureFixture[str]) -> None:
    plain = _epoch(capsys)
    windowed = _epoch(capsys, "--window", "5")
    paired = _epoch(capsys, "--pair-by", "slug")
    assert len({plain, windowed, paired}) == 3
    assert _epoch(capsys) == plain  # the same options, the same epoch
