"""`toolkit outcome --all` gives the same JSON with the local engine and on Dask."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from toolkit.cli import main


def outcome_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["outcome", "--all", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_outcome_fleet_json_is_identical_local_and_dask(
    which: str, generated_logs: Path, dask_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ROOT / "sample_runs" / "iteration_logs" if which == "sample" else generated_logs
    local = outcome_json([str(folder)], capsys)
    dask = outcome_json(
        [str(folder), "--engine", "dask", "--scheduler", dask_client.scheduler.address,
         "--partition-size", "2"],
        capsys,
    )  # fmt: skip
    logs = json.loads(local)["logs"]
    assert len(logs) == (1 if which == "sample" else 6)
    assert all(log["scored"] > 0 for log in logs)
    assert dask == local


def test_outcome_says_logs_in_object_storage_are_not_read_yet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["outcome", "--all", "s3://sweeps/logs"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.strip().splitlines() == [
        "toolkit outcome: error: s3://sweeps/logs: iteration logs are read from local folders "
        "only (copy the logs down first)"
    ]
