"""Eval-harness runs from the command line: `toolkit outcome` (one line per run, each
task's replicates together), `toolkit compare RUNS_A RUNS_B` (which agent is ahead, by
difficulty and language, with pass^k) and `toolkit compare --pass-k FILE|DIR`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

CLAUDE = SAMPLE_RUNS / "eval_runs" / "claude"
CODEX = SAMPLE_RUNS / "eval_runs" / "codex"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_outcome_shows_one_line_per_run_under_its_task(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["outcome", str(CLAUDE)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Eval-harness runs of claude · 24 runs of 8 tasks")
    task_lines = [i for i, line in enumerate(lines) if line.startswith("ev-")]
    assert len(task_lines) == 8
    for i in task_lines:  # three replicates under each task
        assert all(lines[i + j].startswith("  run-") for j in (1, 2, 3))
    assert "ev-ts-query-planner (typescript, hard): 0/3 passed" in out


def test_outcome_json_and_the_gate_by_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["outcome", "--all", str(CODEX), "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and len(doc["runs"]) == 24 and len(doc["tasks"]) == 8
    code, _, err = run_cli(["outcome", str(CODEX), "--gate"], capsys)
    poor = sum(1 for r in doc["runs"] if r["band"] == "poor")
    assert code == (1 if poor else 0)
    assert err.count("failed: verdict poor") == poor


def test_outcome_refuses_write_on_eval_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["outcome", str(CODEX), "--write"], capsys)
    assert code == 2 and "not on eval runs" in err and len(err.strip().splitlines()) == 1


def test_compare_two_agents_pairs_tasks_and_splits_by_difficulty_and_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        ["compare", str(CLAUDE), str(CODEX), "--format", "json", "--resamples", "199"], capsys
    )
    doc = json.loads(out)
    assert code == 0 and doc["family"] == "eval" and doc["pairs"] == 8
    assert doc["runs_a"] == 24 and doc["runs_b"] == 24
    dims = {d["dimension"]: d for d in doc["dimensions"]}
    assert set(dims) == {"score", "retries", "duration_s", "passed"}
    assert dims["passed"]["kind"] == "pass/fail" and dims["retries"]["direction"] == -1
    arms = {(r["arm"], r["k"]) for r in doc["pass_k"]}
    assert arms == {(a, k) for a in "AB" for k in (1, 2, 3)}
    strata = {(s["by"], s["value"]) for s in doc["strata"]}
    assert ("difficulty", "hard") in strata and ("language", "rust") in strata
    every = doc["strata"][0]
    a1 = next(r for r in doc["pass_k"] if r["arm"] == "A" and r["k"] == 1)
    assert every["pass_a"] == pytest.approx(a1["pass_k"])  # 3 runs a task: the same mean


def test_compare_text_says_who_is_ahead(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["compare", str(CLAUDE), str(CODEX), "--resamples", "199"], capsys)
    assert code == 0
    assert "by task property" in out and "diff=hard" in out and "overall:" in out
    assert "pass^k of passed (tau-bench):" in out


def test_pass_k_of_a_trials_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "trials.csv"
    path.write_text("task,trial,reward\na,0,1\na,1,0\nb,0,1\nb,1,1\n")
    code, out, _ = run_cli(["compare", "--pass-k", str(path), "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0
    assert [(r["k"], r["pass_k"]) for r in doc["pass_k"]] == [(1, 0.75), (2, 0.5)]


def test_pass_k_of_a_folder_of_eval_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["compare", "--pass-k", str(CODEX), "--resamples", "99"], capsys)
    assert code == 0
    assert out.startswith("pass^k · codex · 8 tasks, 24 trials")
    assert "verify.passed" in out


def test_pass_k_bad_input_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "trials.csv"
    path.write_text("task,trial,reward\na,0,1\na,0,1\n")
    code, out, err = run_cli(["compare", "--pass-k", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.strip().endswith("trials.csv:3: task='a': trial '0' of this task is also on line 2")
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["compare", "--pass-k", str(path), str(path)], capsys)
    assert code == 2 and "--pass-k takes one file or folder" in err


def test_markdown_and_html_carry_pass_k_and_the_split(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", str(CLAUDE), str(CODEX), "--resamples", "99", "--format"]
    code, out, _ = run_cli([*args, "markdown"], capsys)
    assert code == 0 and "| tasks by | tasks |" in out and "| difficulty = hard | 2 |" in out
    assert "pass^k of passed, A: k=1" in out
    code, out, _ = run_cli([*args, "html"], capsys)
    assert code == 0 and "By task property" in out and "difficulty = hard" in out
