"""Evidence for outcome scoring that lives outside the iteration log itself.

For each iteration of an :class:`~toolkit.load.iterlog.IterationLog`: git facts about its
commit (found by SHA, or a trunk commit whose subject is the iteration's summary), the
files the commit changed and the task's ``write_scope`` (from
``.agents/workflow/plans/*/TASKS.yaml`` on the trunk), the review-decision artifact's
correction counts, each verifier's result-artifact status, and agent transcript events.

Artifact paths in logs are repository-relative; they are looked up in the log folder,
then the repository's working tree, then on its trunk (so bare repositories work too).
For a log in object storage the log folder is where it lives: its artifacts are fetched
from there, all in one batched request. The repository, the transcript folders and an
absolute artifact path are on this machine (a URL for either is refused with one line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    LOAD_ISSUES_SCHEMA,
    OUTCOME_EVIDENCE_SCHEMA,
    TOOL_USES_SCHEMA,
    TRANSCRIPT_EVENTS_SCHEMA,
    TRANSCRIPT_TURNS_SCHEMA,
    VERIFIER_EVIDENCE_SCHEMA,
)
from toolkit.io import edge
from toolkit.io.source import disk_path
from toolkit.io.yamlkeys import YamlProblem, parse_yaml
from toolkit.load._fields import count, text
from toolkit.load.git import GitRepo
from toolkit.load.iterlog import IterationLog
from toolkit.load.transcripts import load_transcripts
from toolkit.summary import Shows, Summary, issue_notes

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
        tool_uses: every tool call in the transcripts (Claude Code and Codex),
            :data:`toolkit.frames.TOOL_USES_SCHEMA`.
        transcript_turns: every timestamped transcript line,
            :data:`toolkit.frames.TRANSCRIPT_TURNS_SCHEMA`.
        added_lines: per iteration whose commit was found, the text its commit added
            (the ``+`` lines of its diff against the first parent), for checking the
            test names a verifier claims it added.
    """

    commits: pl.DataFrame
    verifier_artifacts: pl.DataFrame
    transcript_events: pl.DataFrame
    transcripts_given: bool = False
    issues: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=LOAD_ISSUES_SCHEMA))
    repo: str | None = None
    trunk: str | None = None
    tool_uses: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=TOOL_USES_SCHEMA))
    transcript_turns: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=TRANSCRIPT_TURNS_SCHEMA)
    )
    added_lines: Mapping[int, str] = field(default_factory=dict)

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


#: The bytes of a file or object, or why it could not be read; ``None``: it is not there.
Found = bytes | InputError | None


def _artifact_candidates(
    ref: str, log: IterationLog, git: GitRepo | None, beside: Mapping[str, Found]
) -> list[tuple[str, Found]]:
    """Where ``ref`` may be, in lookup order, each with what is there: the log folder
    (fetched through the log's source, see :func:`_fetch_beside`), then the
    repository's working tree. An absolute ref is a path on this machine."""
    as_path = Path(ref)
    if as_path.is_absolute():
        return [(str(as_path), _read_local(as_path))]
    key = log.source.lookup(str(log.root), ref)
    out: list[tuple[str, Found]] = [(key or ref, beside.get(ref))]
    if git is not None and git.worktree is not None:
        out.append((str(git.worktree / as_path), _read_local(git.worktree / as_path)))
    return out


def _read_local(path: Path) -> Found:
    if not path.is_file():
        return None
    try:
        return edge.read_bytes(path)
    except InputError as err:
        return err


def _fetch_beside(log: IterationLog, refs: Iterable[str]) -> dict[str, Found]:
    """The relative artifact refs looked up beside the log, all fetched in one batched
    request (``None``: no such file, or not a file)."""
    keys = {
        ref: key
        for ref in sorted(set(refs))
        if not Path(ref).is_absolute() and (key := log.source.lookup(str(log.root), ref))
    }
    got = log.source.fetch(sorted(set(keys.values())))
    out: dict[str, Found] = {}
    for ref, key in keys.items():
        blob = got[key]
        missing = isinstance(blob, InputError) and (
            isinstance(blob.__cause__, FileNotFoundError)
            or log.source.kind(key) in ("folder", "missing")
        )
        out[ref] = None if missing else blob
    return out


def _read_artifact(
    ref: str, log: IterationLog, git: GitRepo | None, beside: Mapping[str, Found]
) -> tuple[Any, str | None, str | None]:
    """(data, where it was found, reason when it could not be used)."""
    content: str | None = None
    where: str | None = None
    problem: InputError | None = None
    for candidate, found in _artifact_candidates(ref, log, git, beside):
        if found is None:
            continue
        try:
            if isinstance(found, InputError):
                raise found
            content = edge.decode_text(found, candidate)
        except InputError as err:
            problem = problem or err
            continue
        where = candidate
        break
    as_path = Path(ref)
    if content is None and git is not None and git.trunk is not None and not as_path.is_absolute():
        content = git.show(git.trunk, ref)
        where = f"{git.trunk}:{ref}" if content is not None else None
    if content is None:
        if problem is not None:
            return None, None, f"{ref} could not be read ({problem})"
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


def check_local_evidence(
    repo: str | Path | GitRepo | None, transcripts: Iterable[str | Path]
) -> None:
    """The repository and the transcript folders are read on this machine: refuse a URL
    for either, with one line (checked before any log is read).

    Raises:
        InputError: ``repo`` or a transcript folder is a URL.
    """
    if repo is not None and not isinstance(repo, GitRepo) and disk_path(repo) is None:
        raise InputError(
            repo, "a git repository is read from a local folder, not a URL (clone it first)"
        )
    for folder in transcripts:
        if disk_path(folder) is None:
            raise InputError(
                folder, "transcripts are read from local folders, not URLs (copy them first)"
            )


def collect_outcome_evidence(
    log: IterationLog,
    repo: str | Path | GitRepo | None = None,
    transcripts: Iterable[str | Path] = (),
) -> OutcomeEvidence:
    """Gather git, artifact and transcript facts for every iteration of ``log``.

    Args:
        log: the loaded iteration log.
        repo: the repository the log's commits live in (bare or not, a local folder);
            without it the git facts are missing and say so.
        transcripts: local folders of ``*.jsonl`` transcripts, read recursively: Claude
            Code project folders and Codex session folders (``~/.codex/sessions``) alike.

    Returns:
        The :class:`OutcomeEvidence`.

    Raises:
        InputError: ``repo`` is not a git repository, or a transcript folder is missing;
            either is a URL (they are read from local folders only).
    """
    folders = list(transcripts)
    check_local_evidence(repo, folders)
    git = repo if isinstance(repo, GitRepo) or repo is None else GitRepo(repo)
    issues: list[dict[str, Any]] = []
    plans = _task_plans(git, issues) if git is not None else {}
    with_artifact = log.verifiers.filter(pl.col("result_artifact").is_not_null())
    refs = [
        *with_artifact["result_artifact"],
        *log.iterations["review_decision_artifact"].drop_nulls(),
    ]
    beside = _fetch_beside(log, [r for r in refs if r])
    rows: list[dict[str, Any]] = []
    for it in log.iterations.iter_rows(named=True):
        rows.append(_iteration_facts(it, git, plans, log, beside))

    artifact_rows = _artifact_rows(with_artifact, log, git, beside)
    events = pl.DataFrame(schema=TRANSCRIPT_EVENTS_SCHEMA)
    uses = pl.DataFrame(schema=TOOL_USES_SCHEMA)
    turns = pl.DataFrame(schema=TRANSCRIPT_TURNS_SCHEMA)
    if folders:
        loaded = load_transcripts(folders)
        events, uses, turns = loaded.events, loaded.tool_uses, loaded.turns
        issues.extend(loaded.issues.to_dicts())
    added = _added_lines(log, git, rows) if git is not None else {}
    return OutcomeEvidence(
        commits=pl.DataFrame(rows, schema=OUTCOME_EVIDENCE_SCHEMA),
        verifier_artifacts=pl.DataFrame(artifact_rows, schema=VERIFIER_EVIDENCE_SCHEMA),
        transcript_events=events,
        transcripts_given=bool(folders),
        issues=pl.DataFrame(issues, schema=LOAD_ISSUES_SCHEMA),
        repo=None if git is None else str(git.path),
        trunk=None if git is None else git.trunk,
        tool_uses=uses,
        transcript_turns=turns,
        added_lines=added,
    )


def _artifact_rows(
    with_artifact: pl.DataFrame,
    log: IterationLog,
    git: GitRepo | None,
    beside: Mapping[str, Found],
) -> list[dict[str, Any]]:
    """Each verifier's result artifact: where it was found, its status, or why not."""
    artifact_rows: list[dict[str, Any]] = []
    for v in with_artifact.iter_rows(named=True):
        data, where, reason = _read_artifact(v["result_artifact"], log, git, beside)
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
    return artifact_rows


def _added_lines(
    log: IterationLog, git: GitRepo, rows: Iterable[Mapping[str, Any]]
) -> dict[int, str]:
    """The lines each commit added, for the iterations whose verifiers claim tests added
    by kind."""
    added: dict[int, str] = {}
    claimed = log.verifiers.filter(pl.col("tests_added_by_kind").list.len() > 0)
    wanted = set(claimed["iteration"].to_list())
    for row in rows:
        if row["iteration"] in wanted and row.get("commit_sha"):
            added[row["iteration"]] = git.added_lines(row["commit_sha"])
    return added


def _iteration_facts(
    it: Mapping[str, Any],
    git: GitRepo | None,
    plans: dict[str, list[_Task]],
    log: IterationLog,
    beside: Mapping[str, Found],
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
        data, where, reason = _read_artifact(ref, log, git, beside)
        row["decision_artifact_path"] = where
        row["decision_artifact_reason"] = reason
        if data is not None:
            row["user_corrections"], row["retries_in_loop"] = _corrections(data)
    return row
