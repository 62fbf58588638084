"""Reviewers' labels of an iteration (dot-agents 3.0.0): ``iter-N.labels.yaml``.

dot-agents' review server writes one file per iteration beside ``iter-N.yaml``:
``iteration, schema_version ("1.x"), labels: [{id, iteration, actor, role
reviewer|admin|readonly, admin_override?, schema_version, created_at, updated_at, history:
[{actor, role, timestamp, structured: {correctness 0-3, scope_judgement
on-target|partial|breach, hallucination none|minor|major}, free_text?}]}]`` (history oldest
first, at least one edit). The toolkit reads these files and never writes them.

:func:`label_rows` turns one parsed file into rows of :data:`toolkit.frames.LABELS_SCHEMA`,
one per label, each with its latest edit's answers. A file of another major schema
version, or holding one label of another major version, is not read (dot-agents reads
none of its labels); a label without ``schema_version`` is taken as the file's; a label
that cannot be used (no actor, no edit, an answer out of range) is skipped; a label that
breaks a rule of dot-agents' ``Sidecar.Validate`` without touching its answers (role,
iteration, repeated id, free text length, an edit's empty actor) is read and warned about
(dot-agents refuses the whole file). A time that is not one (or beyond the years a UTC
time holds) is left out of the row and named. Each problem is returned with its line so
the log lists it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from toolkit.frames import LABELS_SCHEMA, RATING_EVENTS_SCHEMA

LABELS_FILE = re.compile(r"^iter-(\d+)\.labels\.yaml$")
ROLES = ("reviewer", "admin", "readonly")
SCOPE_JUDGEMENTS = ("on-target", "partial", "breach")
HALLUCINATIONS = ("none", "minor", "major")
CORRECTNESS_MAX = 3
#: The labels schema major version this reader knows.
SCHEMA_MAJOR = 1
#: The instrument a label is as a rating event.
INSTRUMENT = "dot-agents-label-1"

#: ``(line or None, reason)`` for one problem of a labels file.
Problem = tuple[int | None, str]
LineOf = Callable[[tuple[Any, ...]], int | None]


def _major(value: Any) -> int | None:
    """The major part of ``"1.2"`` / ``1`` / ``"1"``; ``None`` when there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value).strip() if isinstance(value, str | float) else ""
    head = text.split(".", 1)[0]
    return int(head) if head.isascii() and head.isdigit() else None  # not "²"


def _time(value: Any) -> dt.datetime | None:
    """A timestamp as written (YAML timestamp or ISO text), in UTC; ``None`` when absent
    or not a time."""
    if isinstance(value, dt.datetime):
        stamp = value
    elif isinstance(value, dt.date):  # a bare date, as yaml.v3 also reads into a time
        stamp = dt.datetime.combine(value, dt.time())
    elif isinstance(value, str) and value.strip():
        try:
            stamp = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    try:
        return stamp.astimezone(dt.UTC)
    except OverflowError:  # year 1 east of UTC, year 9999 west of it
        return None


def _time_problems(raw: Mapping[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """Each time of a label (its ``created_at``, ``updated_at``, each edit's
    ``timestamp``) that is given but is not one :func:`_time` reads (key path, reason)."""
    keys: list[tuple[Any, ...]] = [("created_at",), ("updated_at",)]
    history = raw.get("history")
    for position, edit in enumerate(history if isinstance(history, list) else []):
        if isinstance(edit, Mapping):
            keys.append(("history", position, "timestamp"))
    found = []
    for key in keys:
        holder: Any = raw
        for part in key[:-1]:
            holder = holder[part]
        value = holder.get(key[-1])
        if value is not None and _time(value) is None:
            where = ".".join(str(k) for k in key)
            shown = value.isoformat() if isinstance(value, dt.date) else value
            found.append((key, f"{where}={shown!r}: not a time (RFC 3339, within the years "
                                "1 to 9999 in UTC); read without it"))  # fmt: skip
    return found


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _name(value: Any) -> str | None:
    """An actor as written (dot-agents keeps it so and tells reviewers apart by the exact
    string: ``" ana"`` is not ``"ana"``); ``None`` when blank, which it refuses."""
    return value if isinstance(value, str) and value.strip() else None


def _latest_edit(history: list[Any]) -> tuple[int, Mapping[str, Any]] | None:
    """The latest edit of a label: the last entry of its history, as dot-agents'
    ``Label.Latest`` takes it (history is append-only, oldest first), whatever its
    timestamp says; ``None`` when the history is empty or its last entry is not a mapping."""
    if not history or not isinstance(history[-1], Mapping):
        return None
    return len(history) - 1, history[-1]


def _answers(structured: Any, where: str) -> tuple[dict[str, Any], str | None]:
    """The three structured answers, or why the edit cannot be used."""
    if not isinstance(structured, Mapping):
        return {}, f"{where}.structured: must be a mapping of the three answers"
    correctness = structured.get("correctness")
    scope = structured.get("scope_judgement")
    hallucination = structured.get("hallucination")
    ok_correctness = correctness is None or (
        isinstance(correctness, int)
        and not isinstance(correctness, bool)
        and 0 <= correctness <= CORRECTNESS_MAX
    )
    if not ok_correctness:
        return {}, f"{where}.structured.correctness={correctness!r}: must be 0 to 3"
    if scope is not None and scope not in SCOPE_JUDGEMENTS:
        return {}, (
            f"{where}.structured.scope_judgement={scope!r}: must be one of "
            f"{', '.join(SCOPE_JUDGEMENTS)}"
        )
    if hallucination is not None and hallucination not in HALLUCINATIONS:
        return {}, (
            f"{where}.structured.hallucination={hallucination!r}: must be one of "
            f"{', '.join(HALLUCINATIONS)}"
        )
    if correctness is None and scope is None and hallucination is None:
        return {}, f"{where}.structured: none of correctness, scope_judgement, hallucination"
    answers = {
        "correctness": correctness,
        "scope_judgement": scope,
        "hallucination": hallucination,
    }
    return answers, None


def _label_row(
    raw: Any, index: int, iteration: int, path: str, line_of: LineOf
) -> tuple[dict[str, Any] | None, Problem | None]:
    where = f"labels.{index}"
    at = line_of(("labels", index))
    if not isinstance(raw, Mapping):
        return None, (at, f"{where}: a label must be a mapping; skipped")
    actor = _name(raw.get("actor"))
    if actor is None:
        return None, (at, f"{where}.actor={raw.get('actor')!r}: a label needs its actor; skipped")
    history = raw.get("history")
    latest = _latest_edit(history) if isinstance(history, list) else None
    if latest is None:
        reason = "a label needs at least one edit (the last one a mapping); skipped"
        return None, (at, f"{where}.history: {reason}")
    position, edit = latest
    answers, problem = _answers(edit.get("structured"), f"{where}.history.{position}")
    if problem is not None:
        return None, (line_of(("labels", index, "history", position)), problem + "; skipped")
    role = _text(raw.get("role"))
    edited_at = _time(edit.get("timestamp"))
    return {
        "iteration": iteration,
        "label_id": _text(raw.get("id")),
        "actor": actor,
        "role": role,
        "admin_override": raw.get("admin_override") is True,
        "created_at": _time(raw.get("created_at")),
        "updated_at": _time(raw.get("updated_at")) or edited_at,
        "edited_by": _name(edit.get("actor")) or actor,
        "edited_role": _text(edit.get("role")) or role,
        "edited_at": edited_at,
        "edits": len(history) if isinstance(history, list) else 0,
        **answers,
        "free_text": _text(edit.get("free_text")),
        "position": index,
        "source_file": path,
    }, None


#: The longest free text dot-agents' review server accepts, in bytes (``FreeTextMaxLen``).
FREE_TEXT_MAX = 4000


def _rule_problems(
    raw: Mapping[str, Any], index: int, inside: Any, seen: set[str], line_of: LineOf
) -> list[Problem]:
    """The rules of dot-agents' ``Sidecar.Validate`` a label breaks without touching its
    answers (role, iteration, a repeated id, free text length, an edit's actor): dot-agents
    refuses the whole file over them; the toolkit reads the label and names each one."""
    where = f"labels.{index}"
    found: list[tuple[tuple[Any, ...], str]] = []
    role = raw.get("role")
    if role is not None and role not in ROLES:
        found.append((("role",), f"{where}.role={role!r}: not one of {', '.join(ROLES)}"))
    own = raw.get("iteration")
    if inside is not None and own is not None and own != inside:
        found.append((("iteration",), f"{where}.iteration={own!r}: not the file's {inside!r}"))
    label_id = raw.get("id")
    if isinstance(label_id, str) and label_id:
        if label_id in seen:
            found.append((("id",), f"{where}.id={label_id!r}: repeats an earlier label's id"))
        seen.add(label_id)
    history = raw.get("history")
    for position, edit in enumerate(history if isinstance(history, list) else []):
        if not isinstance(edit, Mapping):
            continue
        text = edit.get("free_text")
        if isinstance(text, str) and len(text.encode("utf-8")) > FREE_TEXT_MAX:
            found.append(
                (
                    ("history", position, "free_text"),
                    f"{where}.history.{position}.free_text: longer than {FREE_TEXT_MAX} bytes",
                )
            )
        if "actor" in edit and not _text(edit.get("actor")):
            found.append(
                (
                    ("history", position, "actor"),
                    f"{where}.history.{position}.actor={edit.get('actor')!r}: empty",
                )
            )
    tail = "; read anyway (dot-agents refuses the whole file over it)"
    named = [(line_of(("labels", index, *key)), reason + tail) for key, reason in found]
    return named + [
        (line_of(("labels", index, *key)), f"{where}.{reason}")
        for key, reason in _time_problems(raw)
    ]


def _other_major(labels: list[Any]) -> tuple[int, Any] | None:
    """The first label stating a schema major version other than 1 (index, version)."""
    for index, raw in enumerate(labels):
        stated = isinstance(raw, Mapping) and "schema_version" in raw
        if stated and _major(raw["schema_version"]) != SCHEMA_MAJOR:
            return index, raw["schema_version"]
    return None


def label_rows(
    data: Any, iteration: int, path: str, line_of: LineOf
) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The labels of one parsed ``iter-N.labels.yaml``.

    Args:
        data: the parsed YAML document (``None`` for an empty file).
        iteration: the iteration its file name gives (a different ``iteration:`` inside
            is reported, and the file name wins).
        path: the file, as named in rows and problems.
        line_of: the line of a key path in the document (for problems).

    Returns:
        (rows of :data:`toolkit.frames.LABELS_SCHEMA`, problems). An empty file or an empty
        ``labels`` list gives no row and no problem; a file of another major schema version
        gives no row and one problem.
    """
    if data is None:
        return [], []
    if not isinstance(data, Mapping):
        return [], [(line_of(()), "a labels file must be a mapping; the file was skipped")]
    major = _major(data.get("schema_version"))
    if major != SCHEMA_MAJOR:
        shown = data.get("schema_version")
        reason = (
            f"schema_version={shown!r}: labels of schema major version {SCHEMA_MAJOR} are read "
            "(1.x); the file was skipped"
        )
        return [], [(line_of(("schema_version",)), reason)]
    problems: list[Problem] = []
    inside = data.get("iteration")
    if inside is not None and inside != iteration:
        problems.append(
            (
                line_of(("iteration",)),
                f"iteration={inside!r}: differs from the file name's {iteration}; the file "
                "name's is used",
            )
        )
    labels = data.get("labels")
    if labels is None:
        return [], problems
    if not isinstance(labels, list):
        problems.append((line_of(("labels",)), "labels: must be a list; the file was skipped"))
        return [], problems
    other = _other_major(labels)
    if other is not None:  # dot-agents reads no label of a file holding one (absent)
        index, shown = other
        reason = (
            f"labels.{index}.schema_version={shown!r}: not schema 1.x, so no label of this "
            "file is read (as dot-agents reads it); the file was skipped"
        )
        problems.append((line_of(("labels", index, "schema_version")), reason))
        return [], problems
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, raw in enumerate(labels):
        if isinstance(raw, Mapping):
            problems.extend(_rule_problems(raw, index, data.get("iteration"), seen, line_of))
        row, problem = _label_row(raw, index, iteration, path, line_of)
        if problem is not None:
            problems.append(problem)
        if row is not None:
            rows.append(row)
    return rows, problems


def labels_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Label rows as :data:`toolkit.frames.LABELS_SCHEMA`, by iteration and position."""
    return pl.DataFrame(rows, schema=LABELS_SCHEMA).sort("iteration", "position")


def label_rating_events(labels: pl.DataFrame) -> pl.DataFrame:
    """Reviewers' labels as rating events (:data:`toolkit.frames.RATING_EVENTS_SCHEMA`):
    one event per label, the rater its actor, the item (``transcript_id``) ``iter-N``, the
    score its correctness (0-3), the three answers as JSON, the free text as notes, the
    time its latest edit (else its update)."""
    events = [
        {
            "event_id": i + 1,
            "uid": r["label_id"] or f"iter-{r['iteration']}-{r['position']}",
            "rater": r["actor"],
            "transcript_id": f"iter-{r['iteration']}",
            "score": r["correctness"],
            "answers": json.dumps(
                {
                    "correctness": r["correctness"],
                    "scope_judgement": r["scope_judgement"],
                    "hallucination": r["hallucination"],
                    "role": r["role"],
                    "admin_override": r["admin_override"],
                }
            ),
            "notes": r["free_text"],
            "created_at": r["edited_at"] or r["updated_at"],
            "instrument": INSTRUMENT,
        }
        for i, r in enumerate(labels.iter_rows(named=True))
    ]
    return pl.DataFrame(events, schema=RATING_EVENTS_SCHEMA)
