"""Reading a chat run in either form, told apart by its content."""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._common import parse_json_lines, parse_json_text
from toolkit.load.persona._parse import read_text
from toolkit.load.persona.export import chat_from_export
from toolkit.load.persona.jsonl import chat_from_jsonl
from toolkit.load.persona.run import ChatRun, load_personas_file


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
