"""`toolkit outcome --all` gives the same JSON with the local engine on disk, on Dask, and
with both engines reading the logs from S3 (moto's server on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ITERATION_LOGS, S3

from toolkit.cli import main
from toolkit.fleet.engine import map_partitions
from toolkit.fleet.outcome import (
    find_iteration_logs,
    score_log_partition,
    score_outcome_logs,
)


def outcome_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["outcome", "--all", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def s3_logs(s3: S3, generated_logs: Path) -> dict[str, str]:
    """The sample logs and the generated logs, uploaded to the S3 server."""
    return {
        "sample": s3.upload(ITERATION_LOGS, "logs/sample"),
        "generated": s3.upload(generated_logs, "logs/generated"),
    }


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_outcome_fleet_json_is_identical_on_disk_from_s3_and_on_dask_from_s3(
    which: str,
    generated_logs: Path,
    s3: S3,
    s3_logs: dict[str, str],
    dask_client: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = ITERATION_LOGS if which == "sample" else generated_logs
    dask = ["--engine", "dask", "--scheduler", dask_client.scheduler.address,
            "--partition-size", "2"]  # fmt: skip
    url, option = s3_logs[which], ["--storage-option", s3.option]
    local = outcome_json([str(folder)], capsys)
    on_dask = outcome_json([str(folder), *dask], capsys)
    from_s3 = outcome_json([url, *option], capsys)
    on_dask_from_s3 = outcome_json([url, *dask, *option], capsys)
    logs = json.loads(local)["logs"]
    assert len(logs) == (1 if which == "sample" else 6)
    assert all(log["scored"] > 0 for log in logs)
    if which == "sample":  # the sample log's artifacts and issue count came along
        assert [(log["log"], log["issues"]) for log in logs] == [("tally-loop", 1)]
    assert on_dask == local
    assert from_s3 == local
    assert on_dask_from_s3 == local


def test_dask_tasks_get_log_urls_and_options_and_read_the_logs_themselves(
    s3: S3, s3_logs: dict[str, str], dask_client: Any
) -> None:
    """What travels to a worker is the partition of URLs and the storage options; the
    worker lists and fetches the objects (the client reads none of them)."""
    options = {"endpoint_url": s3.endpoint}
    urls = [str(u) for u in find_iteration_logs(s3_logs["generated"], storage_options=options)]
    done, failures = map_partitions(
        score_log_partition,
        [urls[:3], urls[3:], ["s3://no-such-bucket-i17logs/log"]],
        None,
        None,
        (),
        options,
        engine="dask",
        client=dask_client,
    )
    assert [name for name, _ in done] == urls
    local = score_outcome_logs(urls, storage_options=options, workers=1)
    assert {k: v[0].scores.equals(local[k][0].scores) for k, v in done} == dict.fromkeys(urls, True)
    assert len(failures) == 1 and "no-such-bucket-i17logs" in str(failures[0])
