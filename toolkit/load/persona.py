"""Persona-drift inputs: chat runs, proposition files, golden baselines, correction logs.

Two chat-run forms are read:

* the toolkit's own JSONL chat format (one JSON object per line, ``type`` is ``run``,
  ``persona`` or ``message``; see ``docs/rubrics/persona.md``), and
* an export of ``run_messages`` rows as an agent platform stores them (a JSON array,
  ``{"run_messages": [...]}`` or JSONL), where a chat message is a row whose
  ``tool_name`` is ``send_message`` and whose ``tool_input`` holds ``text`` and
  ``channel``. Snake-case and camel-case keys are both accepted.

Proposition files follow section 4 of the persona format (``dimension``, ``agent_id``,
``include_personas``, ``hard``, ``target_type``, ``first_n``, ``last_n``,
``propositions[{id, claim, weight, inverted, recommendations_for_improvement}]``) plus
an optional per-proposition ``precondition`` naming a registered Python predicate.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import polars as pl
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from toolkit._show import Shows, Summary
from toolkit.errors import InputError
from toolkit.frames import (
    CHAT_MESSAGES_SCHEMA,
    CORRECTION_LOG_SCHEMA,
    PERSONAS_SCHEMA,
    PROPOSITIONS_SCHEMA,
    CorrectionOutcome,
)
from toolkit.io import edge
from toolkit.io.atomic import safe_file_name, write_text_atomic
from toolkit.load._common import parse_json_lines, parse_json_text
from toolkit.load._fields import MAX_INT64, Int64

#: The persona dimensions in the order they are shown.
PERSONA_DIMENSIONS: tuple[str, ...] = (
    "adherence",
    "consistency",
    "fluency",
    "convergence",
    "ideas_quantity",
)

#: The template variables a claim may use.
TEMPLATE_VARIABLES: tuple[str, ...] = ("agent_name", "action", "channel_name", "recipient_name")

_TEMPLATE_RE = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def _first_error(exc: ValidationError) -> tuple[str, Any, str]:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return where, err.get("input"), err["msg"]


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


# ---------------------------------------------------------------------------
# Chat runs
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class ChatRun(Shows):
    """A chat run as frames.

    Attributes:
        run: the run id.
        messages: schema :data:`toolkit.frames.CHAT_MESSAGES_SCHEMA` (run, step, channel,
            agent_id, agent_name, kind, text, time, recipient_id), sorted by step.
        personas: schema :data:`toolkit.frames.PERSONAS_SCHEMA` (run, agent_id, name,
            persona); ``persona`` is null when the input gives no persona spec.
        source: the file it was read from.
        form: ``"jsonl"`` or ``"run_messages"``.
        warnings: what was skipped or assumed while reading.
    """

    run: str
    messages: pl.DataFrame
    personas: pl.DataFrame
    source: str
    form: str
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        return Summary(
            "ChatRun",
            f"{self.run} ({self.form}, from {self.source})",
            (("messages", self.messages.height), ("agents", self.personas.height)),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def agent_ids(self) -> list[str]:
        """The agents, in the order of the personas frame."""
        return [str(a) for a in self.personas["agent_id"].to_list()]

    def name_of(self, agent_id: str) -> str:
        """The display name of ``agent_id`` (its id when no name is known)."""
        row = self.personas.filter(pl.col("agent_id") == agent_id)
        return str(row["name"][0]) if row.height else agent_id

    def persona_of(self, agent_id: str) -> str | None:
        """The persona spec of ``agent_id``, or ``None`` when the run has none."""
        row = self.personas.filter(pl.col("agent_id") == agent_id)
        if not row.height:
            return None
        value = row["persona"][0]
        return None if value is None else str(value)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class _RunLine(_Lenient):
    type: Literal["run"]
    run: str = Field(min_length=1)


class _PersonaLine(_Lenient):
    type: Literal["persona"]
    agent_id: str = Field(min_length=1, validation_alias=AliasChoices("agent_id", "agentId"))
    name: str | None = None
    persona: str | None = None


class _MessageLine(_Lenient):
    type: Literal["message"]
    step: Int64 | None = None
    channel: str = "general"
    agent_id: str | None = Field(default=None, validation_alias=AliasChoices("agent_id", "agentId"))
    kind: Literal["action", "stimulus"] = "action"
    text: str
    time: datetime | None = None
    recipient_id: str | None = Field(
        default=None, validation_alias=AliasChoices("recipient_id", "recipientId", "recipient")
    )


class _ExportRow(_Lenient):
    agent_id: str = Field(min_length=1, validation_alias=AliasChoices("agent_id", "agentId"))
    message_type: str | None = Field(
        default=None, validation_alias=AliasChoices("message_type", "messageType")
    )
    tool_name: str | None = Field(
        default=None, validation_alias=AliasChoices("tool_name", "toolName")
    )
    tool_input: Any = Field(default=None, validation_alias=AliasChoices("tool_input", "toolInput"))
    created_at: datetime | None = Field(
        default=None, validation_alias=AliasChoices("created_at", "createdAt")
    )
    run_id: str | None = Field(default=None, validation_alias=AliasChoices("run_id", "runId"))


class _PersonaEntry(_Lenient):
    agent_id: str = Field(min_length=1, validation_alias=AliasChoices("agent_id", "agentId", "id"))
    name: str | None = Field(default=None, validation_alias=AliasChoices("name", "display_name"))
    persona: str | None = Field(
        default=None, validation_alias=AliasChoices("persona", "system_prompt", "systemPrompt")
    )


def _read_text(path: Path, within: Path | None = None) -> str:
    return edge.read_text(path, within=within)


def load_chat(path: str | Path, personas: str | Path | None = None) -> ChatRun:
    """Read a chat run in either form (detected from the content).

    Args:
        path: a toolkit JSONL chat file or a ``run_messages`` export.
        personas: optional YAML/JSON personas file (``{agent_id: {name, persona}}`` or a
            list of ``{agent_id, name, persona}``); it fills in names and persona specs,
            overriding those of the run file.

    Returns:
        A :class:`ChatRun` whose ``messages`` frame has the columns run, step, channel,
        agent_id, agent_name, kind, text, time, recipient_id.

    Raises:
        InputError: one line naming the file, the line or field and the value.
    """
    source = Path(path)
    text = _read_text(source)
    stripped = text.lstrip()
    if not stripped:
        raise InputError(source, "the file is empty; expected a chat run")
    extra = _load_personas_file(Path(personas)) if personas is not None else {}
    if stripped.startswith("["):
        return _chat_from_export(source, parse_json_text(source, text), extra)
    first = stripped.splitlines()[0]
    try:
        head = edge.parse_json_text(first, source)
    except InputError:
        head = None
    if isinstance(head, dict) and "type" in head:
        return _chat_from_jsonl(source, parse_json_lines(source, text), extra)
    if isinstance(head, dict) and (
        {"message_type", "messageType", "tool_name", "toolName"} & set(head)
    ):
        return _chat_from_export(source, [row for _, row in parse_json_lines(source, text)], extra)
    data = parse_json_text(source, text)
    if isinstance(data, dict) and isinstance(
        data.get("run_messages", data.get("runMessages")), list
    ):
        return _chat_from_export(source, data.get("run_messages", data.get("runMessages")), extra)
    raise InputError(
        source,
        "not a chat run: expected toolkit chat JSONL (lines with a 'type') or a "
        "run_messages export (rows with 'message_type' and 'tool_name')",
    )


def load_personas(path: str | Path) -> pl.DataFrame:
    """Read a personas file (YAML or JSON): ``{agent_id: {name, persona}}`` or a list of
    ``{agent_id, name, persona}``.

    Returns:
        Schema :data:`toolkit.frames.PERSONAS_SCHEMA` (run, agent_id, name, persona) with
        a null run; a missing name is the agent id.
    """
    entries = _load_personas_file(Path(path))
    return pl.DataFrame(
        [
            {
                "run": None,
                "agent_id": e.agent_id,
                "name": e.name or e.agent_id,
                "persona": e.persona,
            }
            for e in entries.values()
        ],
        schema=PERSONAS_SCHEMA,
    )


def _load_personas_file(path: Path) -> dict[str, _PersonaEntry]:
    data = edge.parse_yaml_text(_read_text(path), path)
    items: list[tuple[str, Any]]
    if isinstance(data, Mapping):
        items = [
            (str(k), {"agent_id": str(k), **(v if isinstance(v, Mapping) else {"persona": v})})
            for k, v in data.items()
        ]
    elif isinstance(data, list):
        items = [(f"[{i}]", v) for i, v in enumerate(data)]
    else:
        raise InputError(
            path, "expected a mapping or a list of personas", field="(top level)", value=data
        )
    out: dict[str, _PersonaEntry] = {}
    for where, item in items:
        try:
            entry = _PersonaEntry.model_validate(item)
        except ValidationError as exc:
            loc, value, msg = _first_error(exc)
            raise InputError(path, msg, field=f"{where}.{loc}", value=value) from exc
        out[entry.agent_id] = entry
    return out


def _build_run(
    run: str,
    source: Path,
    form: str,
    rows: list[dict[str, Any]],
    personas: dict[str, _PersonaEntry],
    warnings: list[str],
) -> ChatRun:
    speakers = [r["agent_id"] for r in rows if r["agent_id"] is not None and r["kind"] == "action"]
    for agent_id in dict.fromkeys(speakers):
        if agent_id not in personas:
            personas[agent_id] = _PersonaEntry(agent_id=agent_id)
            if form == "jsonl":
                warnings.append(f"agent {agent_id!r} speaks but has no persona line")
    persona_rows = [
        {"run": run, "agent_id": p.agent_id, "name": p.name or p.agent_id, "persona": p.persona}
        for p in personas.values()
    ]
    personas_frame = pl.DataFrame(persona_rows, schema=PERSONAS_SCHEMA)
    missing = [r["agent_id"] for r in persona_rows if r["persona"] is None]
    if missing:
        warnings.append(
            "no persona spec for "
            + ", ".join(repr(m) for m in missing)
            + "; propositions with include_personas are judged without one"
        )
    messages = pl.DataFrame(rows, schema=CHAT_MESSAGES_SCHEMA).sort("step", maintain_order=True)
    duplicates = messages["step"].is_duplicated().sum()
    if duplicates:
        raise InputError(
            source,
            "steps must be unique within a run",
            field="step",
            value=messages.filter(pl.col("step").is_duplicated())["step"][0],
        )
    names = personas_frame.select("agent_id", pl.col("name").alias("_name"))
    messages = (
        messages.join(names, on="agent_id", how="left")
        .with_columns(pl.coalesce("_name", "agent_name").alias("agent_name"))
        .drop("_name")
        .select(list(CHAT_MESSAGES_SCHEMA))
    )
    return ChatRun(
        run=run,
        messages=messages,
        personas=personas_frame,
        source=str(source),
        form=form,
        warnings=tuple(warnings),
    )


def _chat_from_jsonl(
    source: Path, lines: list[tuple[int, Any]], extra: dict[str, _PersonaEntry]
) -> ChatRun:
    run = source.stem
    personas: dict[str, _PersonaEntry] = {}
    rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    unknown: Counter[str] = Counter()
    models: dict[str, type[_Lenient]] = {
        "run": _RunLine,
        "persona": _PersonaLine,
        "message": _MessageLine,
    }
    for number, obj in lines:
        if not isinstance(obj, dict):
            raise InputError(source, "each line must be a JSON object", line=number, value=obj)
        kind = obj.get("type")
        model = models.get(str(kind))
        if model is None:
            unknown[str(kind)] += 1
            continue
        try:
            parsed = model.model_validate(obj)
        except ValidationError as exc:
            loc, value, msg = _first_error(exc)
            raise InputError(source, msg, field=loc, value=value, line=number) from exc
        if isinstance(parsed, _RunLine):
            run = parsed.run
        elif isinstance(parsed, _PersonaLine):
            personas[parsed.agent_id] = _PersonaEntry(
                agent_id=parsed.agent_id, name=parsed.name, persona=parsed.persona
            )
        elif isinstance(parsed, _MessageLine):
            if parsed.kind == "action" and parsed.agent_id is None:
                raise InputError(
                    source,
                    "an action needs the agent_id of its author",
                    field="agent_id",
                    value=None,
                    line=number,
                )
            rows.append(
                {
                    "run": None,
                    "step": parsed.step if parsed.step is not None else len(rows) + 1,
                    "channel": parsed.channel,
                    "agent_id": parsed.agent_id,
                    "agent_name": parsed.agent_id,
                    "kind": parsed.kind,
                    "text": parsed.text,
                    "time": _utc(parsed.time),
                    "recipient_id": parsed.recipient_id,
                }
            )
    if unknown:
        warnings.append(
            "skipped lines of unknown type: "
            + ", ".join(f"{k} x{n}" for k, n in sorted(unknown.items()))
        )
    if not rows:
        raise InputError(source, "the chat run has no message lines")
    for row in rows:
        row["run"] = run
    for agent_id, entry in extra.items():
        base = personas.get(agent_id)
        personas[agent_id] = _PersonaEntry(
            agent_id=agent_id,
            name=entry.name or (base.name if base else None),
            persona=entry.persona or (base.persona if base else None),
        )
    return _build_run(run, source, "jsonl", rows, personas, warnings)


def _chat_from_export(source: Path, data: Any, extra: dict[str, _PersonaEntry]) -> ChatRun:
    if not isinstance(data, list):
        raise InputError(source, "expected a list of run_messages rows", value=data)
    parsed: list[tuple[int, _ExportRow, dict[str, Any]]] = []
    skipped: Counter[str] = Counter()
    no_channel = 0
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(source, "each row must be an object", field=f"[{index}]", value=item)
        try:
            row = _ExportRow.model_validate(item)
        except ValidationError as exc:
            loc, value, msg = _first_error(exc)
            raise InputError(source, msg, field=f"[{index}].{loc}", value=value) from exc
        if row.tool_name != "send_message" or "result" in (row.message_type or ""):
            skipped[f"{row.message_type or '?'}/{row.tool_name or '-'}"] += 1
            continue
        tool_input = row.tool_input
        if isinstance(tool_input, str):
            try:
                tool_input = edge.parse_json_text(tool_input, source)
            except InputError as exc:
                raise InputError(
                    source,
                    f"tool_input is a string but not JSON ({exc.reason})",
                    field=f"[{index}].tool_input",
                    value=row.tool_input,
                ) from exc
        if not isinstance(tool_input, dict) or not isinstance(tool_input.get("text"), str):
            raise InputError(
                source,
                "a send_message row needs tool_input.text",
                field=f"[{index}].tool_input",
                value=tool_input,
            )
        parsed.append((index, row, tool_input))
    if not parsed:
        raise InputError(source, "no send_message rows: nothing to evaluate")
    run_ids = {r.run_id for _, r, _ in parsed if r.run_id}
    warnings: list[str] = []
    if len(run_ids) > 1:
        raise InputError(
            source,
            "rows of several runs in one export; split it per run",
            field="run_id",
            value=sorted(run_ids),
        )
    run = next(iter(run_ids)) if run_ids else source.stem
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    parsed.sort(key=lambda t: (_utc(t[1].created_at) or epoch, t[0]))
    rows: list[dict[str, Any]] = []
    for step, (_, row, tool_input) in enumerate(parsed, start=1):
        channel = tool_input.get(
            "channel", tool_input.get("channel_id", tool_input.get("channelId"))
        )
        if channel is None:
            no_channel += 1
        recipient = tool_input.get(
            "recipient_id", tool_input.get("recipientId", tool_input.get("recipient"))
        )
        rows.append(
            {
                "run": run,
                "step": step,
                "channel": str(channel) if channel is not None else "(no channel)",
                "agent_id": row.agent_id,
                "agent_name": row.agent_id,
                "kind": "action",
                "text": tool_input["text"],
                "time": _utc(row.created_at),
                "recipient_id": None if recipient is None else str(recipient),
            }
        )
    if skipped:
        warnings.append(
            f"skipped {sum(skipped.values())} rows that are not send_message calls ("
            + ", ".join(f"{k} x{n}" for k, n in sorted(skipped.items()))
            + ")"
        )
    if no_channel:
        warnings.append(f"{no_channel} send_message rows have no channel; shown as '(no channel)'")
    if all(r["time"] is None for r in rows):
        warnings.append("no created_at on any row; the file order is the message order")
    return _build_run(run, source, "run_messages", rows, dict(extra), warnings)


# ---------------------------------------------------------------------------
# Propositions
# ---------------------------------------------------------------------------


class PropositionModel(BaseModel):
    """One proposition of a proposition file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    weight: float = Field(ge=0.0, le=1.0)
    inverted: bool = False
    recommendations_for_improvement: str | None = None
    precondition: str | None = None


class PropositionFileModel(BaseModel):
    """A proposition file: one dimension, for all agents (``_default``) or one agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dimension: str = Field(min_length=1)
    agent_id: str | None = None
    include_personas: bool = True
    hard: bool = False
    target_type: Literal["agent", "environment"] = "agent"
    first_n: int | None = Field(default=None, ge=0, le=MAX_INT64)
    last_n: int | None = Field(default=None, ge=0, le=MAX_INT64)
    propositions: list[PropositionModel] = Field(min_length=1)

    @field_validator("propositions")
    @classmethod
    def _unique_ids(cls, value: list[PropositionModel]) -> list[PropositionModel]:
        seen = Counter(p.id for p in value)
        twice = [k for k, n in seen.items() if n > 1]
        if twice:
            raise ValueError(f"proposition id {twice[0]!r} appears more than once")
        return value


@dataclass(frozen=True)
class PropositionFile:
    """A parsed proposition file and where it came from."""

    path: str
    spec: PropositionFileModel

    @property
    def agent_id(self) -> str | None:
        """The agent the file is for, ``None`` for a ``_default`` file."""
        return self.spec.agent_id


@dataclass(frozen=True, repr=False)
class PropositionSet(Shows):
    """Every proposition file of a folder.

    For an agent, a dimension's propositions are its ``_default`` file's followed by the
    agent's own file's; each proposition keeps the settings (hard, window, personas) of
    the file it comes from.
    """

    files: tuple[PropositionFile, ...]
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        return Summary(
            "PropositionSet",
            ", ".join(self.dimensions) or "no dimensions",
            (("files", len(self.files)),),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def dimensions(self) -> list[str]:
        """The dimensions present, known ones first in their usual order."""
        present = {f.spec.dimension for f in self.files}
        known = [d for d in PERSONA_DIMENSIONS if d in present]
        return known + sorted(present - set(known))

    def target_of(self, dimension: str) -> str:
        """``"agent"`` or ``"environment"``: how ``dimension`` is scored."""
        for f in self.files:
            if f.spec.dimension == dimension:
                return f.spec.target_type
        raise KeyError(dimension)

    def files_for(self, dimension: str, agent_id: str | None) -> list[PropositionFile]:
        """The default file of ``dimension`` and, if any, ``agent_id``'s own file."""
        chosen = [f for f in self.files if f.spec.dimension == dimension and f.agent_id is None]
        if agent_id is not None:
            chosen += [
                f for f in self.files if f.spec.dimension == dimension and f.agent_id == agent_id
            ]
        return chosen

    def frame(self) -> pl.DataFrame:
        """All propositions, schema :data:`toolkit.frames.PROPOSITIONS_SCHEMA`.

        Columns: dimension, file_agent_id, proposition, claim, weight, inverted, hard,
        include_personas, target_type, first_n, last_n, precondition, recommendation,
        source_file.
        """
        rows = [
            {
                "dimension": f.spec.dimension,
                "file_agent_id": f.agent_id,
                "proposition": p.id,
                "claim": p.claim,
                "weight": p.weight,
                "inverted": p.inverted,
                "hard": f.spec.hard,
                "include_personas": f.spec.include_personas,
                "target_type": f.spec.target_type,
                "first_n": f.spec.first_n,
                "last_n": f.spec.last_n,
                "precondition": p.precondition,
                "recommendation": p.recommendations_for_improvement,
                "source_file": f.path,
            }
            for f in self.files
            for p in f.spec.propositions
        ]
        return pl.DataFrame(rows, schema=PROPOSITIONS_SCHEMA)


def load_proposition_file(
    path: str | Path, *, within: Path | None = None
) -> tuple[PropositionFile, list[str]]:
    """Parse one proposition YAML file; returns it and any warnings.

    Raises:
        InputError: naming the file, the field (e.g. ``propositions.2.weight``) and value.
    """
    source = Path(path)
    data = edge.parse_yaml_text(_read_text(source, within), source)
    if not isinstance(data, Mapping):
        raise InputError(source, "a proposition file must be a mapping", value=data)
    try:
        spec = PropositionFileModel.model_validate(data)
    except ValidationError as exc:
        loc, value, msg = _first_error(exc)
        raise InputError(source, msg, field=loc, value=value) from exc
    warnings: list[str] = []
    stem = source.stem
    if spec.agent_id is None and stem != "_default":
        spec = spec.model_copy(update={"agent_id": stem})
        warnings.append(f"{source}: no agent_id; taken from the file name ({stem!r})")
    elif spec.agent_id is not None and stem == "_default":
        raise InputError(
            source,
            "a _default file is for every agent; remove agent_id or rename the file",
            field="agent_id",
            value=spec.agent_id,
        )
    if spec.target_type == "environment" and spec.agent_id is not None:
        raise InputError(
            source,
            "an environment dimension has no per-agent file",
            field="agent_id",
            value=spec.agent_id,
        )
    for i, prop in enumerate(spec.propositions):
        for name in _TEMPLATE_RE.findall(prop.claim):
            if name not in TEMPLATE_VARIABLES:
                raise InputError(
                    source,
                    "unknown template variable {{"
                    + name
                    + "}}; known: "
                    + ", ".join(TEMPLATE_VARIABLES),
                    field=f"propositions.{i}.claim",
                    value=prop.claim,
                )
    if source.parent.name in PERSONA_DIMENSIONS and source.parent.name != spec.dimension:
        warnings.append(
            f"{source}: dimension {spec.dimension!r} differs from its folder "
            f"{source.parent.name!r}; the file's dimension is used"
        )
    return PropositionFile(path=str(source), spec=spec), warnings


def load_propositions(path: str | Path) -> PropositionSet:
    """Read a folder of proposition files (``<dimension>/_default.yaml``,
    ``<dimension>/<agent_id>.yaml``), or a single file.

    Raises:
        InputError: on the first bad file, or when two files claim the same
            (dimension, agent_id), or when a dimension mixes agent and environment files.
    """
    root = Path(path)
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(p for p in root.rglob("*") if p.suffix in {".yaml", ".yml"})
        if not paths:
            raise InputError(root, "no proposition files (*.yaml) in this folder")
    else:
        raise InputError(root, "no such file or folder")
    files: list[PropositionFile] = []
    warnings: list[str] = []
    seen: dict[tuple[str, str | None], str] = {}
    targets: dict[str, str] = {}
    for p in paths:
        parsed, notes = load_proposition_file(p, within=root if root.is_dir() else None)
        warnings.extend(notes)
        key = (parsed.spec.dimension, parsed.agent_id)
        if key in seen:
            raise InputError(
                p,
                f"a second file for this dimension and agent (first: {seen[key]})",
                field="agent_id",
                value=parsed.agent_id,
            )
        seen[key] = str(p)
        target = targets.setdefault(parsed.spec.dimension, parsed.spec.target_type)
        if target != parsed.spec.target_type:
            raise InputError(
                p,
                f"dimension {parsed.spec.dimension!r} is already scored per {target}",
                field="target_type",
                value=parsed.spec.target_type,
            )
        files.append(parsed)
    for dimension in {f.spec.dimension for f in files}:
        if not any(f.spec.dimension == dimension and f.agent_id is None for f in files):
            warnings.append(
                f"dimension {dimension!r} has no _default file; only agents with their own "
                "file are scored on it"
            )
    return PropositionSet(files=tuple(files), warnings=tuple(warnings))


def render_claim(
    template: str,
    variables: Mapping[str, str | None],
    *,
    path: str | None = None,
    field: str | None = None,
    reasons: Mapping[str, str] | None = None,
) -> str:
    """Fill ``{{agent_name}}``, ``{{action}}``, ``{{channel_name}}``, ``{{recipient_name}}``.

    Raises:
        InputError: when the claim uses a variable that has no value here, naming the
            file, the field and the claim.
    """

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        value = variables.get(name)
        if value is None:
            raise InputError(
                path,
                "template variable {{"
                + name
                + "}} has no value here"
                + (f" ({reasons[name]})" if reasons and name in reasons else ""),
                field=field,
                value=template,
            )
        return value

    return _TEMPLATE_RE.sub(fill, template)


# ---------------------------------------------------------------------------
# Golden baselines
# ---------------------------------------------------------------------------


class Baseline(BaseModel):
    """A golden baseline for one agent (camel-case keys in the file)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    agent_id: str = Field(min_length=1, alias="agentId")
    captured_at: datetime = Field(alias="capturedAt")
    dimensions: dict[str, float]
    proposition_scores: dict[str, float] = Field(default_factory=dict, alias="propositionScores")

    @field_validator("dimensions", "proposition_scores")
    @classmethod
    def _on_the_scale(cls, value: dict[str, float]) -> dict[str, float]:
        for key, score in value.items():
            if not 0.0 <= score <= 9.0:  # also refuses NaN and infinities
                raise ValueError(f"score {key!r} = {score!r} is not a number from 0 to 9")
        return value

    def to_json(self) -> str:
        """The baseline in its file form (2-space indented JSON)."""
        scores = {
            k: int(v) if float(v).is_integer() else round(v, 4)
            for k, v in self.proposition_scores.items()
        }
        stamp = _utc(self.captured_at)
        assert stamp is not None
        payload = {
            "agentId": self.agent_id,
            "capturedAt": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "dimensions": dict(self.dimensions),
            "propositionScores": scores,
        }
        return json.dumps(payload, indent=2) + "\n"


def load_baseline(path: str | Path, *, within: Path | None = None) -> Baseline:
    """Read one golden baseline JSON file (scores on the judge's 0-9 scale).

    Raises:
        InputError: naming the file, the field and the value.
    """
    source = Path(path)
    data = parse_json_text(source, _read_text(source, within))
    if not isinstance(data, dict):
        raise InputError(source, "a baseline must be a JSON object", value=data)
    try:
        return Baseline.model_validate(data)
    except ValidationError as exc:
        loc, value, msg = _first_error(exc)
        raise InputError(source, msg, field=loc, value=value) from exc


def load_baselines(path: str | Path) -> dict[str, Baseline]:
    """Read every ``*.json`` baseline of a folder (or one file), keyed by agent id."""
    root = Path(path)
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(root.glob("*.json"))
    else:
        raise InputError(root, "no such baseline file or folder")
    out: dict[str, Baseline] = {}
    for p in paths:
        baseline = load_baseline(p, within=root if root.is_dir() else None)
        if baseline.agent_id in out:
            raise InputError(
                p, "a second baseline for this agent", field="agentId", value=baseline.agent_id
            )
        out[baseline.agent_id] = baseline
    return out


def write_baselines(baselines: Iterable[Baseline], folder: str | Path) -> list[Path]:
    """Write each baseline atomically to ``<folder>/<agent_id>.json``; returns the paths.

    The agent id comes from the data, so it is made a safe file name first
    (:func:`toolkit.io.atomic.safe_file_name`): a baseline is never written outside
    ``folder``.

    Raises:
        InputError: two agent ids give the same file name.
    """
    chosen: dict[str, str] = {}
    planned: list[tuple[Path, Baseline]] = []
    for b in baselines:
        name = f"{safe_file_name(b.agent_id)}.json"
        if name in chosen and chosen[name] != b.agent_id:
            raise InputError(
                Path(folder) / name,
                f"agent ids {chosen[name]!r} and {b.agent_id!r} give the same file name",
                field="agentId",
                value=b.agent_id,
            )
        chosen[name] = b.agent_id
        planned.append((Path(folder) / name, b))
    return [write_text_atomic(target, b.to_json()) for target, b in planned]


# ---------------------------------------------------------------------------
# Action-gate correction logs
# ---------------------------------------------------------------------------


class _BadDimension(ValueError):
    def __init__(self, reason: str, field: str, value: Any) -> None:
        super().__init__(reason)
        self.field, self.value = field, value


class _DimensionScore(_Lenient):
    """One entry of the table shape's ``dimension_scores``."""

    dimension: str | None = None
    score: float | None = Field(default=None, ge=0.0, le=9.0)
    reasoning: str | None = None
    passed: bool | None = None


class _CorrectionRow(_Lenient):
    agent_id: str | None = Field(default=None, validation_alias=AliasChoices("agent_id", "agentId"))
    action_id: str | int | None = Field(
        default=None, validation_alias=AliasChoices("action_id", "actionId", "message_id")
    )
    attempt: int = Field(
        ge=1,
        le=MAX_INT64,
        validation_alias=AliasChoices("attempt", "attempt_number", "attemptNumber"),
    )
    outcome: CorrectionOutcome
    scores: dict[str, float | None] = Field(default_factory=dict)
    dimension_scores: list[_DimensionScore] | dict[str, float | _DimensionScore | None] = Field(
        default_factory=list, validation_alias=AliasChoices("dimension_scores", "dimensionScores")
    )
    similarity: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        validation_alias=AliasChoices("similarity", "similarity_score", "similarityScore"),
    )
    total_score: float | None = Field(
        default=None, validation_alias=AliasChoices("total_score", "totalScore")
    )

    @field_validator("scores")
    @classmethod
    def _on_the_scale(cls, value: dict[str, float | None]) -> dict[str, float | None]:
        for key, score in value.items():
            if score is not None and not 0.0 <= score <= 9.0:
                raise ValueError(f"score {key!r} = {score!r} is not a number from 0 to 9")
        return value

    def dimension_rows(self) -> list[tuple[str, float | None, str | None, bool | None]]:
        """``(dimension, score, reasoning, passed)`` from ``scores`` and ``dimension_scores``
        (the table shape: a list of ``{dimension, score, reasoning, passed}`` or a mapping
        of a dimension to a score or to ``{score, reasoning, passed}``)."""
        out: dict[str, tuple[str, float | None, str | None, bool | None]] = {
            k: (k, v, None, None) for k, v in self.scores.items()
        }
        items: list[tuple[str | None, float | _DimensionScore | None]]
        if isinstance(self.dimension_scores, dict):
            items = list(self.dimension_scores.items())
        else:
            items = [(d.dimension, d) for d in self.dimension_scores]
        for i, (key, value) in enumerate(items):
            if key is None:
                raise _BadDimension("names no dimension", f"dimension_scores.{i}", value)
            if isinstance(value, _DimensionScore):
                out[key] = (key, value.score, value.reasoning, value.passed)
            else:
                if value is not None and not 0.0 <= value <= 9.0:
                    raise _BadDimension(
                        "is not a number from 0 to 9", f"dimension_scores.{key}", value
                    )
                out[key] = (key, value, None, None)
        return list(out.values())


def load_correction_log(path: str | Path) -> pl.DataFrame:
    """Read an action-gate correction log (JSONL, one attempt per line).

    Each line: ``{agent_id, action_id, attempt, outcome, scores: {<dimension>: 0-9},
    similarity}``, or the-office's table shape: ``{agent_id, attempt_number, outcome,
    dimension_scores: [{dimension, score, reasoning, passed}, ...], similarity_score,
    total_score}`` (``dimension_scores`` may also map a dimension to a score or to
    ``{score, reasoning, passed}``). Outcome is passed | corrected | passed_after_retry
    | forced_through | timeout_pass_through | regeneration_requested |
    regeneration_success | direct_correction_success.

    Returns:
        Schema :data:`toolkit.frames.CORRECTION_LOG_SCHEMA`: one row per (line,
        dimension) with columns agent_id, action_id, attempt, outcome, dimension, score,
        reasoning, passed (as the log recorded it; null when not), similarity,
        total_score, line (a line without scores gives one row with a null dimension).
    """
    source = Path(path)
    rows: list[dict[str, Any]] = []
    for number, obj in parse_json_lines(source, _read_text(source)):
        try:
            row = _CorrectionRow.model_validate(obj)
            dims = row.dimension_rows()
        except ValidationError as exc:
            loc, value, msg = _first_error(exc)
            raise InputError(source, msg, field=loc, value=value, line=number) from exc
        except _BadDimension as exc:
            raise InputError(
                source, str(exc), field=exc.field, value=exc.value, line=number
            ) from exc
        base = {
            "agent_id": row.agent_id,
            "action_id": None if row.action_id is None else str(row.action_id),
            "attempt": row.attempt,
            "outcome": row.outcome,
            "similarity": row.similarity,
            "total_score": row.total_score,
            "line": number,
        }
        if not dims:
            rows.append({**base, "dimension": None, "score": None})
        for dimension, score, reasoning, passed in dims:
            rows.append(
                {
                    **base,
                    "dimension": dimension,
                    "score": score,
                    "reasoning": reasoning,
                    "passed": passed,
                }
            )
    if not rows:
        raise InputError(source, "the correction log has no rows")
    return pl.DataFrame(rows, schema=CORRECTION_LOG_SCHEMA)


def proposition_ids(files: Sequence[PropositionFile]) -> list[str]:
    """The proposition ids of ``files``, in order."""
    return [p.id for f in files for p in f.spec.propositions]


__all__ = [
    "PERSONA_DIMENSIONS",
    "TEMPLATE_VARIABLES",
    "Baseline",
    "ChatRun",
    "PropositionFile",
    "PropositionFileModel",
    "PropositionModel",
    "PropositionSet",
    "load_baseline",
    "load_baselines",
    "load_chat",
    "load_correction_log",
    "load_personas",
    "load_proposition_file",
    "load_propositions",
    "render_claim",
    "write_baselines",
]
