"""A ``run_messages`` export as an agent platform stores it (a JSON array,
``{"run_messages": [...]}`` or JSONL): a chat message is a row whose ``tool_name`` is
``send_message`` and whose ``tool_input`` holds ``text`` and ``channel``. Snake-case and
camel-case keys are both accepted.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, ValidationError

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load.persona._parse import Lenient, first_error, utc
from toolkit.load.persona.run import ChatRun, PersonaEntry, build_run


class _ExportRow(Lenient):
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


def chat_from_export(source: Path, data: Any, extra: dict[str, PersonaEntry]) -> ChatRun:
    if not isinstance(data, list):
        raise InputError(source, "expected a list of run_messages rows", value=data)
    parsed, skipped = _send_message_rows(source, data)
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
    parsed.sort(key=lambda t: (utc(t[1].created_at) or epoch, t[0]))
    rows, no_channel = _message_rows(run, parsed)
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
    return build_run(run, source, "run_messages", rows, dict(extra), warnings)


def _send_message_rows(
    source: Path, data: list[Any]
) -> tuple[list[tuple[int, _ExportRow, dict[str, Any]]], Counter[str]]:
    """The export's send_message rows (index, row, parsed tool_input), and how many rows
    of each other kind (``message_type/tool_name``) were skipped."""
    parsed: list[tuple[int, _ExportRow, dict[str, Any]]] = []
    skipped: Counter[str] = Counter()
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(source, "each row must be an object", field=f"[{index}]", value=item)
        try:
            row = _ExportRow.model_validate(item)
        except ValidationError as exc:
            loc, value, msg = first_error(exc)
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
    return parsed, skipped


def _message_rows(
    run: str, parsed: list[tuple[int, _ExportRow, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], int]:
    """The messages rows of the send_message rows (in order, steps from 1), and how many
    name no channel."""
    no_channel = 0
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
                "time": utc(row.created_at),
                "recipient_id": None if recipient is None else str(recipient),
            }
        )
    return rows, no_channel
