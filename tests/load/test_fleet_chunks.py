"""A fleet's tick files are parsed a chunk of runs at a time (issue 25): a tick number
repeated within a run is found whatever the chunking, and each run gets exactly its own
rows. A run is in one load once: the same folder named twice is read once, and two
folders sharing a name (a slug) are refused, never mixed under one slug."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import tick_v1, tick_v2, write_run

from toolkit.errors import InputError
from toolkit.load import _run_build as B
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


@pytest.mark.parametrize("rows", [1, 7, 10_000])  # runs normalised alone, some, all together
@pytest.mark.parametrize("chunk", [1, 6, 10_000])
def test_a_repeated_tick_is_reported_and_dropped_whatever_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, rows: int
) -> None:
    fleet = _fleet(tmp_path)
    monkeypatch.setattr(B, "CHUNK_FILES", chunk)
    monkeypatch.setattr(B, "NORMALISE_ROWS", rows)
    u = load_universes(fleet / "run-*")
    assert _duplicates(u) == ["tick_3.json"]  # the later file in listing order is dropped
    counts = dict(u.ticks.group_by("slug").len().iter_rows())
    assert counts == {"run-0": 5, "run-1": 5, "run-2": 5, "run-3": 5}
    for slug in counts:  # each run's slice holds its own rows, as a load of it alone does
        alone = load_universe(fleet / slug)
        assert u.run(slug).ticks.equals(alone.ticks)
        assert alone.ticks["slug"].unique().to_list() == [slug]


@pytest.mark.parametrize("chunk", [1, 10_000])
def test_two_folders_sharing_a_name_are_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """They were loaded under one slug: the second run's ticks 2 dropped as duplicates,
    its tick 3 mixed into the first run's rows (and scoring failed on unsorted ticks)."""
    first = write_run(tmp_path / "a" / "vale", [tick_v1(1), tick_v1(2)])
    second = write_run(tmp_path / "b" / "vale", [tick_v1(2), tick_v1(3)])
    monkeypatch.setattr(B, "CHUNK_FILES", chunk)
    with pytest.raises(InputError) as caught:
        U.load_runs([first, tmp_path / "c-no-run", second])
    line = str(caught.value)
    assert "two runs share the slug 'vale'" in line
    assert str(first) in line and str(second) in line
    assert "\n" not in line


def test_the_same_folder_named_twice_is_loaded_once(tmp_path: Path) -> None:
    """It was loaded twice: every tick doubled under the one slug, with no issue."""
    run = write_run(tmp_path / "runs" / "vale", [tick_v1(t) for t in range(1, 4)])
    other = write_run(tmp_path / "runs" / "moor", [tick_v2(t) for t in range(1, 3)])
    alone = load_universe(run)
    spelt = [run, other, str(run), tmp_path / "runs" / ".." / "runs" / "vale"]
    u = U.load_runs(spelt)
    assert u.slugs == ["vale", "moor"]
    assert u.run("vale").ticks.equals(alone.ticks)
    assert u.run("moor").ticks.height == 2
    assert u.issues.height == 0
    assert u.paths["vale"] == run  # the first spelling names it


def test_a_symlink_to_a_run_given_beside_it_is_the_same_run(tmp_path: Path) -> None:
    run = write_run(tmp_path / "vale", [tick_v1(1), tick_v1(2)])
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "vale").symlink_to(run)
    u = U.load_runs([run, tmp_path / "links" / "vale"])
    assert u.ticks.height == 2 and u.issues.height == 0


def test_load_universes_refuses_shared_slugs_with_the_same_line(tmp_path: Path) -> None:
    write_run(tmp_path / "a" / "vale", [tick_v1(1)])
    write_run(tmp_path / "b" / "vale", [tick_v1(1)])
    with pytest.raises(InputError, match="two runs share the slug 'vale'"):
        load_universes(tmp_path / "*" / "vale")
    # overlapping patterns name one run twice: read once
    u = load_universes(tmp_path / "a" / "*", tmp_path / "a" / "vale")
    assert u.ticks.height == 1


def _frames(u: U.Universe) -> tuple[object, ...]:
    issues = u.issues.sort("path", "reason")
    return (u.ticks, issues, tuple(sorted(u.warnings)))


@pytest.mark.parametrize("budget", [1, 1_500, 4_000])
def test_a_chunk_of_large_files_is_parsed_a_few_bytes_at_a_time_to_the_same_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """Tick files are read and parsed about CHUNK_BYTES at a time, even within a run: a
    fleet of large files never sits in memory whole. Runs given out of slug order, a
    repeated tick number split from its first file, a repeated key and a file over the
    reading limit all come out as one bulk read gives them."""
    zeta = write_run(tmp_path / "b" / "zeta", [tick_v2(t) for t in range(1, 8)])
    alpha = _fleet(tmp_path / "a")  # run-2 repeats tick 3
    pad = {"action_text": "x" * 700}  # ~1 KiB files
    (zeta / "tick_summaries" / "ticks" / "tick_4.json").write_text(
        json.dumps(tick_v2(4, **pad))[:-1] + ', "kind": "execute"}'  # a repeated key
    )
    (zeta / "tick_summaries" / "ticks" / "tick_6.json").write_text(
        json.dumps(tick_v2(6, action_text="y" * 5_000))  # over the limit below
    )
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "4000")
    runs = [zeta, *sorted(alpha.iterdir())]
    whole = U.load_runs(runs)
    sizes: list[int] = []
    real = B.parse_raw

    def spy(slugs: Any, files: Any, blobs: Any, notes: Any = None) -> Any:
        sizes.append(sum(map(len, blobs)))
        return real(slugs, files, blobs, notes)

    monkeypatch.setattr(B, "parse_raw", spy)
    monkeypatch.setattr(B, "CHUNK_BYTES", budget)
    apart = U.load_runs(runs)
    assert len(sizes) > 3  # the fleet was parsed in several reads
    assert max(sizes) < budget + 4_000  # at most one file past the budget
    for got, want in zip(_frames(apart), _frames(whole), strict=True):
        assert got == want if isinstance(got, tuple) else got.equals(want)  # type: ignore[attr-defined]
    assert "tick_6.json" in " ".join(apart.issues["path"].to_list())
    assert any("duplicate key 'kind'" in w for w in apart.warnings)
    assert _duplicates(apart) == ["tick_3.json"]
    slugs = apart.ticks["slug"]
    assert slugs.rle().len() == slugs.n_unique() == 5  # each run's rows together


def test_chunks_normalised_together_give_the_frames_of_each_chunk_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several chunks' raw rows are normalised in one call (NORMALISE_ROWS): runs given
    out of slug order, a repeated tick number and a file that cannot be used come out as
    when each chunk is normalised on its own (one run a chunk)."""
    zeta = write_run(tmp_path / "b" / "zeta", [tick_v2(t) for t in range(1, 8)])
    (zeta / "tick_summaries" / "ticks" / "tick_5.json").write_text('{"tick_id": "five"}')
    alpha = _fleet(tmp_path / "a")  # run-2 repeats tick 3
    runs = [zeta, *sorted(alpha.iterdir(), reverse=True)]
    monkeypatch.setattr(B, "CHUNK_FILES", 1)
    monkeypatch.setattr(B, "NORMALISE_ROWS", 1)
    alone = U.load_runs(runs)
    monkeypatch.setattr(B, "NORMALISE_ROWS", 10_000)
    together = U.load_runs(runs)
    assert together.slugs == alone.slugs == ["zeta", "run-3", "run-2", "run-1", "run-0"]
    assert together.ticks.equals(alone.ticks)
    assert together.issues.equals(alone.issues)
    assert together.warnings == alone.warnings
    assert _duplicates(together) == ["tick_3.json"]
    assert any(p.endswith("tick_5.json") for p in together.issues["path"].to_list())
