"""The run cache's key notices an edit that keeps a file's size and restores its mtime.

``touch -d``, ``cp -p`` over a file, or ``os.utime`` can put the old modification time
back after a same-size edit; the key also holds each file's change time (which no user
call can set back) and inode, so such an edit is read again, never served stale.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
from conftest import tick_v1, write_run

from toolkit.load._run_listing import list_run
from toolkit.load.universe import load_universe


def test_same_size_edit_with_the_old_mtime_restored_is_read_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [tick_v1(n) for n in (1, 2, 3)])
    tick = run / "tick_summaries" / "ticks" / "tick_2.json"
    first = load_universe(run, cache=True)
    assert first.ticks.filter(pl.col("tick") == 2)["verb"][0] == "walk"
    before = tick.stat()
    text = tick.read_text(encoding="utf-8")
    changed = text.replace('"walk"', '"talk"')
    assert len(changed) == len(text) and json.loads(changed)
    tick.write_text(changed, encoding="utf-8")
    os.utime(tick, ns=(before.st_atime_ns, before.st_mtime_ns))  # the old mtime, put back
    after = tick.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    again = load_universe(run, cache=True)
    assert again.ticks.filter(pl.col("tick") == 2)["verb"][0] == "talk"


def test_an_unchanged_run_keeps_its_key(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [tick_v1(n) for n in (1, 2)])
    assert list_run(run).key == list_run(run).key  # reading changes nothing in the key
