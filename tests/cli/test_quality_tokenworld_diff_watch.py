"""What token-world users expect of ``toolkit quality``: ``--diff A:B`` (token-world's
``diff SLUG A B``: the net change between two ticks, edges that vanished with a removed
node, property changes) and ``--watch`` (token-world's ``watch``: follow a run as its
ticks arrive)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SNAPSHOTS_DDL, tick_v1, write_run

from toolkit.cli import main


def graph(nodes: dict[str, dict[str, object]], edges: list[tuple[str, str]]) -> str:
    """networkx node-link JSON with node properties, as the engine writes it."""
    return json.dumps(
        {
            "directed": True,
            "multigraph": False,
            "graph": {},
            "nodes": [{"id": n, "type": "entity", "properties": p} for n, p in nodes.items()],
            "edges": [{"source": a, "target": b} for a, b in edges],
        }
    )


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """Snapshots before ticks 1, 5 and 10: mara->mill is added at 5 and gone again at 10;
    the well is removed at 10 with its edge; mara's mood changes."""
    root = write_run(tmp_path / "vale", [tick_v1(n) for n in range(1, 12)])
    snapshots = {
        1: graph({"mara": {"mood": "calm"}, "well": {}, "mill": {}}, [("mara", "well")]),
        5: graph(
            {"mara": {"mood": "calm"}, "well": {}, "mill": {}},
            [("mara", "well"), ("mara", "mill")],
        ),
        10: graph({"mara": {"mood": "angry"}, "mill": {}, "oven": {}}, [("oven", "mill")]),
    }
    with sqlite3.connect(root / "universe.db") as conn:
        conn.executescript(SNAPSHOTS_DDL)
        conn.executemany(
            "INSERT INTO graph_snapshots (tick_id, graph_json, node_count, edge_count)"
            " VALUES (?, ?, 0, 0)",
            snapshots.items(),
        )
    conn.close()
    return root


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_tick_diff_is_the_net_change_with_vanished_edges_and_properties(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["quality", str(run), "--diff", "1:10", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert (data["from_tick"], data["to_tick"]) == (1, 10)
    assert data["nodes_added"] == ["oven"] and data["nodes_removed"] == ["well"]
    assert data["edges_added"] == ["oven->mill"]  # mara->mill came and went: netted out
    assert data["edges_removed"] == ["mara->well"]
    assert data["edges_removed_with_nodes"] == ["mara->well"]  # it went with the well
    assert data["property_changes"] == [
        {"node": "mara", "property": "mood", "old": "calm", "new": "angry"}
    ]


def test_tick_diff_text_lists_every_change_and_runs_forward(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["quality", str(run), "--diff", "10:1"], capsys)  # swapped
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("vale · ticks 1 -> 10 (the net change between their")
    assert "  nodes +1 -1, edges +1 -1, properties 1 changed" in lines
    assert "  of which with a removed node: mara->well" in lines
    assert lines[-2:] == ["  properties:", "    mara.mood: 'calm' -> 'angry'"]
    _, inside, _ = run_cli(["quality", str(run), "--diff", "1..5"], capsys)
    assert "  edges added: mara->mill" in inside.splitlines()  # inside the span: a change


def test_tick_diff_without_that_snapshot_names_the_ticks_kept(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["quality", str(run), "--diff", "1:7"], capsys)
    assert code == 2
    assert "--diff='1:7': no snapshot at tick 7 (snapshots kept: 1..10)" in err


def test_watch_reprints_the_card_as_ticks_arrive(tmp_path: Path) -> None:
    """A run folder appended to while ``--watch`` follows it (bounded: --watch-for)."""
    root = write_run(tmp_path / "growing", [tick_v1(n) for n in range(1, 6)])
    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    args = ["quality", str(root), "--watch", "--interval", "0.2", "--watch-for", "12"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        time.sleep(4)  # the first card (5 ticks) is printed
        ticks = root / "tick_summaries" / "ticks"
        for n in range(6, 9):
            (ticks / f"tick_{n}.json").write_text(json.dumps(tick_v1(n)))
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    cards = [line for line in out.splitlines() if line.startswith("Growing · ")]
    assert cards[0] == "Growing · all 5 ticks (window 50)"
    assert cards[-1] == "Growing · all 8 ticks (window 50)"
    assert len(cards) <= 4  # reprinted on change only, not every 0.2 s
    assert out.count("Ctrl-C stops") == len(cards)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # time.sleep(nan) raised ValueError, time.sleep(inf) OverflowError (tracebacks)
        (["--interval", "nan"], "--interval=nan: must be more than 0 seconds"),
        (["--interval", "inf"], "--interval=inf: must be more than 0 seconds, at most 86400"),
        # a NaN deadline is never reached: the watch ran on past --watch-for
        (["--watch-for", "nan"], "--watch-for=nan: must be 0 seconds or more"),
    ],
)
def test_bad_watch_options_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    import toolkit.cli._watch as watch_module

    looks = []
    real_sleep = time.sleep

    def bounded_sleep(seconds: float) -> None:  # the real sleep, but never for ever
        looks.append(seconds)
        assert len(looks) < 5, "the watch ran on past its --watch-for"
        real_sleep(min(seconds, 0.01))

    monkeypatch.setattr(watch_module.time, "sleep", bounded_sleep)
    root = write_run(tmp_path / "r", [tick_v1(1)])
    code, _, err = run_cli(["quality", str(root), "--watch", *extra], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_watch_refuses_a_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    code, _, err = run_cli(["quality", str(root), "--watch", "--gate"], capsys)
    assert code == 2 and "--watch=True: --watch reprints one run's card" in err


def test_watch_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    import signal

    root = write_run(tmp_path / "r", [tick_v1(n) for n in range(1, 4)])
    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "quality", str(root), "--watch", "--interval", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until the first card is out
            if "Ctrl-C stops" in proc.stdout.readline():
                break
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err


def test_the_tick_stamp_sees_a_same_size_rewrite_with_its_old_time(tmp_path: Path) -> None:
    """A tick file rewritten in place with as many bytes and its modification time as
    before (a coarse filesystem clock, or a writer that restores it): the stamp changes
    (the inode's change time moves with every write), so --watch scores it again."""
    from toolkit.cli._watch import tick_stamp

    root = write_run(tmp_path / "r", [tick_v1(n) for n in range(1, 4)])
    tick = root / "tick_summaries" / "ticks" / "tick_2.json"
    before = tick.stat()
    stamp = tick_stamp(root)
    time.sleep(0.05)  # past the kernel's timestamp granularity
    text = tick.read_text()
    same_size = text.replace('"refused": false', '"refused": true ')
    assert same_size != text and len(same_size) == len(text)
    tick.write_text(same_size)
    os.utime(tick, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert tick.stat().st_size == before.st_size and tick.stat().st_mtime_ns == before.st_mtime_ns
    assert tick_stamp(root) != stamp


def test_a_run_folder_gone_for_a_round_keeps_the_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: the run folder removed for a moment ended --watch with exit 2
    after its first card; the watch now says it is waiting and goes on."""
    import argparse

    import toolkit.cli._watch as watch_module
    from toolkit.errors import InputError

    root = write_run(tmp_path / "r", [tick_v1(1)])
    looks: list[int] = []
    scored: list[int] = []

    def stamp(_root: Path) -> tuple[tuple[str, int, int, int, int], ...]:
        looks.append(1)
        return (("ticks/tick_1.json", len(looks), 0, 0, 0),)  # a change every look

    def score(_args: Any, _rubric: Any) -> str:
        scored.append(1)
        if len(scored) == 2:
            raise InputError(str(root), "no such run folder")
        return "card"

    monkeypatch.setattr(watch_module, "tick_stamp", stamp)
    monkeypatch.setattr(watch_module, "score_one", score)
    monkeypatch.setattr(watch_module, "card_text", lambda card, width, colour: str(card))
    args = argparse.Namespace(run_dir=str(root), interval=0.01, watch_for=0.3, watch=True)
    assert watch_module.watch_run(args, None) == 0  # type: ignore[arg-type]
    out, _ = capsys.readouterr()
    assert len(scored) > 3 and "no such run folder" in out and out.count("card") > 2


def test_watch_for_without_watch_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: it was ignored (the card printed once), where view refuses it."""
    root = write_run(tmp_path / "r", [tick_v1(1)])
    code, out, err = run_cli(["quality", str(root), "--watch-for", "3"], capsys)
    assert code == 2 and "--watch-for=3.0: goes with --watch" in err
    assert "Traceback" not in err and out == ""
