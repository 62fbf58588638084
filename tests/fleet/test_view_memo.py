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
    st = os.stat(f)
    assert one == ((str(f), (2, 5, st.st_ctime_ns, st.st_ino)),)
    os.utime(f, ns=(6, 6))
    assert stamp_of([str(f)]) != one
    assert stamp_of(["s3://bucket/run"]) is None
    assert stamp_of([str(tmp_path / "gone")]) == ()


def test_a_calibration_result_that_arrives_changes_the_round(tmp_path: Path) -> None:
    """A find read whole every round (a calibration result) is part of what a round
    compares, so its arrival makes ``--watch`` write the site again."""
    root = _fleet(tmp_path / "runs")
    memo = Memo()
    collect([root], memo=memo)
    before = memo.state()
    shutil.copy(SAMPLE_RUNS / "calibration" / "persona" / "calibration.json", root)
    memo.start_round()
    now = collect([root], memo=memo)
    assert now.calibration is not None
    arrived = memo.state()
    assert arrived != before
    memo.start_round()
    collect([root], memo=memo)
    assert memo.state() == arrived  # the next round, with nothing changed, is the same


def test_a_replayed_find_keeps_its_lenient_read_notes(tmp_path: Path) -> None:
    """An iteration log with a file skipped (UTF-16) gives a "read leniently" note; the
    next round, nothing changed, must give the same notes (else --watch writes the site
    again at once, without the note)."""
    root = _fleet(tmp_path / "runs")
    (root / "tally-loop" / "iter-9.yaml").write_bytes(b"\xff\xfeb\x00a\x00d\x00")
    memo = Memo()
    first = collect([root], memo=memo)
    assert any("iter-9.yaml" in n for n in first.notes)
    memo.start_round()
    second = collect([root], memo=memo)
    assert memo.misses == 0
    assert second.notes == first.notes


def test_a_same_size_rewrite_within_the_mtime_resolution_is_scored_again(tmp_path: Path) -> None:
    """A tick file rewritten in place with as many bytes, its modification time the same
    (a coarse filesystem clock: 1 s, 2 s on FAT, a jiffy on ext4): still a change."""
    root = _fleet(tmp_path / "runs")
    tick = root / "beta" / "tick_summaries" / "ticks" / "tick_6.json"
    memo = Memo()
    collect([root], memo=memo)
    before = tick.stat()
    text = tick.read_text()
    same_size = text.replace('"refused": false', '"refused": true ')
    assert same_size != text and len(same_size) == len(text)
    tick.write_text(same_size)
    os.utime(tick, ns=(before.st_atime_ns, before.st_mtime_ns))  # within one clock tick
    memo.start_round()
    collect([root], memo=memo)
    assert memo.misses == 1
