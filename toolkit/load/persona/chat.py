"""Reading a chat run in either form, told apart by its content."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._common import parse_json_lines, parse_json_text
from toolkit.load.persona._parse import read_text
from toolkit.load.persona.export import chat_from_export
from toolkit.load.persona.jsonl import chat_from_jsonl
from toolkit.load.persona.office_db import is_database_url, load_office_chat
from toolkit.load.persona.run import ChatRun, PersonaEntry, build_run, load_personas_file


def personas_of(chat: ChatRun) -> dict[str, PersonaEntry]:
    """The personas of a loaded chat run as entries (to lay a personas file over)."""
    return {
        str(r["agent_id"]): PersonaEntry(
            agent_id=r["agent_id"], name=r["name"], persona=r["persona"]
        )
        for r in chat.personas.iter_rows(named=True)
    }


def load_chat(
    path: str | Path,
    personas: str | Path | None = None,
    *,
    channel: str | Sequence[str] | None = None,
    window: str | None = None,
    agents: Sequence[str] | None = None,
) -> ChatRun:
    """Read a chat run in either form (detected from the content), or the-office's
    conversation from its PostgreSQL database.

    Args:
        path: a toolkit JSONL chat file or a ``run_messages`` export; or
            ``postgresql://…/DB`` of the-office (with ``channel``; see
            :func:`toolkit.load.persona.office_db.load_office_chat`).
        personas: optional YAML/JSON personas file (``{agent_id: {name, persona}}`` or a
            list of ``{agent_id, name, persona}``); it fills in names and persona specs,
            overriding those of the run file.
        channel: the-office only: the channel(s) by name or id.
        window: the-office only: ``7d``/``12h``/``2w`` back from now, or ``START..END``.
        agents: the-office only: agents whose personas are read besides the authors'.

    Returns:
        A :class:`ChatRun` whose ``messages`` frame has the columns run, step, channel,
        agent_id, agent_name, kind, text, time, recipient_id.

    Raises:
        InputError: one line naming the file, the line or field and the value.
    """
    if is_database_url(path):
        chat = load_office_chat(str(path), channel=channel, window=window, agents=agents)
        if personas is None:
            return chat
        extra = load_personas_file(Path(personas))
        return build_run(
            chat.run, chat.source, chat.form, chat.messages.to_dicts(),
            {**personas_of(chat), **extra}, list(chat.warnings),
        )  # fmt: skip
    if channel is not None or window is not None or agents is not None:
        raise InputError(path, "channel, window and agents are for a postgresql:// database")
    source = Path(path)
    text = read_text(source)
    stripped = text.lstrip()
    if not stripped:
        raise InputError(source, "the file is empty; expected a chat run")
    extra = load_personas_file(Path(personas)) if personas is not None else {}
    if stripped.startswith("["):
        return chat_from_export(source, parse_json_text(source, text), extra)
    first = stripped.splitlines()[0]
    try:
        head = edge.parse_json_text(first, source)
    except InputError:
        head = None
    if isinstance(head, dict) and "type" in head:
        return chat_from_jsonl(source, parse_json_lines(source, text), extra)
    if isinstance(head, dict) and (
        {"message_type", "messageType", "tool_name", "toolName"} & set(head)
    ):
        return chat_from_export(source, [row for _, row in parse_json_lines(source, text)], extra)
    data = parse_json_text(source, text)
    if isinstance(data, dict) and isinstance(
        data.get("run_messages", data.get("runMessages")), list
    ):
        return chat_from_export(source, data.get("run_messages", data.get("runMessages")), extra)
    raise InputError(
        source,
        "not a chat run: expected toolkit chat JSONL (lines with a 'type') or a "
        "run_messages export (rows with 'message_type' and 'tool_name')",
    )
