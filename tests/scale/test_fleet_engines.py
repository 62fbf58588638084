"""One answer everywhere: `toolkit quality --all` gives the same JSON with the local
engine on disk, the Dask engine on disk and the Dask engine reading the fleet from S3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import S3, SAMPLE_FLEET

import toolkit as tk
from toolkit.cli import main
from toolkit.engine import map_partitions, score_fleet, score_runs


def fleet_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["quality", "--all", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def three_ways(
    folder: Path, url: str, s3: S3, client: Any, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str, str]:
    local = fleet_json([str(folder)], capsys)
    dask = ["--engine", "dask", "--scheduler", client.scheduler.address, "--partition-size", "3"]
    on_disk = fleet_json([str(folder), *dask], capsys)
    over_s3 = fleet_json([url, *dask, "--storage-option", s3.option], capsys)
    return local, on_disk, over_s3


def test_sample_fleet_json_is_identical_local_dask_and_dask_over_s3(
    s3: S3, s3_sample_fleet: str, dask_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    local, on_disk, over_s3 = three_ways(SAMPLE_FLEET, s3_sample_fleet, s3, dask_client, capsys)
    runs = json.loads(local)["runs"]
    assert len(runs) == 16
    assert len({r["verdict"] for r in runs}) > 1  # a fleet with a spread, not all alike
    assert on_disk == local
    assert over_s3 == local


def test_generated_fleet_json_is_identical_local_dask_and_dask_over_s3(
    s3: S3,
    generated_fleet: Path,
    s3_generated_fleet: str,
    dask_client: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    local, on_disk, over_s3 = three_ways(
        generated_fleet, s3_generated_fleet, s3, dask_client, capsys
    )
    assert len(json.loads(local)["runs"]) == 8
    assert on_disk == local
    assert over_s3 == local


def test_score_fleet_in_python_matches_the_local_engine_frame(
    dask_client: Any, generated_fleet: Path
) -> None:
    local = score_fleet(generated_fleet)
    dask = score_fleet(generated_fleet, engine="dask", client=dask_client, partition_size=2)
    assert (local.engine, local.partitions) == ("local", 1)
    assert (dask.engine, dask.partitions, dask.ok) == ("dask", 4, True)
    assert dask.frame.equals(local.frame)
    assert [c.subject for c in dask.cards] == [f"run-{i:04d}" for i in range(8)]
    # the client given is left open for the caller
    assert dask_client.status == "running"


def test_a_failed_partition_names_its_runs_and_the_others_still_count(
    s3: S3, s3_sample_fleet: str, dask_client: Any
) -> None:
    good = [str(SAMPLE_FLEET / "run-0000"), str(SAMPLE_FLEET / "run-0001")]
    missing = ["s3://no-such-bucket-i17/run-0000"]
    cards, failures = map_partitions(
        score_runs,
        [good, missing],
        None,
        None,
        False,
        {"endpoint_url": s3.endpoint},
        engine="dask",
        client=dask_client,
    )
    assert [c.subject for c in cards] == ["run-0000", "run-0001"]
    assert len(failures) == 1
    assert failures[0].runs == tuple(missing)
    assert "InputError" in failures[0].error
    assert "no-such-bucket-i17" in str(failures[0])


def test_a_run_over_s3_loads_the_same_frames_as_on_disk(s3: S3, s3_sample_fleet: str) -> None:
    options = {"endpoint_url": s3.endpoint}
    remote = tk.load_universe(f"{s3_sample_fleet}/run-0003", storage_options=options)
    local = tk.load_universe(SAMPLE_FLEET / "run-0003")
    assert remote.slug == "run-0003"
    assert remote.ticks.height == local.ticks.height > 0
    assert remote.ticks.drop("source_file").equals(local.ticks.drop("source_file"))
    assert remote.checkpoints.equals(local.checkpoints)
    assert (remote.names, remote.conserved) == (local.names, local.conserved)
    assert remote.ticks["source_file"][0].startswith("sweeps/sample/run-0003/tick_summaries/")


def test_a_glob_over_s3_picks_the_matching_runs(s3: S3, s3_sample_fleet: str) -> None:
    both = tk.load_universes(
        f"{s3_sample_fleet}/run-000[12]", storage_options={"endpoint_url": s3.endpoint}
    )
    assert both.slugs == ["run-0001", "run-0002"]


def test_a_local_cache_of_runs_in_s3_is_never_stale(
    s3: S3, tmp_path: Path, generated_fleet: Path
) -> None:
    """The cache is keyed on each object's name, size and ETag: rewriting one tick object
    in place (same name, same size) is seen on the next load."""
    url = s3.upload(generated_fleet / "run-0001", "cached/run-0001")
    options = {"endpoint_url": s3.endpoint}
    first = tk.load_universe(url, cache=tmp_path, storage_options=options)
    assert len(list(tmp_path.glob("run-0001-*/manifest.json"))) == 1
    again = tk.load_universe(url, cache=tmp_path, storage_options=options)
    assert again.ticks.equals(first.ticks)
    key = "cached/run-0001/tick_summaries/ticks/tick_60.json"
    body = s3.client.get_object(Bucket="sweeps", Key=key)["Body"].read()
    old = json.loads(body)["action_text"]
    assert old
    same_size = body.replace(json.dumps(old).encode(), json.dumps("X" * len(old)).encode(), 1)
    assert len(same_size) == len(body) and same_size != body
    s3.client.put_object(Bucket="sweeps", Key=key, Body=same_size)
    changed = tk.load_universe(url, cache=tmp_path, storage_options=options)
    assert changed.ticks.filter(changed.ticks["tick"] == 60)["action_text"][0] == "X" * len(old)


def test_a_cache_url_is_refused_rather_than_written_as_a_local_folder(tmp_path: Path) -> None:
    with pytest.raises(tk.InputError, match="cache in object storage is not supported yet"):
        tk.load_universe(SAMPLE_FLEET / "run-0001", cache="s3://sweeps/cache")
    assert not Path("s3:").exists()
