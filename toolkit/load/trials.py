"""Per-trial results: a CSV or JSONL file of ``task, trial`` and ``reward`` or
``passed``, the public input of ``toolkit compare --pass-k FILE``.

One row per trial of a task (τ-bench's ``results.json`` flattened: ``task_id`` and
``trial`` name the trial, ``reward`` its reward). ``passed`` is the verdict; when a row
gives only a reward, it passed when the reward is within 1e-6 of 1 (τ-bench's success
rule, :func:`success`). Every problem is one line naming
the file, the line, the field and the value: a row with more or fewer cells than the
header, a header naming a column twice, a reward that is not a finite number, a verdict
that is no boolean word, a trial of a task given twice, a passed and a reward that
disagree. Extra columns are ignored. Column names: ``task`` (or ``task_id``), ``trial``,
``reward``, ``passed``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import PASS_K_TRIALS_SCHEMA
from toolkit.io import edge
from toolkit.io.source import open_source

TASK_NAMES = ("task", "task_id")
#: τ-bench's success rule: a trial succeeded when its reward is within this of 1.
SUCCESS_TOLERANCE = 1e-6
TRUE_WORDS = frozenset({"true", "yes", "1", "pass", "passed"})
FALSE_WORDS = frozenset({"false", "no", "0", "fail", "failed"})


def success(reward: float) -> bool:
    """τ-bench's success rule: the reward is within :data:`SUCCESS_TOLERANCE` of 1
    (``1 - 1e-6 <= reward <= 1 + 1e-6``)."""
    return 1 - SUCCESS_TOLERANCE <= reward <= 1 + SUCCESS_TOLERANCE


def _read(path: str | Path, storage_options: Mapping[str, Any] | None) -> tuple[str, str]:
    """The file's text and the name it is shown by (through the reading edge)."""
    src = open_source(path, storage_options)
    name = src.url()
    if src.kind() != "file":
        raise InputError(name, "no such file of trials (a .csv or .jsonl file)")
    blob = src.fetch([src.root]).get(src.root)
    if isinstance(blob, InputError):
        raise blob
    if blob is None:
        raise InputError(name, "cannot read the file")
    return edge.decode_text(blob, name), name


def _passed(value: Any, name: str, line: int) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InputError(name, "not a verdict (true/false, 1/0, pass/fail)", field="passed",
                     value=value, line=line)  # fmt: skip


def _reward(value: Any, name: str, line: int) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InputError(name, "must be a number", field="reward", value=value, line=line)
    try:
        reward = float(value)
    except (TypeError, ValueError):
        raise InputError(name, "must be a number", field="reward", value=value,
                         line=line) from None  # fmt: skip
    if not math.isfinite(reward):
        raise InputError(name, "must be a finite number", field="reward", value=value, line=line)
    return reward


def _key(value: Any, field: str, name: str, line: int) -> str:
    if isinstance(value, bool) or value is None or str(value).strip() == "":
        raise InputError(name, "missing (each row names its task and trial)", field=field,
                         value=value, line=line)  # fmt: skip
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _csv_rows(text: str, name: str) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    for cells in reader:
        line = reader.line_num
        if not cells or all(c.strip() == "" for c in cells):
            continue
        if header is None:
            header = [c.strip() for c in cells]
            for i, col in enumerate(header):
                if col in header[:i]:
                    raise InputError(name, "the header names this column twice", field=col,
                                     value=col, line=line)  # fmt: skip
            continue
        if len(cells) != len(header):
            raise InputError(name, f"{len(cells)} cells where the header has {len(header)}",
                             line=line)  # fmt: skip
        yield line, dict(zip(header, cells, strict=True))


def _jsonl_rows(text: str, name: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for line, obj in edge.iter_json_lines(text, name):
        if isinstance(obj, InputError):
            raise obj
        if not isinstance(obj, Mapping):
            raise InputError(name, "each line must be a JSON object", line=line)
        yield line, obj


def _task_field(row: Mapping[str, Any], name: str, line: int) -> Any:
    present = [k for k in TASK_NAMES if k in row]
    if len(present) > 1:
        raise InputError(name, "give task or task_id, not both", field="task_id", line=line)
    if not present:
        raise InputError(name, "no task column (task or task_id)", field="task", line=line)
    return row[present[0]]


def read_trials(
    path: str | Path, *, storage_options: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The per-trial frame (:data:`toolkit.frames.PASS_K_TRIALS_SCHEMA`) of a ``.csv`` or
    ``.jsonl`` file (a local path or a URL), in file order.

    Raises:
        InputError: one line naming the file, the line, the field and the value.
    """
    text, name = _read(path, storage_options)
    lower = name.lower()
    if lower.endswith(".csv"):
        rows: Iterator[tuple[int, Mapping[str, Any]]] = _csv_rows(text, name)
    elif lower.endswith((".jsonl", ".ndjson")):
        rows = _jsonl_rows(text, name)
    else:
        raise InputError(name, "trials are read from a .csv or .jsonl file")
    out: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in rows:
        task = _key(_task_field(row, name, line), "task", name, line)
        trial = _key(row.get("trial"), "trial", name, line)
        if (task, trial) in seen:
            raise InputError(name, f"trial {trial!r} of this task is also on line "
                             f"{seen[task, trial]}", field="task", value=task,
                             line=line)  # fmt: skip
        seen[task, trial] = line
        passed, reward = _passed(row.get("passed"), name, line), _reward(row.get("reward"), name,
                                                                         line)  # fmt: skip
        if passed is None and reward is None:
            raise InputError(name, "a row needs passed or reward", field="passed", line=line)
        if reward is not None and passed is not None and passed != success(reward):
            raise InputError(name, f"passed={passed} but the reward {reward!r} is "
                             f"{'not ' if passed else ''}within 1e-6 of 1", field="passed",
                             value=row.get("passed"), line=line)  # fmt: skip
        verdict = passed if passed is not None else success(reward)  # type: ignore[arg-type]
        out.append({"task": task, "trial": trial, "passed": verdict, "reward": reward})
    if not out:
        raise InputError(name, "no trials in it")
    return pl.DataFrame(out, schema=PASS_K_TRIALS_SCHEMA)
