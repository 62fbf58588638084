"""dot-agents eval-harness runs: ``<repo>/.agents/eval/runs/<run-id>/`` folders.

A run folder holds ``taskspec.yaml`` (``task_id``, ``language``, ``difficulty``,
``generated_from.template_id``, ``prompt``, ``verification``), ``eval-run.yaml``
(``run_id, base_commit, task_id, language, difficulty, agent {harness, model,
session_id, retries, exit_code, duration, prompt_digest, output_digest}, verify {passed,
phase, exit_code, duration}, score {value, band, scored, rubric_version}``) and
``iteration-log/iter-1.yaml`` (schema v2, ``wave`` = the run id) with its
``iter-1.score.yaml`` (FORMATS.md §5).

:func:`load_eval_run` reads one folder, :func:`load_eval_runs` many (the finder,
:func:`toolkit.fleet.find.find_eval_runs`, says which). The two YAML files are typed at
the edge (pydantic); a file that cannot be used is one line naming the file, the field
and the value (:class:`~toolkit.errors.InputError`), as dot-agents refuses a record it
cannot read. Durations are Go durations as dot-agents' YAML writes them (``4m12.5s``)
or a number of seconds. The iteration log is not read here: :attr:`EvalRun.log` names
its folder, for :func:`toolkit.load.iterlog.load_iteration_log`.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, ValidationError

from toolkit.errors import InputError, InputWarning
from toolkit.frames import EVAL_RUNS_SCHEMA
from toolkit.io import edge
from toolkit.io.source import Source, open_source
from toolkit.summary import Shows, Summary, plural

TASKSPEC = "taskspec.yaml"
EVAL_RUN = "eval-run.yaml"
LOG_FOLDER = "iteration-log"

_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
             "m": 60.0, "h": 3600.0}  # fmt: skip
_GO_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(value: Any) -> float | None:
    """Seconds from a Go duration (``1h2m3.5s``, ``850ms``, ``0s``) or a number of
    seconds; ``None`` for an absent value.

    Raises:
        ValueError: anything else (a negative or non-finite number, a bad unit).
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("a duration, not a boolean")
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value < 0:
            raise ValueError("a duration must be a finite number of seconds >= 0")
        return float(value)
    text = str(value).strip()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    parts = _GO_PART.findall(body)
    if body == "0":
        return 0.0
    if not parts or "".join(n + u for n, u in parts) != body or sign < 0:
        raise ValueError("not a Go duration such as 4m12.5s (or a number of seconds >= 0)")
    return sum(float(n) * _GO_UNITS[u] for n, u in parts)


class _Model(BaseModel):
    """Unknown keys are tolerated (dot-agents adds fields between releases)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class GeneratedFrom(_Model):
    template_id: str | None = None


class TaskSpec(_Model):
    """``taskspec.yaml``: the task an eval run was given."""

    task_id: str
    language: str | None = None
    difficulty: str | None = None
    generated_from: GeneratedFrom | None = None
    prompt: str | None = None
    verification: Any = None


class RunAgent(_Model):
    harness: str | None = None
    model: str | None = None
    session_id: str | None = None
    retries: StrictInt | None = None
    exit_code: StrictInt | None = None
    duration: Any = None
    prompt_digest: str | None = None
    output_digest: str | None = None


class RunVerify(_Model):
    passed: StrictBool
    phase: str | None = None
    exit_code: StrictInt | None = None
    duration: Any = None


class RunScore(_Model):
    value: float | None = None
    band: str | None = None
    scored: StrictBool | None = None
    rubric_version: str | None = None


class EvalRunFile(_Model):
    """``eval-run.yaml``: what one run of the harness did and how it was verified."""

    run_id: str
    base_commit: str | None = None
    task_id: str
    language: str | None = None
    difficulty: str | None = None
    agent: RunAgent
    verify: RunVerify
    score: RunScore | None = None


@dataclass(frozen=True)
class EvalRun:
    """One eval-harness run, read.

    Attributes:
        path: the run folder (a path or a URL).
        row: the run's row of :data:`toolkit.frames.EVAL_RUNS_SCHEMA`.
        prompt, verification: the task's prompt and verification, as the taskspec has them.
        log: the run's iteration-log folder (``None`` when the run has none).
        notes: what was lenient (a run id that is not its folder's name, ...).
    """

    path: str
    row: dict[str, Any]
    prompt: str | None
    verification: Any
    log: str | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class EvalRuns(Shows):
    """Eval-harness runs: one row per run (:data:`toolkit.frames.EVAL_RUNS_SCHEMA`).

    Attributes:
        runs: the frame, in the order the runs were given.
        items: each run as read (prompt, verification, its iteration log).
        notes: what was lenient, one line each.
    """

    runs: pl.DataFrame
    items: tuple[EvalRun, ...]
    notes: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        frame = self.runs
        tasks = frame["task_id"].n_unique() if frame.height else 0
        passed = int(frame["passed"].sum()) if frame.height else 0
        return Summary(
            "EvalRuns",
            f"{plural(frame.height, 'run')} of {plural(tasks, 'task')}",
            (("passed:", passed), ("failed:", frame.height - passed)),
            notes=self.notes,
            notes_title="notes",
        )


def _first_error(exc: ValidationError) -> tuple[str, Any, str]:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    value = err.get("input")
    msg = str(err["msg"])
    if err["type"] == "missing":
        return where, None, "missing (required)"
    return where, value, msg


def _model(cls: type[BaseModel], data: Any, name: str) -> Any:
    if not isinstance(data, Mapping):
        raise InputError(name, "must be a mapping of fields", field="(top level)",
                         value=type(data).__name__)  # fmt: skip
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        where, value, msg = _first_error(exc)
        raise InputError(name, msg, field=where, value=value) from None


def _duration(value: Any, name: str, field: str) -> float | None:
    try:
        return parse_duration(value)
    except ValueError as exc:
        raise InputError(name, str(exc), field=field, value=value) from None


def _agree(spec: TaskSpec, run: EvalRunFile, names: tuple[str, str]) -> dict[str, str | None]:
    """task_id, language and difficulty: eval-run.yaml's, the taskspec's where it has
    none; a disagreement is refused."""
    out: dict[str, str | None] = {}
    for key in ("task_id", "language", "difficulty"):
        ours, theirs = getattr(run, key), getattr(spec, key)
        if ours is not None and theirs is not None and str(ours) != str(theirs):
            raise InputError(
                names[1], f"the taskspec ({names[0]}) says {theirs!r}", field=key, value=ours
            )
        out[key] = ours if ours is not None else theirs
    return out


def _row(run: EvalRunFile, spec: TaskSpec, where: str, names: tuple[str, str]) -> dict[str, Any]:
    agent, verify, score = run.agent, run.verify, run.score or RunScore()
    name = names[1]
    if score.value is not None and not math.isfinite(score.value):
        raise InputError(name, "must be a finite number", field="score.value", value=score.value)
    return {
        "run_id": run.run_id,
        **_agree(spec, run, names),
        "template_id": spec.generated_from.template_id if spec.generated_from else None,
        "base_commit": run.base_commit,
        "harness": agent.harness,
        "model": agent.model,
        "session_id": agent.session_id,
        "retries": agent.retries,
        "exit_code": agent.exit_code,
        "duration_s": _duration(agent.duration, name, "agent.duration"),
        "passed": verify.passed,
        "verify_phase": verify.phase,
        "verify_exit_code": verify.exit_code,
        "verify_duration_s": _duration(verify.duration, name, "verify.duration"),
        "recorded_value": score.value,
        "recorded_band": score.band,
        "recorded_scored": score.scored,
        "recorded_version": score.rubric_version,
        "path": where,
    }


def _yaml(blob: bytes | InputError | None, name: str) -> Any:
    if blob is None or (
        isinstance(blob, InputError) and isinstance(blob.__cause__, FileNotFoundError)
    ):
        raise InputError(name, "missing: an eval run folder holds taskspec.yaml and eval-run.yaml")
    if isinstance(blob, InputError):
        raise blob
    return edge.parse_yaml_text(edge.decode_text(blob, name), name)


def load_eval_run(
    folder: str | Source, storage_options: Mapping[str, Any] | None = None
) -> EvalRun:
    """One eval-harness run folder (a local folder or a URL).

    Raises:
        InputError: a missing or unreadable file, a field with a bad value, or a
            taskspec and an eval-run.yaml that name different tasks (one line each).
    """
    src = folder if isinstance(folder, Source) else open_source(folder, storage_options)
    keys = [src.join(src.root, TASKSPEC), src.join(src.root, EVAL_RUN)]
    blobs = src.fetch(keys)
    names = (src.url(keys[0]), src.url(keys[1]))
    spec = _model(TaskSpec, _yaml(blobs.get(keys[0]), names[0]), names[0])
    run = _model(EvalRunFile, _yaml(blobs.get(keys[1]), names[1]), names[1])
    where = src.url()
    row = _row(run, spec, where, names)
    notes: list[str] = []
    folder_name = PurePosixPath(src.root.rstrip("/")).name
    if folder_name and folder_name != run.run_id:
        notes.append(f"{names[1]}: run_id {run.run_id!r} is not its folder's name {folder_name!r}")
    log_key = src.join(src.root, LOG_FOLDER)
    log = src.url(log_key) if src.kind(log_key) == "folder" else None
    if log is None:
        notes.append(f"{where}: no {LOG_FOLDER}/ folder: the run has no iteration to score")
    return EvalRun(where, row, spec.prompt, spec.verification, log, tuple(notes))


def load_eval_runs(
    folders: Sequence[str | Source], storage_options: Mapping[str, Any] | None = None
) -> EvalRuns:
    """Many eval-harness run folders (see :func:`load_eval_run`), one row each; notes
    are also issued as :class:`~toolkit.errors.InputWarning`.

    Raises:
        InputError: the first run folder that cannot be used, or two folders with the
            same run id.
    """
    items = [load_eval_run(f, storage_options) for f in folders]
    seen: dict[str, str] = {}
    for item in items:
        rid = item.row["run_id"]
        if rid in seen:
            raise InputError(item.path, f"the same run id as {seen[rid]}", field="run_id",
                             value=rid)  # fmt: skip
        seen[rid] = item.path
    notes = tuple(n for item in items for n in item.notes)
    for note in notes:
        warnings.warn(note, InputWarning, stacklevel=2)
    frame = pl.DataFrame([i.row for i in items], schema=EVAL_RUNS_SCHEMA)
    return EvalRuns(frame, tuple(items), notes)
