"""Evidence for outcome scoring that lives outside the iteration log itself.

For each iteration of an :class:`~toolkit.load.iterlog.IterationLog`: git facts about its
commit (found by SHA, or a trunk commit whose subject is the iteration's summary), the
files the commit changed and the task's ``write_scope`` (from
``.agents/workflow/plans/*/TASKS.yaml`` on the trunk), the review-decision artifact's
correction counts, each verifier's result-artifact status, and agent transcript events.

Artifact paths in logs are repository-relative; they are looked up in the log folder,
then the repository's working tree, then on its trunk (so bare repositories work too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from toolkit._show import Shows, Summary, issue_notes
from toolkit.errors import InputError
from toolkit.frames import (
    LOAD_ISSUES_SCHEMA,
    OUTCOME_EVIDENCE_SCHEMA,
    TRANSCRIPT_EVENTS_SCHEMA,
    VERIFIER_EVIDENCE_SCHEMA,
)
from toolkit.load import _edge
from toolkit.load._fields import count, text
from toolkit.load._yaml import YamlProblem, parse_yaml
from toolkit.load.git import GitRepo
from toolkit.load.iterlog import IterationLog
from toolkit.load.transcripts import load_transcripts

PLANS_FOLDER = ".agents/workflow/plans"
_TASKS_FILE = re.compile(rf"^{re.escape(PLANS_FOLDER)}/([^/]+)/TASKS\.yaml$")

#: Shortest hex prefix of a SHA that a revert message must mention (git's default).
REVERT_MIN_HEX = 7


@dataclass(frozen=True, repr=False)
class OutcomeEvidence(Shows):
    """Facts gathered for the outcome rubric.

    Attributes:
        commits: one row per iteration, :data:`toolkit.frames.OUTCOME_EVIDENCE_SCHEMA`
            (git facts, write scope, review-decision artifact counts, each with the reason
            when missing).
        verifier_artifacts: one row per verifier with a ``result_artifact``,
            :data:`toolkit.frames.VERIFIER_EVIDENCE_SCHEMA`.
        transcript_events: :data:`toolkit.frames.TRANSCRIPT_EVENTS_SCHEMA`.
        transcripts_given: whether transcript folders were given at all.
        issues: problems met on the way (a broken TASKS.yaml, a bad transcript line),
            :data:`toolkit.frames.LOAD_ISSUES_SCHEMA`.
        repo: the repository path, when one was given.
        trunk: the trunk branch used for git facts.
    """

    commits: pl.DataFrame
    verifier_artifacts: pl.DataFrame
    transcript_events: pl.DataFrame
    transcripts_given: bool = False
    issues: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=LOAD_ISSUES_SCHEMA))
    repo: str | None = None
    trunk: str | None = None

    def _summary(self) -> Summary:
        return Summary(
            "OutcomeEvidence",
            f"repository {self.repo or '(none)'}",
            (
                ("iterations", self.commits.height),
                ("verifier artifacts", self.verifier_artifacts.height),
                ("transcript events", self.transcript_events.height),
                ("issues", self.issues.height),
            ),
            notes=issue_notes(self.issues.iter_rows(named=True)),
        )

    def issue_lines(self) -> list[str]:
        """The issues as ``path[:line]: reason`` lines."""
        return [
            f"{r['path']}{'' if r['line'] is None else ':' + str(r['line'])}: {r['reason']}"
            for r in self.issues.iter_rows(named=True)
        ]


@dataclass(frozen=True)
class _Task:
    plan: str
    write_scope: tuple[str, ...]


def _short(sha: str) -> str:
    return sha[:12]


def _task_plans(git: GitRepo, issues: list[dict[str, Any]]) -> dict[str, list[_Task]]:
    """task id -> the plans (on the trunk) that declare it."""
    trunk = git.trunk
    if trunk is None:
        return {}
    tasks: dict[str, list[_Task]] = {}
    for path in git.files(trunk, PLANS_FOLDER):
        match = _TASKS_FILE.match(path)
        if not match:
            continue
        where = f"{git.path}/{path}@{trunk}"
        content = git.show(trunk, path) or ""
        try:
            data = parse_yaml(content, source=where).data
        except YamlProblem as exc:
            reason = f"not valid YAML: {exc.reason}"
            issues.append({"path": where, "line": exc.line, "reason": reason})
            continue
        if not isinstance(data, Mapping) or not isinstance(data.get("tasks"), list):
            issues.append({"path": where, "line": None, "reason": "expected `tasks:` with a list"})
            continue
        raw_plan = data.get("plan_id")
        plan = None if isinstance(raw_plan, dict | list) else text(raw_plan)
        for task in data["tasks"]:
            if not isinstance(task, Mapping) or task.get("id") in (None, ""):
                continue
            scope = task.get("write_scope")
            listed = scope if isinstance(scope, list) else []
            entries = [str(e).strip() for e in listed if str(e).strip()]
            tasks.setdefault(str(task["id"]).strip(), []).append(
                _Task(plan or match.group(1), tuple(entries))
            )
    return tasks


def _write_scope(
    task_id: str | None, wave: str | None, plans: dict[str, list[_Task]], trunk: str
) -> tuple[str | None, list[str] | None, str | None]:
    """(plan, write_scope, reason when there is none)."""
    if not task_id:
        return None, None, "no task_id in the log"
    candidates = plans.get(task_id, [])
    chosen = [t for t in candidates if t.plan == wave] or candidates
    if not candidates:
        return None, None, f"task {task_id} is in no {PLANS_FOLDER}/*/TASKS.yaml on {trunk}"
    if len(chosen) > 1:
        names = ", ".join(sorted(t.plan for t in chosen))
        return None, None, f"task {task_id} is in several plans ({names}) and wave names none"
    task = chosen[0]
    if not task.write_scope:
        return task.plan, None, f"task {task_id} (plan {task.plan}) declares no write_scope"
    return task.plan, list(task.write_scope), None


def _read_artifact(ref: str, root: Path, git: GitRepo | None) -> tuple[Any, str | None, str | None]:
    """(data, where it was found, reason when it could not be used)."""
    candidates: list[Path] = []
    as_path = Path(ref)
    if as_path.is_absolute():
        candidates.append(as_path)
    else:
        candidates.append(root / as_path)
        if git is not None and git.worktree is not None:
            candidates.append(git.worktree / as_path)
    content: str | None = None
    where: str | None = None
    for candidate in candidates:
        if candidate.is_file():
            try:
                content = _edge.read_text(candidate)
            except InputError:
                continue
            where = str(candidate)
            break
    if content is None and git is not None and git.trunk is not None and not as_path.is_absolute():
        content = git.show(git.trunk, ref)
        where = f"{git.trunk}:{ref}" if content is not None else None
    if content is None:
        places = "the log folder" + (", the repository" if git is not None else "")
        return None, None, f"{ref} not found in {places}"
    try:
        data = parse_yaml(content, source=where or ref).data
    except YamlProblem as exc:
        return None, where, f"{ref} is not valid YAML ({exc.reason})"
    if not isinstance(data, Mapping):
        return None, where, f"{ref} is not a YAML mapping"
    return data, where, None


def _corrections(data: Mapping[str, Any]) -> tuple[int, int]:
    post = data.get("post_invocation")
    if not isinstance(post, Mapping):
        return 0, 0
    listed = post.get("user_corrections")
    if isinstance(listed, list):
        corrections = len(listed)
    else:
        try:
            corrections = count(listed) or 0
        except ValueError:
            corrections = 0
    try:
        in_loop = count(post.get("retries_in_loop")) or 0
    except ValueError:
        in_loop = 0
    return corrections, in_loop


def collect_outcome_evidence(
    log: IterationLog,
    repo: str | Path | GitRepo | None = None,
    transcripts: Iterable[str | Path] = (),
) -> OutcomeEvidence:
    """Gather git, artifact and transcript facts for every iteration of ``log``.

    Args:
        log: the loaded iteration log.
        repo: the repository the log's commits live in (bare or not); without it the
            git facts are missing and say so.
        transcripts: folders of Claude Code ``*.jsonl`` transcripts.

    Returns:
        The :class:`OutcomeEvidence`.

    Raises:
        InputError: ``repo`` is not a git repository, or a transcript folder is missing.
    """
    git = repo if isinstance(repo, GitRepo) or repo is None else GitRepo(repo)
    issues: list[dict[str, Any]] = []
    plans = _task_plans(git, issues) if git is not None else {}
    rows: list[dict[str, Any]] = []
    for it in log.iterations.iter_rows(named=True):
        rows.append(_iteration_facts(it, git, plans, log.root))

    artifact_rows: list[dict[str, Any]] = []
    for v in log.verifiers.filter(pl.col("result_artifact").is_not_null()).iter_rows(named=True):
        data, where, reason = _read_artifact(v["result_artifact"], log.root, git)
        status = None
        if data is not None:
            try:
                status = text(data.get("status"))
            except ValueError:
                status = None
            if status is None:
                reason = f"{v['result_artifact']} records no status"
        artifact_rows.append(
            {
                "iteration": v["iteration"],
                "verifier_index": v["verifier_index"],
                "artifact_path": where,
                "artifact_status": status,
                "artifact_reason": reason,
            }
        )

    folders = list(transcripts)
    events = pl.DataFrame(schema=TRANSCRIPT_EVENTS_SCHEMA)
    if folders:
        loaded = load_transcripts(folders)
        events = loaded.events
        issues.extend(loaded.issues.to_dicts())
    return OutcomeEvidence(
        commits=pl.DataFrame(rows, schema=OUTCOME_EVIDENCE_SCHEMA),
        verifier_artifacts=pl.DataFrame(artifact_rows, schema=VERIFIER_EVIDENCE_SCHEMA),
        transcript_events=events,
        transcripts_given=bool(folders),
        issues=pl.DataFrame(issues, schema=LOAD_ISSUES_SCHEMA),
        repo=None if git is None else str(git.path),
        trunk=None if git is None else git.trunk,
    )


def _iteration_facts(
    it: Mapping[str, Any], git: GitRepo | None, plans: dict[str, list[_Task]], root: Path
) -> dict[str, Any]:
    row: dict[str, Any] = {"iteration": it["iteration"]}
    logged = it["commit"]
    if git is None:
        row["git_reason"] = "no repository given (--repo)"
        row["write_scope_reason"] = "no repository given (--repo)"
    elif git.trunk is None:
        row["git_reason"] = row["write_scope_reason"] = "the repository has no commits"
    else:
        row["trunk"] = git.trunk
        sha = git.resolve(logged) if logged else None
        if not logged:
            row["git_reason"] = "no commit recorded in the log"
        elif sha is not None:
            row["commit_via"] = "sha"
        else:
            stand_in = git.trunk_commit_with_subject(it["impl_summary"] or "")
            if it["impl_summary"] and stand_in is not None:
                sha = stand_in.sha
                row["commit_via"] = "summary"
            else:
                row["git_reason"] = (
                    f"commit {logged} is not in the repository and no {git.trunk} commit "
                    "has the summary as its subject"
                )
        if sha is not None:
            commit = git.commit(sha)
            reverter = git.reverted_by(sha, REVERT_MIN_HEX)
            row |= {
                "commit_sha": sha,
                "commit_time": None if commit is None else commit.time,
                "on_trunk": git.on_trunk(sha),
                "reverted_by": None if reverter is None else reverter.sha,
                "changed_files": git.changed_files(sha),
            }
        plan, scope, reason = _write_scope(it["task_id"], it["wave"], plans, git.trunk)
        row |= {"task_plan": plan, "write_scope": scope, "write_scope_reason": reason}

    ref = it["review_decision_artifact"]
    if not ref:
        row["decision_artifact_reason"] = "no review decision_artifact in the log"
    else:
        data, where, reason = _read_artifact(ref, root, git)
        row["decision_artifact_path"] = where
        row["decision_artifact_reason"] = reason
        if data is not None:
            row["user_corrections"], row["retries_in_loop"] = _corrections(data)
    return row
