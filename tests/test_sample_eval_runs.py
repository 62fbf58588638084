"""The sample eval-harness runs: reproducible from their generator, in the layout and
shape dot-agents writes (FORMATS.md §5), two agents on the same tasks with some failures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from conftest import SAMPLE_RUNS

EVAL = SAMPLE_RUNS / "eval_runs"


def test_generator_reproduces_the_committed_runs(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_eval_runs.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = sorted(p.relative_to(EVAL) for p in EVAL.rglob("*") if p.is_file())
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert fresh == committed
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (EVAL / rel).read_bytes(), rel


def test_each_run_is_laid_out_as_dot_agents_writes_it() -> None:
    for agent in ("claude", "codex"):
        runs = sorted((EVAL / agent / ".agents" / "eval" / "runs").iterdir())
        assert len(runs) == 24
        tasks: dict[str, int] = {}
        for run in runs:
            names = sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file())
            assert names == ["eval-run.yaml", "iteration-log/iter-1.score.yaml",
                             "iteration-log/iter-1.yaml", "taskspec.yaml"]  # fmt: skip
            record = yaml.safe_load((run / "eval-run.yaml").read_text())
            iteration = yaml.safe_load((run / "iteration-log" / "iter-1.yaml").read_text())
            spec = yaml.safe_load((run / "taskspec.yaml").read_text())
            assert record["run_id"] == run.name == iteration["wave"]
            assert iteration["schema_version"] == 2
            assert record["task_id"] == spec["task_id"] == iteration["task_id"]
            assert set(record["agent"]) == {"harness", "model", "session_id", "retries",
                                            "exit_code", "duration", "prompt_digest",
                                            "output_digest"}  # fmt: skip
            assert set(record["verify"]) == {"passed", "phase", "exit_code", "duration"}
            assert set(record["score"]) == {"value", "band", "scored", "rubric_version"}
            assert "template_id" in spec["generated_from"]
            tasks[spec["task_id"]] = tasks.get(spec["task_id"], 0) + 1
        assert len(tasks) == 8 and set(tasks.values()) == {3}


def test_the_two_agents_share_tasks_and_both_fail_some() -> None:
    seen: dict[str, set[str]] = {}
    for agent in ("claude", "codex"):
        records = [
            yaml.safe_load(p.read_text())
            for p in EVAL.glob(f"{agent}/.agents/eval/runs/*/eval-run.yaml")
        ]
        seen[agent] = {r["task_id"] for r in records}
        passed = [r["verify"]["passed"] for r in records]
        assert 0 < sum(passed) < len(passed)
        assert {r["difficulty"] for r in records} == {"easy", "medium", "hard"}
        assert len({r["language"] for r in records}) == 4
    assert seen["claude"] == seen["codex"]
