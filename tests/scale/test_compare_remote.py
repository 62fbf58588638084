"""`toolkit compare` of two fleets in S3, on the Dask engine, prints what it prints for the
same fleets on disk: the scenario keys come from each run's universe.yaml in the bucket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import S3, SAMPLE_RUNS

from toolkit.cli import main

A = SAMPLE_RUNS / "compare" / "a"
B = SAMPLE_RUNS / "compare" / "b"


def compare_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["compare", *args, "--format", "json", "--resamples", "499"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_compare_over_s3_on_dask_equals_compare_on_disk(
    s3: S3, dask_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url_a, url_b = s3.upload(A, "compare/a"), s3.upload(B, "compare/b")
    local = compare_json([str(A), str(B)], capsys)
    remote = compare_json(
        [url_a, url_b, "--engine", "dask", "--scheduler", dask_client.scheduler.address,
         "--storage-option", s3.option],
        capsys,
    )  # fmt: skip
    assert remote["pairs"] == local["pairs"] == 12  # paired by the scenario in the bucket
    assert remote["only_a"] == []  # by slug, the 12 second runs of A would be unpaired
    assert remote["dimensions"] == local["dimensions"]
    assert remote["noise"] == local["noise"]
    assert (remote["a"], remote["b"]) == ("a", "b")


def test_an_outcome_arm_on_dask_over_s3_is_the_arm_on_disk(
    s3: S3, generated_logs: Path, dask_client: Any
) -> None:
    from toolkit.fleet.compare import arm_scores

    url = s3.upload(generated_logs, "compare-logs")
    local = arm_scores(generated_logs, "auto")
    remote = arm_scores(
        url, "outcome", engine="dask", scheduler=dask_client.scheduler.address,
        partition_size=2, storage_options={"endpoint_url": s3.endpoint},
    )  # fmt: skip
    assert local.family == remote.family == "outcome"
    assert remote.notes == local.notes  # no failed partition
    key = ["run", "dimension"]
    assert remote.frame.sort(key).equals(local.frame.sort(key))
    assert local.frame["task"].n_unique() > 1  # iterations carry tasks to pair by
