"""Agent iteration logs (dot-agents): ``iter-N.yaml`` files in schema v1 or v2.

A log is a folder (on the disk, or in object storage named by an fsspec URL) of
``iter-<N>.yaml`` files, an optional ``historical.yaml`` whose
``iterations:`` list fills in iterations that have no dedicated file, and sidecars that
are never iterations: ``iter-N.hook-outcomes.yaml`` (read here), reviewers'
``iter-N.labels.yaml`` (read here, by :mod:`toolkit.load.labels`; never written),
``iter-N.score.yaml`` (only its ``rubric_version`` read) and ``session-<id>.score.yaml``
(written by :mod:`toolkit.sidecars`).

:func:`load_iteration_log` normalises both schema versions into typed frames. A file
that cannot be used (not YAML, an unknown ``schema_version``, a field with a value of
the wrong kind) is reported in :attr:`IterationLog.issues` with its path, line and
reason, and the rest of the log still loads. A log in object storage is listed once and
its files fetched in one batched request; the bytes then pass the same checks (size
limit, decoding, YAML limits) and the same parsing as bytes read from the disk.
"""

from __future__ import annotations

import copy
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, TypeVar

import polars as pl
from pydantic import BaseModel, ValidationError

from toolkit.errors import InputError
from toolkit.frames import (
    HOOK_OUTCOMES_SCHEMA,
    ITERATIONS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    VERIFIERS_SCHEMA,
)
from toolkit.io import edge
from toolkit.io.source import Folder, Source, open_source
from toolkit.io.yamlkeys import ParsedYaml, YamlProblem, YamlRefused, parse_yaml
from toolkit.load._fields import MAX_INT64
from toolkit.load._iterlog_files import HookRecord, V1Entry, V2Entry
from toolkit.load.labels import LABELS_FILE, label_rows, labels_frame
from toolkit.summary import Shows, Summary, issue_notes

ITER_FILE = re.compile(r"^iter-(\d+)\.yaml$")
HOOK_FILE = re.compile(r"^iter-(\d+)\.hook-outcomes\.yaml$")
SCORE_FILE = re.compile(r"^iter-(\d+)\.score\.yaml$")
HISTORICAL_FILE = "historical.yaml"
KNOWN_SCHEMA_VERSIONS = (1, 2)

#: Keys whose scalar values are kept as written (ids and free text, never numbers/bools).
VERBATIM_KEYS = frozenset(
    {
        "commit",
        "first_commit",
        "task_id",
        "wave",
        "session_id",
        "harness",
        "model",
        "summary",
        "scope_note",
        "persisted_via_workflow_commands",
        "type",
        "status",
        "result_artifact",
        "phase_1_decision",
        "phase_2_decision",
        "overall_decision",
        "decision_artifact",
        "trace_ref",
        "outcome_ref",
        "name",
        "kind",
        "sentinel_id",
        "skill",
        "lifecycle_point",
        "intervention_class",
        "result",
        "rule_id",
        "platform",
        "correlation_id",
    }
)


# ---------------------------------------------------------------------------
# The loaded log
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class IterationLog(Shows):
    """A loaded iteration log.

    Attributes:
        root: the log folder (for a log in object storage, its fsspec path
            ``bucket/key``, as files of remote runs are named).
        iterations: one row per iteration, :data:`toolkit.frames.ITERATIONS_SCHEMA`
            (iteration, schema_version, source, source_file, date, wave, task_id, commit,
            files/lines changed, checkpoint_at, agent_*, token counts, cache_hit_rate,
            impl_* fields, review_* fields, verifier_count, hook_outcomes_file,
            hook_outcomes_problem: why a sidecar that exists could not be used).
        verifiers: one row per verifier, :data:`toolkit.frames.VERIFIERS_SCHEMA`.
        hook_outcomes: one row per hook-outcome record,
            :data:`toolkit.frames.HOOK_OUTCOMES_SCHEMA`.
        issues: what could not be used, :data:`toolkit.frames.LOAD_ISSUES_SCHEMA`
            (path, line, reason).
        source: where the log lives (a local folder or object storage); evidence
            beside the log is fetched from it.
        labels: reviewers' labels (``iter-N.labels.yaml``, dot-agents 3.0.0), one row
            per label with its latest edit, :data:`toolkit.frames.LABELS_SCHEMA`.
        score_versions: iteration -> the ``rubric_version`` its existing
            ``iter-N.score.yaml`` was written under (read, never as an iteration).
    """

    root: Path
    iterations: pl.DataFrame
    verifiers: pl.DataFrame
    hook_outcomes: pl.DataFrame
    issues: pl.DataFrame
    source: Source
    labels: pl.DataFrame = field(default_factory=lambda: labels_frame([]))
    score_versions: Mapping[int, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """The log's folder as the user names it: its URL, or its local path."""
        return self.source.url(str(self.root))

    def _summary(self) -> Summary:
        return Summary(
            "IterationLog",
            self.where,
            (
                ("iterations", self.iterations.height),
                ("verifiers", self.verifiers.height),
                ("hook outcomes", self.hook_outcomes.height),
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


M = TypeVar("M", bound=BaseModel)
Report = Callable[[int | None, str], None]


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _get(data: Any, path: tuple[Any, ...]) -> tuple[bool, Any]:
    node = data
    for part in path:
        in_dict = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not (in_dict or in_list):
            return False, None
        node = node[part]
    return True, node


def _drop(data: Any, path: tuple[Any, ...]) -> None:
    ok, parent = _get(data, path[:-1])
    if ok and isinstance(parent, dict):
        parent.pop(path[-1], None)
    elif ok and isinstance(parent, list):
        del parent[path[-1]]


def _validate(
    cls: type[M], data: dict[str, Any], parsed: ParsedYaml, prefix: tuple[Any, ...], report: Report
) -> M | None:
    """Validate ``data`` with ``cls``; a field with an unusable value is reported and
    dropped (it becomes unreported) and validation retried. ``None`` when a required
    field is missing or unusable. ``data`` is never changed: the fields are dropped
    from a copy, made only when one must be (validation itself changes nothing)."""
    work = data
    for _ in range(200):
        try:
            return cls.model_validate(work)
        except ValidationError as exc:
            if work is data:
                work = copy.deepcopy(data)
            err = exc.errors()[0]
            loc = tuple(err["loc"])
            msg = str(err["msg"]).removeprefix("Value error, ")
            # Find the deepest prefix of the error location that exists in the data.
            path = loc
            while path and not _get(work, path)[0]:
                path = path[:-1]
            where = ".".join(str(p) for p in loc) or "(entry)"
            line = parsed.line_of((*prefix, *path))
            if path != loc or not path:
                report(line, f"{where}: {msg}")
                return None
            shown = f"{where}={_short(_get(work, path)[1])}: {msg}"
            field = cls.model_fields.get(str(path[0])) if len(path) == 1 else None
            if field is not None and field.is_required():
                report(line, f"{shown}; skipped")
                return None
            dropped = "item skipped" if isinstance(path[-1], int) else "left unreported"
            report(line, f"{shown}; {dropped}")
            _drop(work, path)
    return None  # pragma: no cover - a document cannot hold 200 bad fields and still parse


def _schema_version(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


@dataclass
class _Rows:
    iterations: dict[int, dict[str, Any]]
    verifiers: dict[int, list[dict[str, Any]]]
    hooks: list[dict[str, Any]]
    hook_files: dict[int, str]
    issues: list[dict[str, Any]]
    hook_problems: dict[int, str]
    labels: list[dict[str, Any]] = field(default_factory=list)
    score_versions: dict[int, str] = field(default_factory=dict)

    def issue(self, path: PurePath, line: int | None, reason: str) -> None:
        self.issues.append({"path": str(path), "line": line, "reason": " ".join(reason.split())})


#: The bytes of one file of a log, or why it could not be read (from the reading edge).
Blob = bytes | InputError


def _parse(path: PurePath, blob: Blob, rows: _Rows) -> ParsedYaml | None:
    """Decode and parse one file of the log, wherever its bytes came from; a problem is
    an issue row and ``None``."""
    try:
        if isinstance(blob, InputError):
            raise blob
        content = edge.decode_text(blob, str(path))
    except InputError as err:
        edge.skipped_input(path, err.reason)
        rows.issue(path, None, f"{err.reason}; the file was skipped")
        return None
    try:
        return parse_yaml(content, VERBATIM_KEYS, source=str(path))
    except YamlRefused as exc:
        rows.issue(path, exc.line, f"{exc.reason}; the file was skipped")
        return None
    except YamlProblem as exc:
        rows.issue(path, exc.line, f"not valid YAML: {exc.reason}; the file was skipped")
        return None


def _entry_rows(
    entry: V1Entry | V2Entry, iteration: int, source: str, path: PurePath
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One iteration's row and its verifiers' rows, from an entry of either schema."""
    row: dict[str, Any] = {
        "iteration": iteration,
        "schema_version": entry.schema_version,
        "source": source,
        "source_file": str(path),
        "date": entry.date,
        "wave": entry.wave,
        "task_id": entry.task_id,
        "commit": entry.commit,
        "files_changed": entry.files_changed,
        "lines_added": entry.lines_added,
        "lines_removed": entry.lines_removed,
        "first_commit": entry.first_commit,
        "review_failed_gates": [],
        "verifier_count": 0,
    }
    if isinstance(entry, V1Entry):
        sa = entry.self_assessment
        row |= {
            "impl_summary": entry.summary,
            "impl_scope_note": entry.scope_note,
            "impl_retries": entry.retries,
            "impl_tests_added": entry.tests_added,
            "impl_tests_total_pass": entry.tests_total_pass,
            "impl_persisted_via_workflow_commands": sa and sa.persisted_via_workflow_commands,
            "impl_linked_traces_to_outcomes": sa and sa.linked_traces_to_outcomes,
            "impl_self_assessment": sa is not None,
        }
        return row, []
    row |= _v2_fields(entry)
    verifiers = _verifier_rows(entry, iteration, path)
    row["verifier_count"] = len(verifiers)
    return row, verifiers


def _v2_fields(entry: V2Entry) -> dict[str, Any]:
    """The columns only a schema v2 entry fills: agent, tokens, impl and review."""
    agent, tokens, impl, review = entry.agent, entry.session_tokens, entry.impl, entry.review
    row: dict[str, Any] = {"checkpoint_at": entry.checkpoint_at}
    if agent is not None:
        row |= {
            "agent_session_id": agent.session_id,
            "agent_harness": agent.harness,
            "agent_model": agent.model,
        }
    if tokens is not None:
        row |= {
            "input_tokens": tokens.input_tokens,
            "output_tokens": tokens.output_tokens,
            "cache_read_tokens": tokens.cache_read_tokens,
            "cache_creation_tokens": tokens.cache_creation_tokens,
            "cache_hit_rate": tokens.cache_hit_rate,
        }
    if impl is not None:
        sa = impl.self_assessment
        row |= {
            "impl_summary": impl.summary,
            "impl_scope_note": impl.scope_note,
            "impl_retries": impl.retries,
            "impl_tests_added": impl.focused_tests_added,
            "impl_focused_tests_pass": impl.focused_tests_pass,
            "impl_tests_total_pass": impl.tests_total_pass,
            "impl_persisted_via_workflow_commands": sa and sa.persisted_via_workflow_commands,
            "impl_linked_traces_to_outcomes": sa and sa.linked_traces_to_outcomes,
            "impl_self_assessment": sa is not None,
        }
    if review is not None:
        row |= {
            "review_phase_1_decision": review.phase_1_decision,
            "review_phase_2_decision": review.phase_2_decision,
            "review_overall_decision": review.overall_decision,
            "review_failed_gates": [g for g in review.failed_gates if g],
            "review_decision_artifact": review.decision_artifact,
        }
    return row


def _verifier_rows(entry: V2Entry, iteration: int, path: PurePath) -> list[dict[str, Any]]:
    """A schema v2 entry's verifiers, one row each."""
    return [
        {
            "iteration": iteration,
            "verifier_index": index,
            "type": v.type,
            "status": v.status,
            "gate_passed": v.gate_passed,
            "tests_added": v.tests_added,
            "tests_total_pass": v.tests_total_pass,
            "retries": v.retries,
            "result_artifact": v.result_artifact,
            "linked_traces": [t.model_dump() for t in v.linked_traces],
            "tests_added_by_kind": [t.model_dump() for t in v.tests_added_by_kind],
            "linked_traces_to_outcomes": v.self_assessment
            and v.self_assessment.linked_traces_to_outcomes,
            "source_file": str(path),
            "self_assessment": v.self_assessment is not None,
        }
        for index, v in enumerate(entry.verifiers)
    ]


def _load_entry(
    data: Any,
    parsed: ParsedYaml,
    prefix: tuple[Any, ...],
    path: PurePath,
    rows: _Rows,
    *,
    file_iteration: int | None,
) -> None:
    """Validate one entry (a whole file, or one item of ``historical.yaml``) into rows."""

    def report(at: int | None, reason: str) -> None:
        # The entry's own line when the problem has none (looked up only on a problem).
        rows.issue(path, at if at is not None else parsed.line_of(prefix), reason)

    if not isinstance(data, Mapping):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        report(None, f"an iteration entry must be a mapping, found {kind}; skipped")
        return
    raw_version = data.get("schema_version")
    version = _schema_version(raw_version)
    if version not in KNOWN_SCHEMA_VERSIONS:
        shown = "missing" if raw_version is None else f"={_short(raw_version)}"
        report(
            parsed.line_of((*prefix, "schema_version")),
            f"schema_version{shown}: unknown schema version (known: 1, 2); entry skipped",
        )
        return
    work = dict(data)
    work["schema_version"] = version
    model: type[V1Entry] | type[V2Entry] = V1Entry if version == 1 else V2Entry
    entry = _validate(model, work, parsed, prefix, report)
    if entry is None:
        return
    iteration = file_iteration if file_iteration is not None else entry.iteration
    if iteration is None:
        report(None, "iteration: missing; entry skipped")
        return
    if file_iteration is not None and entry.iteration not in (None, file_iteration):
        report(
            parsed.line_of((*prefix, "iteration")),
            f"iteration={entry.iteration!r} inside {path.name}; the file name wins "
            f"(iteration {file_iteration})",
        )
    if iteration in rows.iterations and file_iteration is None:
        return  # a dedicated file (or an earlier historical entry) already has it
    # A dedicated file replaces a historical entry loaded before it.
    row, verifiers = _entry_rows(entry, iteration, "file" if file_iteration else "historical", path)
    rows.iterations[iteration] = row
    rows.verifiers[iteration] = verifiers


def _load_hook_sidecar(path: PurePath, blob: Blob, iteration: int, rows: _Rows) -> None:
    known = len(rows.issues)
    _read_hook_sidecar(path, blob, iteration, rows)
    if iteration not in rows.hook_files and len(rows.issues) > known:
        # The whole sidecar was unusable: the signal's detail says why (not "no sidecar").
        problem = rows.issues[known]
        line = "" if problem["line"] is None else f" (line {problem['line']})"
        reason = str(problem["reason"]).removesuffix("; the file was skipped")
        rows.hook_problems[iteration] = f"{path.name} unreadable{line}: {reason}"


def _read_hook_sidecar(path: PurePath, blob: Blob, iteration: int, rows: _Rows) -> None:
    parsed = _parse(path, blob, rows)
    if parsed is None:
        return
    data = parsed.data
    if not isinstance(data, Mapping):
        rows.issue(path, parsed.line_of(()), "a hook-outcome sidecar must be a mapping; skipped")
        return
    version = _schema_version(data.get("schema_version"))
    if version != 1:
        rows.issue(
            path,
            parsed.line_of(("schema_version",)),
            f"schema_version={_short(data.get('schema_version'))}: unknown hook-outcome "
            "schema version (known: 1); skipped",
        )
        return
    rows.hook_files[iteration] = str(path)
    records = data.get("records")
    if records is None:
        return
    if not isinstance(records, list):
        rows.issue(path, parsed.line_of(("records",)), "records: must be a list; skipped")
        return
    for index, raw in enumerate(records):
        if not isinstance(raw, Mapping):
            at = parsed.line_of(("records", index))
            rows.issue(path, at, f"records.{index}: a record must be a mapping; skipped")
            continue

        def report(line: int | None, reason: str, index: int = index) -> None:
            rows.issue(path, line, f"records.{index}.{reason}")

        record = _validate(HookRecord, dict(raw), parsed, ("records", index), report)
        if record is None:
            continue
        rows.hooks.append(
            {
                "iteration": iteration,
                "record_index": index,
                **record.model_dump(),
                "source_file": str(path),
            }
        )


def _wanted(name: str) -> bool:
    """Whether a file of the log's folder is read (iterations, hook sidecars, history)."""
    return (
        bool(ITER_FILE.match(name) or HOOK_FILE.match(name) or LABELS_FILE.match(name))
        or bool(SCORE_FILE.match(name))
        or name == HISTORICAL_FILE
    )


def _parse_log(
    names: Sequence[str], path_of: Callable[[str], PurePath], read: Callable[[str], Blob]
) -> _Rows:
    """The one parsing path of a log, on the disk or in object storage: ``names`` are the
    file names in the log's folder (sorted), ``path_of`` names a file in frames and
    messages and ``read`` gives its bytes (or the reading edge's problem)."""
    rows = _Rows({}, {}, [], {}, [], {})
    for name in names:
        iter_match, hook_match = ITER_FILE.match(name), HOOK_FILE.match(name)
        path = path_of(name)
        if _beyond_64_bits(name):
            rows.issue(path, None, "the iteration number is beyond 64 bits; the file was skipped")
        elif iter_match:
            parsed = _parse(path, read(name), rows)
            if parsed is not None:
                _load_entry(
                    parsed.data, parsed, (), path, rows, file_iteration=int(iter_match.group(1))
                )
        elif hook_match:
            _load_hook_sidecar(path, read(name), int(hook_match.group(1)), rows)
        elif (labels_match := LABELS_FILE.match(name)) is not None:
            _load_labels(path, read(name), int(labels_match.group(1)), rows)
        elif (score_match := SCORE_FILE.match(name)) is not None:
            _load_score_version(path, read(name), int(score_match.group(1)), rows)
    if HISTORICAL_FILE in names:
        _load_historical(path_of(HISTORICAL_FILE), read(HISTORICAL_FILE), rows)
    return rows


def _log_frames(root: Path, rows: _Rows, source: Source) -> IterationLog:
    iteration_rows = [
        row
        | {
            "hook_outcomes_file": rows.hook_files.get(n),
            "hook_outcomes_problem": rows.hook_problems.get(n),
        }
        for n, row in sorted(rows.iterations.items())
    ]
    verifier_rows = [v for n in sorted(rows.verifiers) for v in rows.verifiers[n]]
    return IterationLog(
        root=root,
        iterations=pl.DataFrame(iteration_rows, schema=ITERATIONS_SCHEMA),
        verifiers=pl.DataFrame(verifier_rows, schema=VERIFIERS_SCHEMA),
        hook_outcomes=pl.DataFrame(rows.hooks, schema=HOOK_OUTCOMES_SCHEMA),
        issues=pl.DataFrame(rows.issues, schema=LOAD_ISSUES_SCHEMA).sort(
            "path", "line", nulls_last=False, maintain_order=True
        ),
        source=source,
        labels=labels_frame(rows.labels),
        score_versions=dict(sorted(rows.score_versions.items())),
    )


def _load_labels(path: PurePath, blob: Blob, iteration: int, rows: _Rows) -> None:
    """A reviewers' labels file: its labels, and each problem as an issue naming it."""
    parsed = _parse(path, blob, rows)
    if parsed is None:
        return
    found, problems = label_rows(parsed.data, iteration, str(path), parsed.line_of)
    rows.labels.extend(found)
    for line, reason in problems:
        rows.issue(path, line, reason)


def _load_score_version(path: PurePath, blob: Blob, iteration: int, rows: _Rows) -> None:
    """The ``rubric_version`` an existing score sidecar was written under (nothing else of
    it is read; a sidecar that cannot be read is not a problem of the log)."""
    if isinstance(blob, InputError):
        return
    match = re.search(rb"(?m)^rubric_version:\s*['\"]?([0-9][0-9A-Za-z.+-]*)", blob[:4096])
    if match is not None:
        rows.score_versions[iteration] = match.group(1).decode("ascii")


def load_iteration_log(
    path: str | Path, *, storage_options: Mapping[str, Any] | None = None
) -> IterationLog:
    """Load an iteration log folder into typed frames.

    ``iter-N.yaml`` files are iterations; ``historical.yaml`` entries fill in iterations
    with no dedicated file (a dedicated file wins); ``iter-N.hook-outcomes.yaml`` sidecars
    give the hook-outcome records; ``iter-N.labels.yaml`` reviewers' labels; of an
    ``iter-N.score.yaml`` only its ``rubric_version`` is read; other files are ignored. Tri-state
    test flags stay null when unreported. Problems are collected, not raised: see
    :attr:`IterationLog.issues`.

    Args:
        path: the log folder, or its fsspec URL (``s3://bucket/logs/run-1``, ``gs://…``,
            ``az://…``; ``file://`` URLs are the local disk). A log in object storage
            loads the same frames as the same log on the disk, its files named by their
            fsspec path ``bucket/key``.
        storage_options: fsspec options when ``path`` is a URL (e.g. ``endpoint_url``).

    Returns:
        The :class:`IterationLog`, iterations sorted by number.

    Raises:
        InputError: ``path`` is not a readable folder (no objects under the URL, a
            bucket that does not exist, an unknown scheme, a storage back-end that is
            not installed).

    Example:
        >>> log = load_iteration_log("sample_runs/iteration_logs/tally-loop")  # doctest: +SKIP
        >>> log.iterations.select("iteration", "schema_version", "commit")  # doctest: +SKIP
    """
    return load_iteration_logs([path], storage_options=storage_options)[0]


def load_iteration_logs(
    paths: Sequence[str | Path], *, storage_options: Mapping[str, Any] | None = None
) -> list[IterationLog]:
    """Load many iteration logs, in the order given (see :func:`load_iteration_log`).

    Logs in object storage are listed concurrently and all their files fetched in one
    batched request per storage scheme, not one request per log.

    Raises:
        InputError: as :func:`load_iteration_log`, for the first log that cannot be read.
    """
    sources = [open_source(path, storage_options) for path in paths]
    groups: list[list[int]] = []  # the logs one source can list and fetch together
    for i, source in enumerate(sources):
        group = next((g for g in groups if sources[g[0]].same_store(source)), None)
        if group is None:
            groups.append([i])
        else:
            group.append(i)
    out: dict[int, IterationLog] = {}
    for group in groups:
        logs = _load_logs([sources[i] for i in group])
        out.update(zip(group, logs, strict=True))
    return [out[i] for i in range(len(paths))]


def _check_folder(source: Source, folder: Folder) -> None:
    """Refuse a log that is not a readable folder.

    Raises:
        InputError: no such folder (no objects under a URL), not a folder, or a folder
            that cannot be listed.
    """
    kind = source.kind()
    if kind == "missing":
        raise InputError(source.url(), "no such folder")
    if kind == "file":
        raise InputError(
            source.url(), "not a folder (an iteration log is a folder of iter-N.yaml files)"
        )
    if folder.problem is not None:
        raise InputError(source.url(), folder.problem)
    if kind == "unknown" and folder.empty:  # (a missing bucket is named by the listing)
        raise InputError(source.url(), "no such log folder (no objects under it)")


def _load_logs(sources: Sequence[Source]) -> list[IterationLog]:
    """Logs of one storage: one (concurrent) listing, one batched fetch of every log's
    files, then :func:`_parse_log` for each."""
    fetcher = sources[0]
    listings = fetcher.list_many([s.root for s in sources], marks=False)
    plans: list[tuple[list[str], dict[str, str]]] = []
    keys: list[str] = []
    for source, found in zip(sources, listings, strict=True):
        folder = found[""]
        _check_folder(source, folder)
        names = [n for n in folder.files if _wanted(n)]
        # an entry that cannot be read as a file (a folder named like a file of the log)
        # is an issue; an object with that very key is what a GET returns
        bad = {n: why for n, why in folder.skipped if _wanted(n)}
        for name in folder.folders:
            if _wanted(name) and name not in names:
                bad.setdefault(name, edge.describe_mode(stat.S_IFDIR))
        plans.append((names, bad))
        keys.extend(source.join(source.root, n) for n in names if not _beyond_64_bits(n))
    got = fetcher.fetch(keys)
    logs: list[IterationLog] = []
    for source, (names, bad) in zip(sources, plans, strict=True):

        def path_of(name: str, source: Source = source) -> Path:
            return Path(source.join(source.root, name))

        blobs: dict[str, Blob] = {
            n: got[source.join(source.root, n)] for n in names if not _beyond_64_bits(n)
        }
        for name, why in bad.items():
            blobs[name] = InputError(path_of(name), why)
        rows = _parse_log(sorted([*names, *bad]), path_of, blobs.__getitem__)
        logs.append(_log_frames(Path(source.root), rows, source))
    return logs


def _beyond_64_bits(name: str) -> bool:
    number = (
        ITER_FILE.match(name)
        or HOOK_FILE.match(name)
        or LABELS_FILE.match(name)
        or SCORE_FILE.match(name)
    )
    return number is not None and int(number.group(1)) > MAX_INT64


def _load_historical(path: PurePath, blob: Blob, rows: _Rows) -> None:
    parsed = _parse(path, blob, rows)
    if parsed is None:
        return
    data = parsed.data
    entries = data.get("iterations") if isinstance(data, Mapping) else None
    if not isinstance(entries, list):
        rows.issue(
            path, parsed.line_of(("iterations",)), "expected `iterations:` with a list of entries"
        )
        return
    for index, entry in enumerate(entries):
        _load_entry(entry, parsed, ("iterations", index), path, rows, file_iteration=None)
