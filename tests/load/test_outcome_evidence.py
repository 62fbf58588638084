"""Git facts through the git CLI, transcripts, and the evidence gathered per iteration."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import polars as pl
import pytest

from toolkit import (
    GitRepo,
    InputError,
    collect_outcome_evidence,
    load_iteration_log,
    load_transcripts,
)

C1 = "185780e5d51b6528645460801138926baa96072a"  # Add CSV reader for tally records
C2 = "dcb6f5735cc037ea14a9bdaff9660718e5338a2d"  # Add rounding helper
C4 = "699ae9356e26e7a9fb74ee3d397e0a2295fad008"  # Revert "Add rounding helper"
C5 = "df412d90a9b46a99bb89bb797a3121eb03e18db0"  # Add tally CLI with --json output
C6 = "2cda6b376e281524f32a527c3ace4e3ce8b8bbee"  # Stream large CSV files lazily (spike)


def git(repo: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def commit(repo: Path, message: str, files: dict[str, str], date: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, date=date)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def small_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/master")
    return repo


# --- GitRepo ---------------------------------------------------------------------


@pytest.mark.parametrize("bare", [False, True])
def test_git_facts_from_the_sample_repository(
    tally_repo: Path, tally_bare_repo: Path, bare: bool
) -> None:
    repo = GitRepo(tally_bare_repo if bare else tally_repo)
    assert repo.bare is bare
    assert repo.trunk == "main"
    assert repo.resolve("dcb6f57") == C2
    assert repo.resolve("main") is None  # only hex SHAs are looked up
    assert repo.resolve("f00dfee") is None
    assert repo.on_trunk(C5) and not repo.on_trunk(C6)
    reverter = repo.reverted_by(C2)
    assert reverter is not None and reverter.sha == C4
    assert repo.reverted_by(C5) is None
    assert repo.changed_files(C5) == ["README.md", "src/tally/cli.py", "tests/test_cli.py"]
    found = repo.commit(C5)
    assert found is not None and found.time == dt.datetime(2026, 3, 5, 14, 0, tzinfo=dt.UTC)
    stand_in = repo.trunk_commit_with_subject("add csv READER for tally records")
    assert stand_in is not None and stand_in.sha == C1


def test_a_revert_must_name_at_least_seven_hex_characters(small_repo: Path) -> None:
    target = commit(small_repo, "Add a", {"a.txt": "a"}, "2026-01-01T00:00:00Z")
    commit(small_repo, f"Revert a, see {target[:6]}", {"a.txt": "b"}, "2026-01-02T00:00:00Z")
    repo = GitRepo(small_repo)
    assert repo.trunk == "master"
    assert repo.reverted_by(target) is None
    later = commit(small_repo, f"revert {target[:7]}", {"a.txt": "c"}, "2026-01-03T00:00:00Z")
    found = GitRepo(small_repo).reverted_by(target)
    assert found is not None and found.sha == later


def test_a_commit_mentioning_the_sha_without_revert_does_not_revert(small_repo: Path) -> None:
    target = commit(small_repo, "Add a", {"a.txt": "a"}, "2026-01-01T00:00:00Z")
    commit(small_repo, f"Follow up on {target}", {"a.txt": "b"}, "2026-01-02T00:00:00Z")
    assert GitRepo(small_repo).reverted_by(target) is None


def test_an_empty_commit_changes_no_files(small_repo: Path) -> None:
    commit(small_repo, "first", {"a.txt": "a"}, "2026-01-01T00:00:00Z")
    empty = commit(small_repo, "nothing", {}, "2026-01-02T00:00:00Z")
    assert GitRepo(small_repo).changed_files(empty) == []


def test_not_a_repository_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a git repository"):
        GitRepo(tmp_path)
    with pytest.raises(InputError, match="no such folder"):
        GitRepo(tmp_path / "missing")


# --- evidence per iteration ------------------------------------------------------


def test_evidence_for_the_sample_log(tally_log: Path, tally_repo: Path) -> None:
    log = load_iteration_log(tally_log)
    ev = collect_outcome_evidence(log, repo=tally_repo)
    facts = {r["iteration"]: r for r in ev.commits.to_dicts()}
    assert (facts[1]["commit_sha"], facts[1]["commit_via"]) == (C1, "summary")
    assert (facts[2]["commit_sha"], facts[2]["reverted_by"]) == (C2, C4)
    assert facts[3]["commit_sha"] is None
    assert facts[3]["git_reason"] == "no commit recorded in the log"
    assert facts[4]["write_scope"] == ["src/tally/cli.py", "tests/test_cli.py"]
    assert facts[4]["task_plan"] == "tally-v1"
    assert (facts[4]["user_corrections"], facts[4]["retries_in_loop"]) == (2, 0)
    assert facts[5]["on_trunk"] is False
    assert facts[6]["decision_artifact_reason"] == "no review decision_artifact in the log"
    artifacts = ev.verifier_artifacts.select("iteration", "verifier_index", "artifact_status")
    assert artifacts.rows() == [(4, 0, "partial")]
    assert ev.trunk == "main"


def test_without_a_repository_git_facts_say_why(tally_log: Path) -> None:
    ev = collect_outcome_evidence(load_iteration_log(tally_log))
    assert set(ev.commits["git_reason"].to_list()) == {"no repository given (--repo)"}
    assert ev.commits["commit_sha"].null_count() == ev.commits.height
    # The review-decision artifact is found beside the log even without a repository.
    assert ev.commits.filter(pl.col("iteration") == 4)["user_corrections"].to_list() == [2]


def test_an_unresolvable_sha_without_a_matching_subject(tmp_path: Path, tally_repo: Path) -> None:
    (tmp_path / "iter-1.yaml").write_text(
        'schema_version: 1\niteration: 1\ncommit: "abcdef1"\nsummary: "Something else"\n'
    )
    ev = collect_outcome_evidence(load_iteration_log(tmp_path), repo=tally_repo)
    row = ev.commits.row(0, named=True)
    assert row["commit_sha"] is None
    assert row["git_reason"] == (
        "commit abcdef1 is not in the repository and no main commit has the summary as its subject"
    )


def test_an_unknown_task_has_no_write_scope(tmp_path: Path, tally_repo: Path) -> None:
    (tmp_path / "iter-1.yaml").write_text(
        f"schema_version: 1\niteration: 1\ntask_id: t-nope\ncommit: {C5}\n"
    )
    ev = collect_outcome_evidence(load_iteration_log(tmp_path), repo=tally_repo)
    row = ev.commits.row(0, named=True)
    assert row["write_scope"] is None
    assert row["write_scope_reason"] == (
        "task t-nope is in no .agents/workflow/plans/*/TASKS.yaml on main"
    )


# --- transcripts -----------------------------------------------------------------


def test_transcript_usage_counts_once_per_message(tally_transcripts: Path) -> None:
    t = load_transcripts([tally_transcripts])
    ev = t.events
    assert t.files == 1 and t.issues.is_empty()
    assert ev["cache_read_tokens"].sum() == 45800 + 9000
    assert ev["cache_creation_tokens"].sum() == 8000 + 9500
    assert ev["tool_calls"].sum() == 8 and ev["tool_errors"].sum() == 2
    # msg_01TallyA1 spans two lines: its usage is counted on the first only.
    a1 = ev.filter(pl.col("message_id") == "msg_01TallyA1")
    assert a1["cache_creation_tokens"].to_list() == [6000, 0]


def test_bad_transcript_lines_are_reported(tmp_path: Path) -> None:
    line = {
        "type": "assistant",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"id": "m1", "usage": {"cache_read_input_tokens": 5}, "content": []},
    }
    (tmp_path / "s.jsonl").write_text(
        json.dumps(line) + "\n{oops\n[1, 2]\n" + json.dumps({"type": "summary"}) + "\n"
    )
    t = load_transcripts([tmp_path])
    assert t.events["cache_read_tokens"].to_list() == [5]
    assert t.issues.select("line").to_series().to_list() == [2, 3]


def test_a_missing_transcript_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        load_transcripts([tmp_path / "missing"])


def test_tool_uses_from_claude_code_and_codex_alike(tmp_path: Path) -> None:
    claude = {
        "type": "assistant",
        "timestamp": "2026-03-05T12:00:00Z",
        "message": {
            "id": "m1",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": "a"}},
            ],
        },
    }
    repeated = claude | {"timestamp": "2026-03-05T12:00:01Z"}  # the same ids again
    codex_dir = tmp_path / "sessions" / "2026" / "03" / "05"
    codex_dir.mkdir(parents=True)
    call = {"type": "function_call", "name": "shell", "call_id": "c1"}
    codex = [
        {"timestamp": "2026-03-05T13:00:00Z", "type": "session_meta", "payload": {"id": "x"}},
        {"timestamp": "2026-03-05T13:00:01Z", "type": "response_item",
         "payload": call | {"arguments": json.dumps({"command": ["bash", "-lc", "go test"]})}},
        {"timestamp": "2026-03-05T13:00:02Z", "type": "response_item",
         "payload": call | {"arguments": "{not json"}},  # the same call id: counted once
        {"timestamp": "2026-03-05T13:00:03Z", "type": "response_item",
         "payload": {"type": "local_shell_call", "call_id": "c2",
                     "action": {"type": "exec", "command": ["cat", "loop-state.md"]}}},
        {"timestamp": "2026-03-05T13:00:04Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "apply_patch", "call_id": "c3",
                     "arguments": "{}"}},
    ]  # fmt: skip
    (tmp_path / "claude.jsonl").write_text(json.dumps(claude) + "\n" + json.dumps(repeated) + "\n")
    (codex_dir / "rollout-2026-03-05T13-00-00-x.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in codex)
    )
    t = load_transcripts([tmp_path])
    uses = t.tool_uses.sort("timestamp").select("harness", "tool", "command", "path").rows()
    assert uses == [
        ("claude-code", "Bash", "ls", None),
        ("claude-code", "Read", None, "a"),
        ("codex", "shell", "bash -lc go test", None),
        ("codex", "local_shell", "cat loop-state.md", None),
        ("codex", "apply_patch", None, None),
    ]
    assert t.turns.height == 2 + len(codex) and t.files == 2
