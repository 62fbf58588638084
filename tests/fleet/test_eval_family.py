"""The fleet finder's eval family: a repository's .agents/eval/runs, that folder, a run
folder and a folder of run folders; scored with the outcome rubric, landed absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.errors import InputError
from toolkit.fleet.eval_runs import score_eval_runs
from toolkit.fleet.find import detect_family, discover, find_eval_runs

REPO = SAMPLE_RUNS / "eval_runs" / "claude"
RUNS = REPO / ".agents" / "eval" / "runs"


@pytest.mark.parametrize("where", [REPO, RUNS, SAMPLE_RUNS / "eval_runs"])
def test_a_repository_its_runs_folder_and_a_folder_of_repositories(where: Path) -> None:
    assert detect_family(where) == "eval"
    found = find_eval_runs(where)
    assert len(found) == (48 if where.name == "eval_runs" else 24)
    assert all(Path(f, "eval-run.yaml").is_file() for f in found)


def test_one_run_folder_is_one_run_and_its_log_is_no_outcome_log_of_its_own() -> None:
    run = sorted(RUNS.iterdir())[0]
    assert [f.family for f in discover(run)] == ["eval"]
    assert {f.family for f in discover(REPO)} == {"eval"}


def test_other_hidden_folders_of_a_repository_stay_unwalked(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(sorted(RUNS.iterdir())[0], repo / ".agents" / "eval" / "runs" / "r1")
    shutil.copytree(sorted(RUNS.iterdir())[0] / "iteration-log", repo / ".agents" / "active")
    shutil.copytree(sorted(RUNS.iterdir())[0] / "iteration-log", repo / ".git" / "logs")
    assert [(f.family, Path(f.path).name) for f in discover(repo)] == [("eval", "r1")]


def test_no_runs_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no eval-harness runs"):
        find_eval_runs(tmp_path)


def test_runs_are_scored_from_their_log_without_landed() -> None:
    scored = score_eval_runs(RUNS)
    runs = scored.runs
    assert runs.height == 24 and runs["scored"].all()
    # The sample's eval-run.yaml holds the score its generator computed with this rubric.
    assert (runs["value"] - runs["recorded_value"]).abs().max() < 1e-4
    assert set(runs["rubric_version"].to_list()) == set(runs["recorded_version"].to_list())
