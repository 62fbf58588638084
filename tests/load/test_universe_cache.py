"""The Parquet cache of loaded runs: used when fresh, never trusted when stale."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest
from conftest import tick_v1, write_run

import toolkit.load.universe as universe_mod
from toolkit.load._cache import FOLDER_NAME
from toolkit.load.universe import load_universe, load_universes


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Records which runs were loaded from their files (not from the cache)."""
    seen: list[list[str]] = []
    real = universe_mod._build

    def spy(listings, progress):  # type: ignore[no-untyped-def]
        seen.append([listing.slug for listing in listings])
        return real(listings, progress)

    monkeypatch.setattr(universe_mod, "_build", spy)
    return seen


def fleet(tmp_path: Path) -> Path:
    for slug in ("a", "b"):
        write_run(tmp_path / slug, [tick_v1(n) for n in range(1, 6)], snapshots=[(10, 3, 4)])
    return tmp_path


def test_second_load_reads_only_the_cache(tmp_path: Path, builds: list[list[str]]) -> None:
    root = fleet(tmp_path / "runs")
    cold = load_universes(root / "*", cache=True)
    warm = load_universes(root / "*", cache=True)
    assert builds == [["a", "b"]]
    assert warm.ticks.equals(cold.ticks)
    assert warm.checkpoints.equals(cold.checkpoints)
    assert warm.names == cold.names and warm.warnings == cold.warnings
    assert (root / "a" / FOLDER_NAME / "manifest.json").is_file()


def test_changed_tick_file_invalidates_only_its_run(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    root = fleet(tmp_path / "runs")
    load_universes(root / "*", cache=True)
    tick = root / "b" / "tick_summaries" / "ticks" / "tick_3.json"
    tick.write_text(json.dumps(tick_v1(3, refused=True, refusal_reason="low_confidence")))
    again = load_universes(root / "*", cache=True)
    assert builds[-1] == ["b"]
    assert again.run("b").ticks.filter(pl.col("tick") == 3)["status"][0] == "refused"


def test_same_size_rewrite_is_caught_by_mtime(tmp_path: Path, builds: list[list[str]]) -> None:
    root = fleet(tmp_path / "runs")
    load_universes(root / "*", cache=True)
    tick = root / "a" / "tick_summaries" / "ticks" / "tick_2.json"
    text = tick.read_text()
    changed = text.replace('"walk"', '"talk"')
    assert len(changed) == len(text)
    tick.write_text(changed)
    st = tick.stat()
    os.utime(tick, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    again = load_universes(root / "*", cache=True)
    assert builds[-1] == ["a"]
    assert again.run("a").ticks.filter(pl.col("tick") == 2)["verb"][0] == "talk"


@pytest.mark.parametrize("change", ["added", "deleted", "truncated"])
def test_added_deleted_and_truncated_files_invalidate(
    tmp_path: Path, builds: list[list[str]], change: str
) -> None:
    root = fleet(tmp_path / "runs")
    load_universes(root / "*", cache=True)
    ticks = root / "a" / "tick_summaries" / "ticks"
    if change == "added":
        (ticks / "tick_6.json").write_text(json.dumps(tick_v1(6)))
        expected = 6
    elif change == "deleted":
        (ticks / "tick_5.json").unlink()
        expected = 4
    else:
        (ticks / "tick_5.json").write_text('{"schema_version": 1, "tick')
        expected = 4
    again = load_universes(root / "*", cache=True)
    assert builds[-1] == ["a"]
    assert again.run("a").ticks.height == expected
    if change == "truncated":
        assert again.run("a").issues["reason"].str.contains("not valid JSON").all()


def test_corrupt_cache_file_is_rebuilt_not_fatal(tmp_path: Path, builds: list[list[str]]) -> None:
    root = fleet(tmp_path / "runs")
    load_universes(root / "*", cache=True)
    for parquet in (root / "a" / FOLDER_NAME).glob("ticks-*.parquet"):
        parquet.write_bytes(b"PAR1 garbage")
    (root / "b" / FOLDER_NAME / "manifest.json").write_text("{not json")
    again = load_universes(root / "*", cache=True)
    assert builds[-1] == ["a", "b"]
    assert again.ticks.height == 10
    third = load_universes(root / "*", cache=True)
    assert len(builds) == 2 and third.ticks.height == 10  # rebuilt entries are good again


def test_cache_folder_elsewhere_leaves_runs_untouched(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    root = write_run(tmp_path / "runs" / "a", [tick_v1(1)])
    store = tmp_path / "cache"
    load_universe(root, cache=store)
    load_universe(root, cache=store)
    assert len(builds) == 1
    assert not (root / FOLDER_NAME).exists()
    assert len(list(store.iterdir())) == 1


def test_no_cache_by_default(tmp_path: Path, builds: list[list[str]]) -> None:
    root = write_run(tmp_path / "a", [tick_v1(1)])
    load_universe(root)
    load_universe(root)
    assert len(builds) == 2 and not (root / FOLDER_NAME).exists()


def test_issues_are_cached_too(tmp_path: Path, builds: list[list[str]]) -> None:
    root = write_run(tmp_path / "a", [tick_v1(1)])
    (root / "tick_summaries" / "ticks" / "tick_2.json").write_text("[]")
    first = load_universe(root, cache=True)
    second = load_universe(root, cache=True)
    assert len(builds) == 1
    assert second.issues.equals(first.issues) and second.issues.height == 1


def test_one_broken_file_in_a_fleet_is_isolated(tmp_path: Path) -> None:
    root = fleet(tmp_path / "runs")
    (root / "b" / "tick_summaries" / "ticks" / "tick_9.json").write_text('{"refused": "perhaps"}')
    u = load_universes(root / "*")
    assert u.ticks.group_by("slug").len().sort("slug").rows() == [("a", 5), ("b", 5)]
    assert u.run("b").issues.height == 1 and u.run("a").issues.height == 0
