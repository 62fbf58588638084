"""The toolkit's own JSONL chat format: one JSON object per line, ``type`` is ``run``,
``persona`` or ``message`` (see ``docs/rubrics/persona.md``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationError

from toolkit.errors import InputError
from toolkit.load._fields import Int64
from toolkit.load.persona._parse import Lenient, first_error, utc
from toolkit.load.persona.run import ChatRun, PersonaEntry, build_run


class _RunLine(Lenient):
    type: Literal["run"]
    run: str = Field(min_length=1)


class _PersonaLine(Lenient):
    type: Literal["persona"]
    agent_id: str = Field(min_length=1, validation_alias=AliasChoices("agent_id", "agentId"))
    name: str | None = None
    persona: str | None = None


class _MessageLine(Lenient):
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


def chat_from_jsonl(
    source: Path, lines: list[tuple[int, Any]], extra: dict[str, PersonaEntry]
) -> ChatRun:
    run = source.stem
    personas: dict[str, PersonaEntry] = {}
    rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    unknown: Counter[str] = Counter()
    models: dict[str, type[Lenient]] = {
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
            loc, value, msg = first_error(exc)
            raise InputError(source, msg, field=loc, value=value, line=number) from exc
        if isinstance(parsed, _RunLine):
            run = parsed.run
        elif isinstance(parsed, _PersonaLine):
            personas[parsed.agent_id] = PersonaEntry(
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
                    "time": utc(parsed.time),
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
        personas[agent_id] = PersonaEntry(
            agent_id=agent_id,
            name=entry.name or (base.name if base else None),
            persona=entry.persona or (base.persona if base else None),
        )
    return build_run(run, source, "jsonl", rows, personas, warnings)
