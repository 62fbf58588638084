"""A fleet's tick files are parsed a chunk of runs at a time (issue 25): a tick number
repeated within a run is found whatever the chunking, and each run gets exactly its own
rows, also when two runs given to ``load_runs`` share a folder name (the one case where a
slug's rows are checked across chunks)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import tick_v1, tick_v2, write_run

from toolkit.load import universe as U
from toolkit.load.universe import load_universe, load_universes


def _fleet(root: Path) -> Path:
    for i in range(4):
        run = write_run(
            root / f"run-{i}", [tick_v1(t) if t % 2 else tick_v2(t) for t in range(1, 6)]
        )
        if i == 2:  # tick 3 twice: tick_3.json and tick_03.json
            ticks = run / "tick_summaries" / "ticks"
            shutil.copy(ticks / "tick_3.json", ticks / "tick_03.json")
    return root


def _duplicates(u: U.Universe) -> list[str]:
    return sorted(
        Path(p).name
        for p, r in u.issues.select("path", "reason").iter_rows()
        if r == "duplicate tick number"
    )


@pytest.mark.parametrize("chunk", [1, 6, 10_000])
def test_a_repeated_tick_is_reported_and_dropped_whatever_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    fleet = _fleet(tmp_path)
    monkeypatch.setattr(U, "CHUNK_FILES", chunk)
    u = load_universes(fleet / "run-*")
    assert _duplicates(u) == ["tick_3.json"]  # the later file in listing order is dropped
    counts = dict(u.ticks.group_by("slug").len().iter_rows())
    assert counts == {"run-0": 5, "run-1": 5, "run-2": 5, "run-3": 5}
    for slug in counts:  # each run's slice holds its own rows, as a load of it alone does
        alone = load_universe(fleet / slug)
        assert u.run(slug).ticks.equals(alone.ticks)
        assert alone.ticks["slug"].unique().to_list() == [slug]


def test_runs_sharing_a_folder_name_are_checked_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run(tmp_path / "a" / "vale", [tick_v1(1), tick_v1(2)])
    write_run(tmp_path / "b" / "vale", [tick_v1(2), tick_v1(3)])
    monkeypatch.setattr(U, "CHUNK_FILES", 1)  # each run a chunk of its own
    u = U.load_runs([tmp_path / "a" / "vale", tmp_path / "b" / "vale"])  # no slug check
    dropped = {p for p, r in u.issues.select("path", "reason").iter_rows() if "duplicate" in r}
    assert dropped == {str(tmp_path / "b" / "vale" / "tick_summaries" / "ticks" / "tick_2.json")}
