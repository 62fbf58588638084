"""One answer everywhere: `toolkit quality --all` gives the same JSON with the local
engine on disk, the Dask engine on disk and the Dask engine reading the fleet from S3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import S3, SAMPLE_FLEET

import toolkit as tk
from toolkit.cli import main
from toolkit.fleet.engine import map_partitions, score_fleet, score_runs
from toolkit.io.source import RemoteSource


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


def test_keys_with_glob_characters_are_read_as_the_objects_they_name(
    s3: S3, tmp_path: Path
) -> None:
    """A run named ``run[1]*?`` is fetched object by object, never expanded as a pattern
    (which would read nothing, or another run's files)."""
    odd = tmp_path / "run[1]*?"
    shutil.copytree(SAMPLE_FLEET / "run-0001", odd)
    url = s3.upload(odd, "globs/run[1]*?")
    s3.upload(SAMPLE_FLEET / "run-0002", "globs/run1x")  # what run[1]*? would match
    remote = tk.load_universe(url, storage_options={"endpoint_url": s3.endpoint})
    local = tk.load_universe(odd)
    assert remote.issues.height == 0
    assert remote.ticks.drop("source_file").equals(local.ticks.drop("source_file"))


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_a_cache_of_runs_in_s3_is_never_stale(
    s3: S3, tmp_path: Path, generated_fleet: Path, where: str
) -> None:
    """The cache (a local folder, or a prefix in S3) is keyed on each object's name, size
    and ETag: rewriting one tick object in place (same name, same size) is seen on the
    next load."""
    url = s3.upload(generated_fleet / "run-0001", f"cached-{where}/run-0001")
    cache = tmp_path if where == "folder" else f"s3://sweeps/cache-stale/{tmp_path.name}"
    options = {"endpoint_url": s3.endpoint}
    first = tk.load_universe(url, cache=cache, storage_options=options)
    if where == "folder":
        assert len(list(tmp_path.glob("run-0001-*/manifest.json"))) == 1
    else:
        got = s3.client.list_objects_v2(Bucket="sweeps", Prefix=f"cache-stale/{tmp_path.name}/")
        assert sorted(o["Key"].rsplit("/", 1)[1][:6] for o in got["Contents"]) == [
            "manife",
            "ticks-",
        ]
    again = tk.load_universe(url, cache=cache, storage_options=options)
    assert again.ticks.equals(first.ticks)
    key = f"cached-{where}/run-0001/tick_summaries/ticks/tick_60.json"
    body = s3.client.get_object(Bucket="sweeps", Key=key)["Body"].read()
    old = json.loads(body)["action_text"]
    assert old
    same_size = body.replace(json.dumps(old).encode(), json.dumps("X" * len(old)).encode(), 1)
    assert len(same_size) == len(body) and same_size != body
    s3.client.put_object(Bucket="sweeps", Key=key, Body=same_size)
    changed = tk.load_universe(url, cache=cache, storage_options=options)
    assert changed.ticks.filter(changed.ticks["tick"] == 60)["action_text"][0] == "X" * len(old)


@pytest.fixture
def fetched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every object path fetched through RemoteSource.cat_many (the real one runs)."""
    seen: list[str] = []
    real = RemoteSource.cat_many

    def spy(self: RemoteSource, paths: Any) -> Any:
        seen.extend(paths)
        return real(self, paths)

    monkeypatch.setattr(RemoteSource, "cat_many", spy)
    return seen


def test_a_warm_load_from_a_cache_in_s3_fetches_no_tick_object(
    s3: S3, s3_generated_fleet: str, fetched: list[str]
) -> None:
    """Runs in S3, cache in S3: the second load lists the runs, fetches one manifest and
    one Parquet object a run (each in one batched request) and not a single tick file."""
    options = {"endpoint_url": s3.endpoint}
    cache = "s3://sweeps/cache-warm"
    cold = tk.load_universes(f"{s3_generated_fleet}/*", cache=cache, storage_options=options)
    assert sum("/tick_summaries/ticks/" in p for p in fetched) == 8 * 60
    fetched.clear()
    warm = tk.load_universes(f"{s3_generated_fleet}/*", cache=cache, storage_options=options)
    assert not [p for p in fetched if not p.startswith("sweeps/cache-warm/")]
    assert sorted(p.rsplit("/", 1)[1][:6] for p in fetched) == ["manife"] * 8 + ["ticks-"] * 8
    assert warm.ticks.equals(cold.ticks) and warm.checkpoints.equals(cold.checkpoints)
    assert (warm.names, warm.warnings, warm.issues.rows()) == (
        cold.names,
        cold.warnings,
        cold.issues.rows(),
    )


def test_quality_all_with_a_cache_in_s3_prints_the_json_it_prints_without(
    s3: S3, s3_sample_fleet: str, dask_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`quality --all s3://… --cache s3://…`, here and on Dask workers, cold and warm, is
    the JSON of the same command without a cache; the warm run uses the cached entries
    (a note planted in one entry's manifest reaches the scorecard)."""
    option = ["--storage-option", s3.option]
    plain = fleet_json([s3_sample_fleet, *option], capsys)
    cache = "s3://sweeps/cache-cli"
    dask = ["--engine", "dask", "--scheduler", dask_client.scheduler.address]
    assert fleet_json([s3_sample_fleet, *option, "--cache", cache, *dask], capsys) == plain
    listed = s3.client.list_objects_v2(Bucket="sweeps", Prefix="cache-cli/")["Contents"]
    assert len(listed) == 2 * 16  # a manifest and a Parquet object per run
    assert fleet_json([s3_sample_fleet, *option, "--cache", cache], capsys) == plain
    assert fleet_json([s3_sample_fleet, *option, "--cache", cache, *dask], capsys) == plain
    (manifest,) = [o["Key"] for o in listed if "/run-0003-" in o["Key"] and "manifest" in o["Key"]]
    entry = json.loads(s3.client.get_object(Bucket="sweeps", Key=manifest)["Body"].read())
    entry["warnings"].append("run-0003: planted in the cache by the test")
    s3.client.put_object(Bucket="sweeps", Key=manifest, Body=json.dumps(entry).encode())
    fleet = score_fleet(
        s3_sample_fleet,
        engine="dask",
        client=dask_client,
        cache=cache,
        storage_options={"endpoint_url": s3.endpoint},
    )
    (card,) = [c for c in fleet.cards if c.subject == "run-0003"]
    assert "planted in the cache by the test" in " ".join(card.warnings)


def test_a_local_run_with_its_cache_in_s3(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`toolkit quality RUN --cache s3://…`: the entry is written to S3, the warm answer is
    the cold one, and a tick file changed on disk is read again."""
    run = tmp_path / "run-0005"
    shutil.copytree(SAMPLE_FLEET / "run-0005", run)
    args = ["quality", str(run), "--format", "json", "--storage-option", s3.option]
    cache = ["--cache", "s3://sweeps/cache-local-run"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    for _ in range(2):
        assert main([*args, *cache]) == 0
        assert capsys.readouterr().out == plain
    listed = s3.client.list_objects_v2(Bucket="sweeps", Prefix="cache-local-run/")["Contents"]
    assert [o["Key"].split("/")[1][:9] for o in listed] == ["run-0005-"] * 2
    last = max(run.glob("tick_summaries/ticks/tick_*.json"), key=lambda p: int(p.stem[5:]))
    record = json.loads(last.read_text())
    record["action_text"] = "A changed action on disk."
    last.write_text(json.dumps(record))
    options = {"endpoint_url": s3.endpoint}
    again = tk.load_universe(run, cache="s3://sweeps/cache-local-run", storage_options=options)
    assert "A changed action on disk." in again.ticks["action_text"].to_list()


def test_load_runs_over_s3_reads_a_run_named_twice_once_and_refuses_a_shared_slug(
    s3: S3, s3_sample_fleet: str
) -> None:
    from toolkit.errors import InputError
    from toolkit.load.universe import load_runs

    options = {"endpoint_url": s3.endpoint}
    run = f"{s3_sample_fleet}/run-0001"
    alone = load_runs([run], storage_options=options)
    twice = load_runs([run, f"{run}/", f"{s3_sample_fleet}/run-0002"], storage_options=options)
    assert twice.slugs == ["run-0001", "run-0002"]
    assert twice.run("run-0001").ticks.equals(alone.ticks)
    other = s3.upload(SAMPLE_FLEET / "run-0002", "elsewhere/run-0001")
    with pytest.raises(InputError) as caught:
        load_runs([run, other], storage_options=options)
    assert "two runs share the slug 'run-0001'" in str(caught.value)
    assert run in str(caught.value) and other in str(caught.value)
