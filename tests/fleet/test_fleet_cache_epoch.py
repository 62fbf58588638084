"""A cached fleet never mixes epochs: the Parquet cache holds loaded rows only (no score,
no epoch), so a fleet rescored from a warm cache under a changed threshold carries the
new epoch on every card and the numbers of a cold score under that rubric."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import SAMPLE_RUNS

from toolkit.epoch import spec_epoch
from toolkit.fleet.engine import score_fleet
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, load_simulation_rubric

#: The published simulation rubric with one threshold changed (a new version).
CHANGED = "rubric: simulation\nversion: 1.2.0-local\ngroundedness:\n  ok_min: 0.9\n"


def _fleet(tmp_path: Path, runs: int = 4) -> Path:
    fleet = tmp_path / "fleet"
    for run in sorted((SAMPLE_RUNS / "fleet").iterdir())[:runs]:
        shutil.copytree(run, fleet / run.name)
    return fleet


def _manifests(cache: Path) -> dict[Path, tuple[int, bytes]]:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in cache.rglob("manifest.json")}


def test_a_warm_cache_rescored_under_a_new_threshold_carries_only_the_new_epoch(
    tmp_path: Path,
) -> None:
    fleet, cache = _fleet(tmp_path), tmp_path / "cache"
    path = tmp_path / "rubric.yaml"
    path.write_text(CHANGED)
    changed = load_simulation_rubric(path)
    old_epoch, new_epoch = spec_epoch(DEFAULT_RUBRIC).id, spec_epoch(changed).id
    assert old_epoch != new_epoch

    first = score_fleet(fleet, cache=str(cache))  # fills the cache under the old rubric
    assert {c.meta["epoch"] for c in first.cards} == {old_epoch}
    written = _manifests(cache)
    assert len(written) == 4
    for _, blob in written.values():  # the cache holds rows, never a score or an epoch
        assert old_epoch.encode() not in blob and b'"epoch"' not in blob

    warm = score_fleet(fleet, rubric=changed, cache=str(cache))
    assert _manifests(cache) == written  # every run came from the cache, none rebuilt
    cold = score_fleet(fleet, rubric=changed)
    assert [c.meta["epoch"] for c in warm.cards] == [new_epoch] * 4
    assert [c.rubric_version for c in warm.cards] == ["1.2.0-local"] * 4
    assert warm.frame.equals(cold.frame)
    assert [c.verdict for c in warm.cards] == [c.verdict for c in cold.cards]
    assert [c.meta["input_digest"] for c in warm.cards] == [
        c.meta["input_digest"] for c in cold.cards
    ]
    # the threshold moved at least one status, so old rows would have shown
    assert not first.frame.equals(warm.frame)
