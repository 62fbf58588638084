"""``toolkit view --watch`` scores only what changed: the memo replays the site records of
finds whose files are unchanged, and a round with the memo gives the same records as a
cold collect of the same folders."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import SAMPLE_RUNS, tick_v1, write_run

from toolkit.fleet.view import collect
from toolkit.fleet.view.memo import Memo, stamp_of
from toolkit.views.site import run_document


def _docs(runs: list) -> dict[str, dict]:
    return {r.id: run_document(r) for r in runs}


def _fleet(root: Path) -> Path:
    for name in ("alpha", "beta"):
        write_run(root / name, [tick_v1(n) for n in range(1, 7)])
    shutil.copytree(SAMPLE_RUNS / "iteration_logs" / "tally-loop", root / "tally-loop")
    return root


def test_an_unchanged_fleet_is_replayed_whole_and_equals_a_cold_collect(tmp_path: Path) -> None:
    root = _fleet(tmp_path / "runs")
    memo = Memo()
    first = collect([root], memo=memo)
    assert memo.hits == 0 and memo.misses >= 2
    memo.start_round()
    second = collect([root], memo=memo)
    assert memo.misses == 0 and memo.hits == len(memo.seen) >= 2
    assert _docs(second.runs) == _docs(first.runs) == _docs(collect([root]).runs)
    assert second.notes == first.notes


def test_a_changed_run_alone_is_scored_again(tmp_path: Path) -> None:
    root = _fleet(tmp_path / "runs")
    memo = Memo()
    collect([root], memo=memo)
    before = memo.state()
    # beta's sixth tick becomes a refusal: its file changes, alpha's do not.
    tick = root / "beta" / "tick_summaries" / "ticks" / "tick_6.json"
    tick.write_text(json.dumps(tick_v1(6, refused=True, refusal_reason="not allowed")))
    os.utime(tick, ns=(1, 1))  # a different time whatever the clock's resolution
    memo.start_round()
    again = collect([root], memo=memo)
    assert memo.misses == 1 and memo.hits == len(memo.seen) - 1
    assert memo.state() != before
    assert _docs(again.runs) == _docs(collect([root]).runs)


def test_a_new_run_is_scored_and_a_removed_one_forgotten(tmp_path: Path) -> None:
    root = _fleet(tmp_path / "runs")
    memo = Memo()
    collect([root], memo=memo)
    write_run(root / "gamma", [tick_v1(n) for n in range(1, 4)])
    shutil.rmtree(root / "alpha")
    memo.start_round()
    now = collect([root], memo=memo)
    assert memo.misses == 1  # gamma; beta (and the log) replayed
    assert {r.id for r in now.runs} == {r.id for r in collect([root]).runs}
    assert not any("alpha" in path for _, path in memo.entries)


def test_a_stamp_sees_size_and_time_and_a_url_has_none(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text("{}")
    os.utime(f, ns=(5, 5))
    one = stamp_of([str(f)])
    assert one == ((str(f), 2, 5),)
    os.utime(f, ns=(6, 6))
    assert stamp_of([str(f)]) != one
    assert stamp_of(["s3://bucket/run"]) is None
    assert stamp_of([str(tmp_path / "gone")]) == ()
