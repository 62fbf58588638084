"""Iteration logs read where they live: a log in object storage (moto's S3 server on
127.0.0.1) loads the same frames, gathers the same evidence and prints the same scores as
the same log on disk; files the edge refuses are the same issues; bad sources, a URL for
--repo or --transcripts and --write on a URL are one line and exit 2."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from conftest import BUCKET, ITERATION_LOGS, S3

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.outcome import find_iteration_logs
from toolkit.load.iterlog import IterationLog, load_iteration_log, load_iteration_logs
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.outcome import score_outcome
from toolkit.sidecars import write_score_sidecars

TALLY = ITERATION_LOGS / "tally-loop"
FRAMES = ("iterations", "verifiers", "hook_outcomes", "issues")

#: A YAML document whose aliases expand to 9**8 nodes.
BOMB = "".join(
    ['a: &a ["x","x","x","x","x","x","x","x","x"]\n']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(7)]
)


@pytest.fixture(scope="module")
def s3_tally(s3: S3) -> str:
    """The sample log (with its artifacts beside it) in the S3 server."""
    return s3.upload(TALLY, "remote-logs/tally-loop")


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def one_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run_cli(args, capsys)
    assert code == 2, (out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def as_local(frame: pl.DataFrame, remote_root: str, local_root: str) -> pl.DataFrame:
    """``frame`` with the remote folder's name replaced by the local one in every text
    column (paths are the only place the two may differ)."""
    return frame.with_columns(
        pl.col(name).str.replace(remote_root, local_root, literal=True)
        for name, dtype in frame.schema.items()
        if dtype == pl.String()
    )


def assert_same_log(remote: IterationLog, local: IterationLog, remote_root: str) -> None:
    for name in FRAMES:
        got = as_local(getattr(remote, name), remote_root, str(local.root))
        assert got.equals(getattr(local, name)), name


# --- one log -------------------------------------------------------------------------


def test_a_log_in_s3_loads_the_same_frames_as_on_disk(s3: S3, s3_tally: str) -> None:
    remote = load_iteration_log(s3_tally, storage_options={"endpoint_url": s3.endpoint})
    local = load_iteration_log(TALLY)
    assert remote.iterations.height == 6 and remote.hook_outcomes.height == 5
    assert remote.issues.height == 1
    assert_same_log(remote, local, f"{BUCKET}/remote-logs/tally-loop")
    # files are named by their fsspec path, bucket/key, as runs are
    assert remote.iterations["source_file"][1] == f"{BUCKET}/remote-logs/tally-loop/iter-2.yaml"
    assert str(remote.root) == f"{BUCKET}/remote-logs/tally-loop"
    assert remote.where == s3_tally
    assert repr(remote).startswith(f"IterationLog: {s3_tally}")


def test_evidence_beside_a_log_in_s3_is_fetched_from_there(
    s3: S3, s3_tally: str, tally_repo: Path, tally_transcripts: Path
) -> None:
    remote = load_iteration_log(s3_tally, storage_options={"endpoint_url": s3.endpoint})
    local = load_iteration_log(TALLY)
    root = f"{BUCKET}/remote-logs/tally-loop"
    for repo in (None, tally_repo):
        got = collect_outcome_evidence(remote, repo=repo, transcripts=[tally_transcripts])
        want = collect_outcome_evidence(local, repo=repo, transcripts=[tally_transcripts])
        for name in ("commits", "verifier_artifacts", "transcript_events", "issues"):
            frame = as_local(getattr(got, name), root, str(TALLY))
            assert frame.equals(getattr(want, name)), (repo, name)
        # the artifacts were found, beside the log in the bucket
        assert got.verifier_artifacts.row(0, named=True)["artifact_status"] == "partial"
        assert got.verifier_artifacts["artifact_path"][0] == (
            f"{root}/artifacts/iter-4-test.result.yaml"
        )
        decision = got.commits.filter(pl.col("iteration") == 4).row(0, named=True)
        assert decision["user_corrections"] is not None
        assert decision["decision_artifact_path"] == (
            f"{root}/artifacts/iter-4-review-decision.yaml"
        )


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_outcome_of_a_log_url_prints_what_the_disk_log_prints(
    fmt: str,
    s3: S3,
    s3_tally: str,
    tally_repo: Path,
    tally_transcripts: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    evidence = ["--repo", str(tally_repo), "--transcripts", str(tally_transcripts)]
    code, local, _ = run_cli(["outcome", str(TALLY), *evidence, "--format", fmt], capsys)
    assert code == 0
    code, remote, err = run_cli(
        ["outcome", s3_tally, *evidence, "--format", fmt, "--storage-option", s3.option], capsys
    )
    assert code == 0, err
    if fmt == "json":
        assert len(json.loads(local)["iterations"]) == 6
        remote = remote.replace(f"{BUCKET}/remote-logs/tally-loop", str(TALLY))
    else:
        assert f"Outcome scores of {s3_tally}" in remote
        remote = remote.replace(s3_tally, str(TALLY)).replace(
            f"{BUCKET}/remote-logs/tally-loop", str(TALLY)
        )
    assert remote == local


def broken_log(folder: Path) -> Path:
    """A log with a file of every kind the reading edge refuses, beside good ones."""
    folder.mkdir()
    (folder / "iter-1.yaml").write_text("schema_version: 1\niteration: 1\ncommit: abc\n")
    (folder / "iter-2.yaml").write_bytes(b"schema_version: 1\nsummary: caf\xe9\n")  # Latin-1
    (folder / "iter-3.yaml").write_text("schema_version: 1\nsummary: " + "x" * 3000 + "\n")
    (folder / "iter-4.yaml").write_text("schema_version: 1\n" + BOMB)
    (folder / "iter-5.yaml").write_text("schema_version: [unclosed\n")
    (folder / "iter-6.hook-outcomes.yaml").write_bytes(b"\xff\xfe\x00\x00")  # UTF-32 BOM
    (folder / "iter-99999999999999999999999.yaml").write_text("schema_version: 1\n")
    (folder / "historical.yaml").write_text("iterations:\n  - {schema_version: 9, iteration: 7}\n")
    (folder / "iter-8.yaml").write_text(
        "schema_version: 2\niteration: 8\nreview:\n  decision_artifact: notes/decision.yaml\n"
        "verifiers:\n  - {type: unit, status: pass, result_artifact: notes/gone.yaml}\n"
    )
    (folder / "notes").mkdir()
    (folder / "notes" / "decision.yaml").write_bytes(b"post_invocation: \xe9\n")
    return folder


def test_a_broken_log_reports_the_same_issues_from_s3_as_from_disk(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "2000")
    local_root = broken_log(tmp_path / "broken")
    url = s3.upload(local_root, "remote-logs/broken")
    remote = load_iteration_log(url, storage_options={"endpoint_url": s3.endpoint})
    local = load_iteration_log(local_root)
    assert_same_log(remote, local, f"{BUCKET}/remote-logs/broken")
    assert local.iterations["iteration"].to_list() == [1, 8]
    reasons = "\n".join(remote.issue_lines())
    for expected in (
        "iter-2.yaml: not UTF-8 text: invalid continuation byte (byte 0xe9 at byte offset",
        "bytes, over the limit of 2,000 (raise TOOLKIT_MAX_FILE_BYTES to read it); the file "
        "was skipped",
        "iter-4.yaml:",
        "aliases expand the document by more than 10,000 nodes",
        "iter-5.yaml:2: not valid YAML",
        "iter-6.hook-outcomes.yaml: the text is UTF-32 (little-endian)",
        "iter-99999999999999999999999.yaml: the iteration number is beyond 64 bits",
        "historical.yaml:2: schema_version=9: unknown schema version",
    ):
        assert expected in reasons, expected
    assert remote.issues.height == local.issues.height == 7
    # Evidence beside the log: an unreadable artifact is said to be unreadable, a missing
    # one missing, alike from the bucket and from the disk.
    got = collect_outcome_evidence(remote)
    want = collect_outcome_evidence(local)
    remote_root = f"{BUCKET}/remote-logs/broken"
    assert as_local(got.commits, remote_root, str(local_root)).equals(want.commits)
    assert as_local(got.verifier_artifacts, remote_root, str(local_root)).equals(
        want.verifier_artifacts
    )
    decision = got.commits.filter(pl.col("iteration") == 8).row(0, named=True)
    assert decision["decision_artifact_reason"].startswith(
        f"notes/decision.yaml could not be read ({remote_root}/notes/decision.yaml: not UTF-8"
    )
    assert got.verifier_artifacts["artifact_reason"].to_list() == [
        "notes/gone.yaml not found in the log folder"
    ]


def test_a_folder_named_like_a_log_file_is_an_issue_in_s3_as_on_disk(
    s3: S3, tmp_path: Path
) -> None:
    root = tmp_path / "odd"
    (root / "iter-2.yaml").mkdir(parents=True)
    (root / "iter-2.yaml" / "inside.txt").write_text("a folder, not an iteration")
    (root / "iter-1.yaml").write_text("schema_version: 1\ncommit: abc\n")
    url = s3.upload(root, "remote-logs/odd")
    remote = load_iteration_log(url, storage_options={"endpoint_url": s3.endpoint})
    local = load_iteration_log(root)
    assert_same_log(remote, local, f"{BUCKET}/remote-logs/odd")
    assert local.issue_lines() == [
        f"{root}/iter-2.yaml: a folder, not a file; the file was skipped"
    ]


def test_an_object_and_a_folder_of_the_same_name_read_as_the_object(s3: S3, tmp_path: Path) -> None:
    """S3 may hold ``log/iter-2.yaml`` beside ``log/iter-2.yaml/x`` (no disk can): the
    object is what a GET of that key returns, so it is read, as on a disk without the
    folder; nothing is reported twice."""
    root = tmp_path / "both"
    root.mkdir()
    (root / "iter-1.yaml").write_text("schema_version: 1\ncommit: abc\n")
    (root / "iter-2.yaml").write_text("schema_version: 1\ncommit: def\n")
    url = s3.upload(root, "remote-logs/both")
    s3.client.put_object(Bucket=BUCKET, Key="remote-logs/both/iter-2.yaml/x", Body=b"x")
    remote = load_iteration_log(url, storage_options={"endpoint_url": s3.endpoint})
    assert_same_log(remote, load_iteration_log(root), f"{BUCKET}/remote-logs/both")
    assert remote.iterations["iteration"].to_list() == [1, 2] and remote.issues.height == 0


# --- many logs -----------------------------------------------------------------------


def test_find_iteration_logs_lists_nested_logs_under_a_url(s3: S3, tmp_path: Path) -> None:
    for name in ("team-a/one", "team-a/two", "team-b/deep/three"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "iter-1.yaml").write_text("schema_version: 1\n")
    (tmp_path / "team-b" / "notes.yaml").write_text("not: a log\n")
    url = s3.upload(tmp_path, "remote-logs/nested")
    found = find_iteration_logs(url, storage_options={"endpoint_url": s3.endpoint})
    assert found == [f"{url}/team-a/one", f"{url}/team-a/two", f"{url}/team-b/deep/three"]
    # a URL that is itself a log is found as one log
    one = find_iteration_logs(f"{url}/team-a/one", storage_options={"endpoint_url": s3.endpoint})
    assert one == [f"{url}/team-a/one"]


def test_many_logs_in_s3_load_as_each_alone(s3: S3, generated_logs: Path) -> None:
    url = s3.upload(generated_logs, "remote-logs/many")
    options = {"endpoint_url": s3.endpoint}
    urls = find_iteration_logs(url, storage_options=options)
    assert len(urls) == 6
    together = load_iteration_logs([*urls, str(TALLY)], storage_options=options)
    assert [log.where for log in together] == [*urls, str(TALLY)]
    for got, each in zip(together[:-1], urls, strict=True):
        alone = load_iteration_log(each, storage_options=options)
        for name in FRAMES:
            assert getattr(got, name).equals(getattr(alone, name))
        local = load_iteration_log(generated_logs / each.rpartition("/")[2])
        assert_same_log(got, local, str(got.root))


# --- refused, with one line ------------------------------------------------------------


def test_write_beside_a_log_in_s3_is_refused(
    s3: S3, s3_tally: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {o["Key"] for o in s3.client.list_objects_v2(Bucket=BUCKET)["Contents"]}
    line = one_error(["outcome", s3_tally, "--write", "--storage-option", s3.option], capsys)
    assert line == (
        f"toolkit outcome: error: {s3_tally}: --write writes score sidecars only into a local "
        "log folder; this log is in object storage (score it without --write, or copy it "
        "down first)"
    )
    after = {o["Key"] for o in s3.client.list_objects_v2(Bucket=BUCKET)["Contents"]}
    assert after == before
    assert not Path("s3:").exists()


def test_score_sidecars_for_a_url_are_refused_in_python_too(s3: S3, s3_tally: str) -> None:
    log = load_iteration_log(s3_tally, storage_options={"endpoint_url": s3.endpoint})
    result = score_outcome(log, collect_outcome_evidence(log))
    with pytest.raises(InputError, match="written only into a local log folder, not a URL"):
        write_score_sidecars(result, log.where)
    assert not Path("s3:").exists()


def test_score_sidecars_never_create_the_folder_a_remote_log_names(
    s3: S3, s3_tally: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote log's root is its ``bucket/key``, a name from data: given as a folder, it
    is refused, and nothing is made under the working folder (nor for ``file://``)."""
    monkeypatch.chdir(tmp_path)
    log = load_iteration_log(s3_tally, storage_options={"endpoint_url": s3.endpoint})
    result = score_outcome(log, collect_outcome_evidence(log))
    for target in (log.root, f"file://{tmp_path}/nowhere/log"):
        with pytest.raises(InputError, match="no such local log folder"):
            write_score_sidecars(result, target)
    assert list(tmp_path.iterdir()) == []
    # file:// naming a real folder writes there, as the plain path does
    (tmp_path / "here").mkdir()
    written = write_score_sidecars(result, f"file://{tmp_path}/here")
    assert written and all(p.parent == tmp_path / "here" for p in written)


@pytest.mark.parametrize("all_", [False, True])
def test_a_missing_bucket_is_named(all_: bool, s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    url = "s3://no-such-bucket-i17logs/logs"
    args = ["outcome", *(["--all"] if all_ else []), url, "--storage-option", s3.option]
    line = one_error(args, capsys)
    assert line.startswith(f"toolkit outcome: error: {url}: no such bucket")


def test_nothing_under_a_url_is_said_so(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"s3://{BUCKET}/remote-logs/nothing-here"
    line = one_error(["outcome", url, "--storage-option", s3.option], capsys)
    assert line == f"toolkit outcome: error: {url}: no such log folder (no objects under it)"
    line = one_error(["outcome", "--all", url, "--storage-option", s3.option], capsys)
    assert line == (
        f"toolkit outcome: error: {url}: no iteration logs (folders with iter-N.yaml objects) "
        "under it"
    )


@pytest.mark.parametrize("all_", [False, True])
def test_an_unknown_scheme_is_named(all_: bool, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["outcome", *(["--all"] if all_ else []), "xyz://bucket/logs"]
    line = one_error(args, capsys)
    assert line == (
        "toolkit outcome: error: xyz://bucket/logs: unknown storage scheme 'xyz' (use a local "
        "path, or s3://, gs://, az://, file://)"
    )


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        ("--repo", "a git repository is read from a local folder, not a URL (clone it first)"),
        ("--transcripts", "transcripts are read from local folders, not URLs (copy them first)"),
    ],
)
def test_a_url_for_repo_or_transcripts_is_refused(
    flag: str, says: str, s3: S3, s3_tally: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_error(
        ["outcome", s3_tally, flag, "s3://sweeps/elsewhere", "--storage-option", s3.option],
        capsys,
    )
    assert line == f"toolkit outcome: error: s3://sweeps/elsewhere: {says}"
    # before any log is read or any cluster started, for a fleet too
    line = one_error(
        ["outcome", "--all", "s3://no-such-bucket-i17logs/x", flag, "s3://sweeps/elsewhere",
         "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"],
        capsys,
    )  # fmt: skip
    assert line == f"toolkit outcome: error: s3://sweeps/elsewhere: {says}"
    with pytest.raises(InputError, match=re.escape(f"gs://b/x: {says}")):
        if flag == "--repo":
            collect_outcome_evidence(load_iteration_log(TALLY), repo="gs://b/x")
        else:
            collect_outcome_evidence(load_iteration_log(TALLY), transcripts=["gs://b/x"])


def test_a_file_url_fleet_is_the_local_fleet(
    generated_logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, local, _ = run_cli(["outcome", "--all", str(generated_logs), "--format", "json"], capsys)
    assert code == 0
    code, by_url, err = run_cli(
        ["outcome", "--all", f"file://{generated_logs}", "--format", "json"], capsys
    )
    assert code == 0, err
    assert by_url == local
    assert [r["log"] for r in json.loads(local)["logs"]][:1] != [str(generated_logs)]


def test_a_file_url_is_the_local_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "tally-loop"
    shutil.copytree(TALLY, copy)
    log = load_iteration_log(f"file://{copy}")
    assert log.source.disk == copy and log.root == copy
    assert log.iterations.equals(load_iteration_log(copy).iterations)
    code, _, err = run_cli(["outcome", f"file://{copy}", "--write"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in copy.glob("iter-*.score.yaml"))
