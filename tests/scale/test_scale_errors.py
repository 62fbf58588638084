"""Bad sources and unreachable clusters: exit 2 and one line naming the source and what
to do, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import BUCKET, ROOT, S3, SAMPLE_FLEET, free_port, tick_v1, write_run

import toolkit as tk
from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.io.source import parse_storage_options


def cli_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_bucket_that_does_not_exist_is_named(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(
        ["quality", "--all", "s3://no-such-bucket-i17/sweep", "--storage-option", s3.option],
        capsys,
    )
    assert line.startswith("toolkit quality: error: s3://no-such-bucket-i17/sweep: ")
    assert "no such bucket" in line


def test_a_glob_in_a_missing_bucket_says_the_bucket_is_missing(s3: S3) -> None:
    with pytest.raises(InputError, match=r"s3://no-such-bucket-i17/x/\*: no such bucket"):
        tk.load_universes(
            "s3://no-such-bucket-i17/x/*", storage_options={"endpoint_url": s3.endpoint}
        )


def test_a_single_run_url_with_nothing_under_it(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(["quality", "s3://sweeps/nothing-here", "--storage-option", s3.option], capsys)
    assert "s3://sweeps/nothing-here: no such run folder" in line


def test_an_unknown_scheme_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(["quality", "--all", "xyz://bucket/sweep"], capsys)
    assert "xyz://bucket/sweep: unknown storage scheme 'xyz'" in line


def test_a_missing_extra_says_what_to_install() -> None:
    # s3fs made unimportable in a fresh interpreter, as when `toolkit[s3]` is not installed
    code = (
        "import sys; sys.modules['s3fs'] = None\n"
        "from toolkit.cli import main\n"
        "sys.exit(main(['quality', '--all', 's3://sweeps/sample']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "toolkit quality: error: s3://sweeps/sample: reading s3:// needs s3fs: "
        "pip install 'toolkit[s3]'"
    ]


def test_a_scheduler_that_does_not_answer_gives_up_in_bounded_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    started = time.monotonic()
    line = cli_error(
        ["quality", "--all", str(SAMPLE_FLEET), "--engine", "dask", "--scheduler", address],
        capsys,
    )
    assert time.monotonic() - started < 60
    assert line.startswith(f"toolkit quality: error: {address}: no Dask scheduler answered")


def test_a_storage_option_without_a_value(capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(
        ["quality", "--all", "s3://sweeps/x", "--storage-option", "endpoint_url"], capsys
    )
    assert "--storage-option='endpoint_url': must be key=value" in line


def test_storage_options_nest_dotted_keys_and_read_json_values() -> None:
    got = parse_storage_options(
        ["endpoint_url=http://127.0.0.1:9000", "client_kwargs.region_name=eu-west-1",
         "anon=true", "default_block_size=1024"]
    )  # fmt: skip
    assert got == {
        "endpoint_url": "http://127.0.0.1:9000",
        "client_kwargs": {"region_name": "eu-west-1"},
        "anon": True,
        "default_block_size": 1024,
    }


def test_a_cache_beside_runs_in_object_storage_is_refused(s3: S3, s3_sample_fleet: str) -> None:
    with pytest.raises(InputError, match="name a cache DIR"):
        tk.load_universe(
            f"{s3_sample_fleet}/run-0001", cache=True, storage_options={"endpoint_url": s3.endpoint}
        )


def test_run_files_fetched_from_s3_are_held_to_the_size_limit_as_on_disk(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """universe.yaml and batch records, not only tick files, pass the size limit when
    fetched from object storage: the same issues as from the disk."""
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "1500")
    run = write_run(tmp_path / "big-extras", [tick_v1(n) for n in range(1, 4)])
    (run / "universe.yaml").write_text("name: Big\nnote: " + "x" * 2000 + "\n")
    (run / "tick_summaries" / "batch_0.json").write_text(json.dumps({"pad": "y" * 2000}))
    url = s3.upload(run, "limits/big-extras")
    local = tk.load_universe(run)
    remote = tk.load_universe(url, storage_options={"endpoint_url": s3.endpoint})
    want = [
        (Path(r["path"]).name, r["reason"].replace(str(run), "RUN"))
        for r in local.issues.to_dicts()
    ]
    got = [
        (Path(r["path"]).name, r["reason"].replace(f"{BUCKET}/limits/big-extras", "RUN"))
        for r in remote.issues.to_dicts()
    ]
    assert sorted(got) == sorted(want)
    assert {name for name, _ in want} == {"universe.yaml", "batch_0.json"}
    assert all("over the limit of 1,500" in reason for _, reason in want)


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_cache_bucket_that_does_not_exist_costs_a_warning_not_the_scores(
    s3: S3, s3_sample_fleet: str, dask_client: Any, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    """A CI job whose cache cannot be written still gets its scores and its exit code:
    one warning line on stderr names the cache and why (from Dask workers too)."""
    args = ["quality", "--all", s3_sample_fleet, "--format", "json", "--storage-option", s3.option]
    assert main(args) == 0
    plain = capsys.readouterr().out
    if engine == "dask":
        args += ["--engine", "dask", "--scheduler", dask_client.scheduler.address]
    assert main([*args, "--cache", "s3://no-such-bucket-i17/cache"]) == 0
    out, err = capsys.readouterr()
    assert out == plain
    assert err.strip().splitlines() == [
        "toolkit quality: warning: s3://no-such-bucket-i17/cache: cannot write the run cache: "
        "no such bucket or folder (check the URL and the region); the scores are complete "
        "(runs not cached are read from their files again next time)"
    ]


def test_a_cache_url_with_an_unknown_scheme_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(
        ["quality", str(SAMPLE_FLEET / "run-0001"), "--cache", "xyz://bucket/cache"], capsys
    )
    assert "xyz://bucket/cache: unknown storage scheme 'xyz'" in line


def test_a_universe_db_in_s3_over_the_size_limit_is_an_issue_not_a_crash(
    s3: S3, s3_sample_fleet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a URL the database is fetched whole into memory, so it is held to the size
    limit (on disk SQLite reads it in place): the run scores without checkpoints."""
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "100000")  # tick files fit, the db not
    url = f"{s3_sample_fleet}/run-0001"
    remote = tk.load_universe(url, storage_options={"endpoint_url": s3.endpoint})
    local = tk.load_universe(SAMPLE_FLEET / "run-0001")
    assert remote.ticks.drop("source_file").equals(local.ticks.drop("source_file"))
    assert local.checkpoints.height > 0 and remote.checkpoints.height == 0
    (issue,) = remote.issues.to_dicts()
    assert issue["path"].endswith("run-0001/universe.db")
    assert "over the limit of 100,000" in issue["reason"]
