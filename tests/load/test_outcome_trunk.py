"""The trunk as docs/rubrics/outcome.md describes it: the first of the local branches
``main``, ``master``, ``trunk`` that exists (a remote-tracking ``origin/main`` is not
one), else ``HEAD``; none in a repository without a commit. The ``landed`` row's label
says ``master`` whatever the trunk is (dot-agents' label), and its detail names the
branch the commit was looked for on."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from test_outcome_evidence import git  # a commit-making git with a fixed identity

from toolkit import (
    GitRepo,
    collect_outcome_evidence,
    load_iteration_log,
    load_outcome_rubric,
    score_outcome,
)


def _repo(path: Path, branch: str, *others: str) -> Path:
    """A repository with one commit on ``branch`` (checked out) and on each of ``others``."""
    path.mkdir()
    git(path, "init", "-q")
    git(path, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    git(path, "commit", "-q", "--allow-empty", "-m", "first")
    for other in others:
        git(path, "branch", other)
    return path


@pytest.mark.parametrize(
    ("checked_out", "others", "trunk"),
    [
        ("master", ("main", "trunk"), "main"),  # main first, wherever HEAD is
        ("trunk", ("master",), "master"),
        ("feature", ("trunk",), "trunk"),
        ("develop", (), "HEAD"),  # none of the three: the commit checked out
    ],
)
def test_the_trunk_is_the_first_local_branch_of_main_master_trunk_else_head(
    tmp_path: Path, checked_out: str, others: tuple[str, ...], trunk: str
) -> None:
    assert GitRepo(_repo(tmp_path / "r", checked_out, *others)).trunk == trunk


def test_a_remote_tracking_main_is_not_the_trunk(tmp_path: Path) -> None:
    origin = _repo(tmp_path / "origin", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "branch", "-q", "-D", "main")  # origin/main stays
    assert git(clone, "branch", "-r").split() == ["origin/HEAD", "->", "origin/main", "origin/main"]
    assert GitRepo(clone).trunk == "HEAD"


def test_a_repository_without_a_commit_has_no_trunk(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert GitRepo(empty).trunk is None


def test_the_landed_label_says_master_and_its_detail_names_the_trunk_used(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path / "repo", "main")
    sha = git(repo, "rev-parse", "HEAD")
    log = tmp_path / "log"
    log.mkdir()
    (log / "iter-1.yaml").write_text(
        f'schema_version: 2\niteration: 1\ndate: "2026-06-02"\ntask_id: t-1\ncommit: {sha}\n',
        encoding="utf-8",
    )
    loaded = load_iteration_log(log)
    result = score_outcome(
        loaded, collect_outcome_evidence(loaded, repo=repo), load_outcome_rubric()
    )
    row = result.breakdown.filter(pl.col("signal") == "landed").row(0, named=True)
    assert row["label"] == "Landed on master"
    assert row["detail"] == f"commit {sha[:12]} on main, not reverted"
    assert row["sub_score"] == 1.0
