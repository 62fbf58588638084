"""Objectives checked per iteration beside the outcome score (issue 23, items 19 and 20):
from Claude Code transcripts and Codex session logs (``~/.codex/sessions`` layout), and
the commit's diff; plus dot-agents' derived ``linked_traces_to_outcomes`` marker."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml

from toolkit import collect_outcome_evidence, load_iteration_log, score_outcome
from toolkit.rubrics.outcome import OutcomeResult
from toolkit.sidecars import write_score_sidecars

FIRST, SECOND = "2026-03-05T10:00:00Z", "2026-03-05T14:00:00Z"
LOOP_STATE = ".agents/active/loop-state.md"


def git(repo: Path, *args: str, date: str = FIRST) -> str:
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


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A repository with two commits (10:00 and 14:00 on 2026-03-05) and a log whose
    iterations 1 and 2 name them; iteration 2's verifier links a trace and names two
    tests, one of which its commit adds."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    shas = []
    files = [
        ("src/app.py", "def run():\n    return 1\n", FIRST),
        ("tests/test_app.py", "def test_run_returns_one():\n    assert run() == 1\n", SECOND),
    ]
    for path, text, date in files:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
        git(repo, "add", path)
        git(repo, "commit", "-q", "-m", f"add {path}", date=date)
        shas.append(git(repo, "rev-parse", "HEAD"))
    log = tmp_path / "log"
    log.mkdir()
    (log / "iter-1.yaml").write_text(
        yaml.safe_dump({"schema_version": 2, "iteration": 1, "commit": shas[0]})
    )
    verifier = {
        "type": "test",
        "status": "pass",
        "linked_traces": [{"trace_ref": "pytest tests/test_app.py", "outcome_ref": shas[1][:7]}],
        "tests_added_by_kind": [
            {"name": "tests/test_app.py::test_run_returns_one", "kind": "positive"},
            {"name": "test_run_rejects_bad_input", "kind": "negative"},
        ],
    }
    (log / "iter-2.yaml").write_text(
        yaml.safe_dump(
            {"schema_version": 2, "iteration": 2, "commit": shas[1], "verifiers": [verifier]}
        )
    )
    return repo, log, shas


def claude_line(ts: str, tool: str, args: dict[str, Any], n: int) -> dict[str, Any]:
    """An assistant line of a Claude Code transcript holding one tool_use."""
    return {
        "type": "assistant",
        "sessionId": "s-1",
        "uuid": f"u-{n}",
        "timestamp": ts,
        "message": {
            "id": f"msg_{n}",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": args}],
        },
    }


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path.parent


def codex_item(clock: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A Codex ``response_item`` line at ``clock`` on 2026-03-05."""
    return {"timestamp": f"2026-03-05T{clock}.000Z", "type": "response_item", "payload": payload}


def codex_call(clock: str, name: str, call_id: str, args: dict[str, Any]) -> dict[str, Any]:
    """A Codex ``function_call`` line (its arguments are a JSON string, as Codex writes)."""
    payload = {"type": "function_call", "name": name, "call_id": call_id}
    return codex_item(clock, payload | {"arguments": json.dumps(args)})


def codex_session(root: Path, lines: list[dict[str, Any]]) -> Path:
    """A Codex session log where Codex keeps it: sessions/YYYY/MM/DD/rollout-...jsonl."""
    meta = {
        "timestamp": "2026-03-05T11:00:00.000Z",
        "type": "session_meta",
        "payload": {"id": "0199a1b2-c3d4", "cwd": "/home/dev/app", "originator": "codex_cli_rs"},
    }
    context = {
        "timestamp": "2026-03-05T11:00:00.500Z",
        "type": "turn_context",
        "payload": {"cwd": "/home/dev/app", "approval_policy": "on-request", "model": "gpt-5"},
    }
    path = root / "sessions" / "2026" / "03" / "05"
    write_jsonl(path / "rollout-2026-03-05T11-00-00-0199a1b2-c3d4.jsonl", [meta, context, *lines])
    return root / "sessions"


def score(repo: Path, log: Path, *transcripts: Path) -> OutcomeResult:
    loaded = load_iteration_log(log)
    evidence = collect_outcome_evidence(loaded, repo=repo, transcripts=transcripts)
    return score_outcome(loaded, evidence)


def objectives(result: OutcomeResult, iteration: int) -> dict[str, tuple[int | None, str]]:
    rows = result.objectives.filter(pl.col("iteration") == iteration)
    return {r["objective"]: (r["value"], r["detail"]) for r in rows.iter_rows(named=True)}


def test_claude_code_transcript_gives_each_objective(
    setup: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    repo, log, _ = setup
    folder = write_jsonl(
        tmp_path / "claude" / "s-1.jsonl",
        [
            claude_line("2026-03-05T11:00:00Z", "Read", {"file_path": LOOP_STATE}, 1),
            claude_line("2026-03-05T12:00:00Z", "Bash", {"command": "git status"}, 2),
            claude_line("2026-03-05T13:00:00Z", "Bash", {"command": "uv run pytest -q"}, 3),
        ],
    )  # fmt: skip
    got = objectives(score(repo, log, folder), 2)
    assert got["ran_cli_command"][0] == 1
    assert got["ran_cli_command"][1].startswith("2 shell command(s) in (2026-03-05T10:00:00Z")
    assert got["ran_tests_before_commit"] == (
        1,
        "1 test command(s) before the commit in (2026-03-05T10:00:00Z, 2026-03-05T14:00:00Z]; "
        "the first: uv run pytest -q",
    )
    assert got["read_loop_state"][0] == 1
    assert got["read_loop_state"][1].endswith("the first: .agents/active/loop-state.md")


def test_codex_session_log_gives_the_same_objectives(
    setup: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    repo, log, _ = setup
    sessions = codex_session(
        tmp_path / ".codex",
        [
            codex_call("11:05:00", "exec_command", "call_1", {"cmd": f"sed -n 1,80p {LOOP_STATE}"}),
            codex_item("11:05:01", {"type": "function_call_output", "call_id": "call_1",
                                    "output": json.dumps({"output": "# loop state"})}),
            codex_call("12:30:00", "shell", "call_2",
                       {"command": ["bash", "-lc", "python -m pytest tests"]}),
            {"timestamp": "2026-03-05T12:31:00.000Z", "type": "event_msg",
             "payload": {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 9}}}},
        ],
    )  # fmt: skip
    got = objectives(score(repo, log, sessions), 2)
    assert {k: v[0] for k, v in got.items()} == {
        "ran_cli_command": 1,
        "ran_tests_before_commit": 1,
        "read_loop_state": 1,
        "tests_added_by_kind_in_diff": 0,
    }
    assert got["ran_tests_before_commit"][1].endswith("the first: bash -lc python -m pytest tests")


def test_a_window_with_lines_but_no_commands_is_0_not_absent(
    setup: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    repo, log, _ = setup
    text_only = {
        "type": "assistant",
        "timestamp": "2026-03-05T12:00:00Z",
        "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    }
    # A test run after the commit (15:00) is outside iteration 2's window.
    late = claude_line("2026-03-05T15:00:00Z", "Bash", {"command": "pytest"}, 9)
    folder = write_jsonl(tmp_path / "claude" / "s.jsonl", [text_only, late])
    got = objectives(score(repo, log, folder), 2)
    assert got["ran_cli_command"] == (
        0,
        "no shell command in (2026-03-05T10:00:00Z, 2026-03-05T14:00:00Z] (1 transcript lines)",
    )
    assert got["ran_tests_before_commit"][0] == 0
    assert got["read_loop_state"] == (
        0,
        "no read of loop-state.md in (2026-03-05T10:00:00Z, 2026-03-05T14:00:00Z] "
        "(1 transcript lines)",
    )


def test_absent_objectives_say_why(setup: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    repo, log, _ = setup
    no_transcripts = objectives(score(repo, log), 2)
    assert no_transcripts["ran_cli_command"] == (None, "no transcripts given (--transcripts)")
    earlier = claude_line("2026-03-04T09:00:00Z", "Bash", {"command": "ls"}, 1)
    folder = write_jsonl(tmp_path / "c" / "x.jsonl", [earlier])
    uncovered = objectives(score(repo, log, folder), 2)
    assert uncovered["read_loop_state"] == (
        None,
        "no transcript coverage in (2026-03-05T10:00:00Z, 2026-03-05T14:00:00Z]",
    )
    loaded = load_iteration_log(log)
    no_repo = score_outcome(loaded, collect_outcome_evidence(loaded, transcripts=[folder]))
    assert objectives(no_repo, 2)["ran_cli_command"] == (
        None,
        "no commit time to window transcripts (no repository given (--repo))",
    )
    assert objectives(no_repo, 2)["tests_added_by_kind_in_diff"] == (
        None,
        "no commit to check the names against (no repository given (--repo))",
    )


def test_tests_added_by_kind_names_are_checked_against_the_diff(
    setup: tuple[Path, Path, list[str]],
) -> None:
    repo, log, shas = setup
    got = objectives(score(repo, log), 2)
    # The commit adds test_run_returns_one (named as file::test); the negative test it
    # claims is nowhere in the diff.
    assert got["tests_added_by_kind_in_diff"] == (
        0,
        f"1/2 named tests found in the diff of {shas[1][:12]}; missing: test_run_rejects_bad_input",
    )
    assert objectives(score(repo, log), 1)["tests_added_by_kind_in_diff"] == (
        None,
        "no tests_added_by_kind named by a verifier",
    )


def test_objectives_are_beside_the_score_not_in_it(
    setup: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    repo, log, _ = setup
    bash = claude_line("2026-03-05T12:00:00Z", "Bash", {"command": "pytest"}, 1)
    read = claude_line("2026-03-05T12:01:00Z", "Read", {"file_path": "loop-state.md"}, 2)
    with_read = score(repo, log, write_jsonl(tmp_path / "a" / "t.jsonl", [bash, read]))
    without = score(repo, log, write_jsonl(tmp_path / "b" / "t.jsonl", [bash]))
    assert objectives(with_read, 2)["read_loop_state"][0] == 1
    assert objectives(without, 2)["read_loop_state"][0] == 0
    assert with_read.scores.equals(without.scores)
    # Only correction pressure's detail differs (it counts the tool calls: 0/2 vs 0/1).
    assert with_read.breakdown.drop("detail").equals(without.breakdown.drop("detail"))


def test_sidecar_carries_the_derived_linked_traces_marker_and_the_objectives(
    setup: tuple[Path, Path, list[str]],
) -> None:
    repo, log, _ = setup
    result = score(repo, log)
    assert result.scores["linked_traces_to_outcomes"].to_list() == [False, True]
    write_score_sidecars(result, log)
    linked = yaml.safe_load((log / "iter-2.score.yaml").read_text())
    assert linked["linked_traces_to_outcomes"] is True
    # Each row holds its signal's label, as dot-agents' PersistedContribution does (and
    # the toolkit's key repeats them by signal).
    assert linked["breakdown"][0]["label"] == "Landed on master"
    assert list(linked["toolkit"]["labels"].values())[:2] == [
        "Landed on master",
        "Verifier results",
    ]
    assert [o["objective"] for o in linked["objectives"]] == [
        "ran_cli_command",
        "ran_tests_before_commit",
        "read_loop_state",
        "tests_added_by_kind_in_diff",
    ]
    # Like dot-agents (omitempty), the marker is not written when no trace is linked.
    assert "linked_traces_to_outcomes" not in yaml.safe_load(
        (log / "iter-1.score.yaml").read_text()
    )
