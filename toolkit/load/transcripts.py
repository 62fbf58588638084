"""Agent transcripts (Claude Code JSONL, Codex session logs) as token, tool-call and
tool-use events.

**Claude Code**: one JSON object per line, each with a ``timestamp``. Assistant lines
carry ``message.usage`` (input, output, cache-read and cache-creation tokens) and
``message.content[]`` items of type ``tool_use`` (``name``, ``input``); user lines carry
``tool_result`` items with ``is_error``. Claude Code writes one line per content block and
repeats the message's ``usage`` on each, so usage is counted once per ``message.id``; tool
calls and results are counted once per tool-use id.

**Codex** (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``): one
``{timestamp, type, payload}`` object per line (``session_meta``, ``turn_context``,
``response_item``, ``event_msg``). A ``response_item`` whose payload is a
``function_call`` (``name`` such as ``shell`` or ``exec_command``, ``arguments`` a JSON
string holding ``command`` as a list or ``cmd`` as text) or a ``local_shell_call``
(``action.command``) is a shell command the agent ran. Codex lines feed the tool uses and
the covered times; their token counts and tool errors are not read (yet).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    LOAD_ISSUES_SCHEMA,
    TOOL_USES_SCHEMA,
    TRANSCRIPT_EVENTS_SCHEMA,
    TRANSCRIPT_TURNS_SCHEMA,
)
from toolkit.io import edge
from toolkit.load._fields import MAX_INT64, timestamp
from toolkit.summary import Shows, Summary, issue_notes, plural


@dataclass(frozen=True, repr=False)
class Transcripts(Shows):
    """Loaded transcripts.

    Attributes:
        events: one row per timestamped line that carries tokens or tool calls,
            :data:`toolkit.frames.TRANSCRIPT_EVENTS_SCHEMA` (source_file, line, timestamp,
            message_id, input/output/cache_read/cache_creation tokens, tool_calls,
            tool_errors).
        issues: lines that are not JSON objects, :data:`toolkit.frames.LOAD_ISSUES_SCHEMA`.
        files: how many ``*.jsonl`` files were read.
        tool_uses: one row per tool call (Claude Code and Codex),
            :data:`toolkit.frames.TOOL_USES_SCHEMA` (source_file, line, timestamp,
            harness, tool, command, path).
        turns: every timestamped line, :data:`toolkit.frames.TRANSCRIPT_TURNS_SCHEMA`
            (source_file, timestamp): the times the transcripts cover.
    """

    events: pl.DataFrame
    issues: pl.DataFrame
    files: int
    tool_uses: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=TOOL_USES_SCHEMA))
    turns: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=TRANSCRIPT_TURNS_SCHEMA)
    )

    def _summary(self) -> Summary:
        return Summary(
            "Transcripts",
            plural(self.files, "file"),
            (
                ("events", self.events.height),
                ("tool uses", self.tool_uses.height),
                ("issues", self.issues.height),
            ),
            notes=issue_notes(self.issues.iter_rows(named=True)),
        )


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        return 0
    if not 0 <= value <= MAX_INT64:
        raise ValueError(f"a token count of {value} is negative or beyond 64 bits")
    return value


def _content(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [item for item in content if isinstance(item, Mapping)]


def load_transcripts(folders: Iterable[str | Path]) -> Transcripts:
    """Read every ``*.jsonl`` file under ``folders`` (recursively).

    Lines without a parseable ``timestamp`` (session summaries, snapshots) are skipped;
    lines that are not JSON objects are reported in ``issues``.

    Raises:
        InputError: a folder does not exist.
    """
    rows: list[dict[str, Any]] = []
    uses: list[dict[str, Any]] = []
    turn_files: list[str] = []
    turn_times: list[Any] = []
    issues: list[dict[str, Any]] = []
    seen_messages: set[str] = set()
    seen_uses: set[str] = set()
    seen_calls: set[str] = set()
    seen_results: set[str] = set()
    files: list[tuple[Path, Path]] = []
    for folder in folders:
        root = Path(folder)
        if not root.is_dir():
            raise InputError(root, "no such folder (--transcripts)")
        files.extend((root, f) for f in sorted(root.rglob("*.jsonl")))
    for root, path in files:
        try:
            blob = edge.read_bytes(path, within=root)
        except InputError as err:
            edge.skipped_input(path, err.reason)
            issues.append({"path": str(path), "line": None, "reason": err.reason})
            continue
        try:
            content = edge.decode_text(blob, path)
        except InputError as err:
            # Lenient, and said so: the lines are read with the bad bytes replaced.
            reason = f"{err.reason}; read with the bad bytes replaced"
            issues.append({"path": str(path), "line": None, "reason": reason})
            content = blob.decode("utf-8", errors="replace")
        for number, line in edge.iter_json_lines(content, path):
            if isinstance(line, InputError):
                issues.append({"path": str(path), "line": number, "reason": line.reason})
                continue
            if not isinstance(line, Mapping):
                issues.append({"path": str(path), "line": number, "reason": "not a JSON object"})
                continue
            try:
                when = timestamp(line.get("timestamp"))
            except ValueError:
                when = None
            if when is None:
                continue
            turn_files.append(str(path))
            turn_times.append(when)
            where = {"source_file": str(path), "line": number, "timestamp": when}
            codex = _codex_use(line, seen_uses)
            if codex is not None:
                uses.append(where | codex)
                continue
            message = line.get("message")
            if not isinstance(message, Mapping):
                continue
            uses.extend(where | use for use in _claude_uses(message, seen_uses))
            try:
                row = _event(message, seen_messages, seen_calls, seen_results)
            except ValueError as exc:
                issues.append({"path": str(path), "line": number, "reason": f"{exc}; skipped"})
                continue
            if row is not None:
                rows.append({"source_file": str(path), "line": number, "timestamp": when} | row)
    return Transcripts(
        events=pl.DataFrame(rows, schema=TRANSCRIPT_EVENTS_SCHEMA),
        issues=pl.DataFrame(issues, schema=LOAD_ISSUES_SCHEMA),
        files=len(files),
        tool_uses=pl.DataFrame(uses, schema=TOOL_USES_SCHEMA),
        turns=pl.DataFrame(
            {"source_file": turn_files, "timestamp": turn_times}, schema=TRANSCRIPT_TURNS_SCHEMA
        ),
    )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _claude_uses(message: Mapping[str, Any], seen: set[str]) -> list[dict[str, Any]]:
    """Claude Code ``tool_use`` items: ``Bash`` runs ``input.command``, ``Read`` reads
    ``input.file_path``; each tool-use id once."""
    out: list[dict[str, Any]] = []
    for item in _content(message):
        if item.get("type") != "tool_use":
            continue
        key = item.get("id")
        if isinstance(key, str):
            if key in seen:
                continue
            seen.add(key)
        name = item.get("name") if isinstance(item.get("name"), str) else None
        raw = item.get("input")
        args: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        out.append(
            {
                "harness": "claude-code",
                "tool": name,
                "command": _text_or_none(args.get("command")) if name == "Bash" else None,
                "path": _text_or_none(args.get("file_path")) if name == "Read" else None,
            }
        )
    return out


#: Codex ``function_call`` names that run a shell command.
CODEX_SHELL_TOOLS = frozenset({"shell", "exec_command", "container.exec", "local_shell"})


def _shell_text(command: Any) -> str | None:
    """A Codex command as one line: a list (``["bash", "-lc", "pytest -q"]``) joined with
    spaces, text as it is."""
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        return _text_or_none(" ".join(command))
    return _text_or_none(command)


def _codex_use(line: Mapping[str, Any], seen: set[str]) -> dict[str, Any] | None:
    """A Codex ``response_item`` that ran a shell command, else ``None``."""
    payload = line.get("payload")
    if line.get("type") != "response_item" or not isinstance(payload, Mapping):
        return None
    kind = payload.get("type")
    key = payload.get("call_id")
    if isinstance(key, str) and key in seen:
        return None
    if kind == "local_shell_call":
        action = payload.get("action")
        command = _shell_text(action.get("command")) if isinstance(action, Mapping) else None
        name = "local_shell"
    elif kind == "function_call" and isinstance(payload.get("name"), str):
        name = payload["name"]
        raw = payload.get("arguments")
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = None
        if not isinstance(args, Mapping) or name not in CODEX_SHELL_TOOLS:
            command = None
        else:
            command = _shell_text(args.get("command", args.get("cmd")))
    else:
        return None
    if isinstance(key, str):
        seen.add(key)
    return {"harness": "codex", "tool": name, "command": command, "path": None}


def _event(
    message: Mapping[str, Any], messages: set[str], calls: set[str], results: set[str]
) -> dict[str, Any] | None:
    message_id = message.get("id") if isinstance(message.get("id"), str) else None
    usage = message.get("usage")
    tokens = dict.fromkeys(
        ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"), 0
    )
    has_usage = isinstance(usage, Mapping) and (message_id is None or message_id not in messages)
    if has_usage and isinstance(usage, Mapping):
        if message_id is not None:
            messages.add(message_id)
        tokens = {
            "input_tokens": _int(usage.get("input_tokens")),
            "output_tokens": _int(usage.get("output_tokens")),
            "cache_read_tokens": _int(usage.get("cache_read_input_tokens")),
            "cache_creation_tokens": _int(usage.get("cache_creation_input_tokens")),
        }
    tool_calls = tool_errors = tool_results = 0
    for item in _content(message):
        kind = item.get("type")
        if kind == "tool_use":
            key = item.get("id")
            if not isinstance(key, str) or key not in calls:
                tool_calls += 1
                if isinstance(key, str):
                    calls.add(key)
        elif kind == "tool_result":
            # Each result counted once per tool_use_id (Claude Code repeats lines).
            key = item.get("tool_use_id")
            if not isinstance(key, str) or key not in results:
                tool_results += 1
                tool_errors += item.get("is_error") is True
                if isinstance(key, str):
                    results.add(key)
    if not has_usage and tool_calls == 0 and tool_results == 0:
        return None
    return {
        "message_id": message_id,
        **tokens,
        "tool_calls": tool_calls,
        "tool_errors": tool_errors,
        "tool_results": tool_results,
    }
