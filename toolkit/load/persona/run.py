"""A chat run as frames (messages and personas), built from the rows a chat form yields,
and personas files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import AliasChoices, Field, ValidationError

from toolkit.errors import InputError
from toolkit.frames import CHAT_MESSAGES_SCHEMA, PERSONAS_SCHEMA
from toolkit.io import edge
from toolkit.load.persona._parse import Lenient, first_error, read_text
from toolkit.summary import Shows, Summary


@dataclass(frozen=True, repr=False)
class ChatRun(Shows):
    """A chat run as frames.

    Attributes:
        run: the run id.
        messages: schema :data:`toolkit.frames.CHAT_MESSAGES_SCHEMA` (run, step, channel,
            agent_id, agent_name, kind, text, time, recipient_id), sorted by step.
        personas: schema :data:`toolkit.frames.PERSONAS_SCHEMA` (run, agent_id, name,
            persona); ``persona`` is null when the input gives no persona spec.
        source: the file it was read from (a database: its redacted URL).
        form: ``"jsonl"``, ``"run_messages"`` or ``"the-office"`` (its PostgreSQL tables).
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


class PersonaEntry(Lenient):
    agent_id: str = Field(min_length=1, validation_alias=AliasChoices("agent_id", "agentId", "id"))
    name: str | None = Field(default=None, validation_alias=AliasChoices("name", "display_name"))
    persona: str | None = Field(
        default=None, validation_alias=AliasChoices("persona", "system_prompt", "systemPrompt")
    )


def load_personas(path: str | Path) -> pl.DataFrame:
    """Read a personas file (YAML or JSON): ``{agent_id: {name, persona}}`` or a list of
    ``{agent_id, name, persona}``.

    Returns:
        Schema :data:`toolkit.frames.PERSONAS_SCHEMA` (run, agent_id, name, persona) with
        a null run; a missing name is the agent id.
    """
    entries = load_personas_file(Path(path))
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


def load_personas_file(path: Path) -> dict[str, PersonaEntry]:
    data = edge.parse_yaml_text(read_text(path), path)
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
    out: dict[str, PersonaEntry] = {}
    for where, item in items:
        try:
            entry = PersonaEntry.model_validate(item)
        except ValidationError as exc:
            loc, value, msg = first_error(exc)
            raise InputError(path, msg, field=f"{where}.{loc}", value=value) from exc
        out[entry.agent_id] = entry
    return out


def build_run(
    run: str,
    source: Path | str,
    form: str,
    rows: list[dict[str, Any]],
    personas: dict[str, PersonaEntry],
    warnings: list[str],
) -> ChatRun:
    speakers = [r["agent_id"] for r in rows if r["agent_id"] is not None and r["kind"] == "action"]
    for agent_id in dict.fromkeys(speakers):
        if agent_id not in personas:
            personas[agent_id] = PersonaEntry(agent_id=agent_id)
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
