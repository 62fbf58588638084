"""the-office (persona drift) read from its PostgreSQL tables: the channel conversation and
the agents' personas as a :class:`~toolkit.load.persona.run.ChatRun`.

the-office keeps everything in PostgreSQL (its Drizzle schema; ``timestamptz``, ``jsonb``,
``uuid``, ``text[]``; FORMATS.md section 5). What is read from which table:

* ``channels(id, name)``: ``--channel`` names a channel by name or id;
* ``messages(id, channel_id, user_id, text, created_at)``: the group conversation the
  judge reads. A message whose ``user_id`` is an agent is that agent's action; any other
  author is a person, and the message a stimulus shown as ``<user_id>: <text>``. The
  ``thinking`` column is never shown to the judge (it is in the run transcripts);
* ``agents(id, display_name, system_prompt)``: names and persona specs.

Channel and window are pushed into the query (only those rows, only those columns); the
agents table is read only for the conversation's authors and the ``agents`` asked for.
Run transcripts, stored judge scores, correction and intervention logs and experiments
are in :mod:`toolkit.load.persona.office_tables`.
"""

from __future__ import annotations

import difflib
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, Protocol

import polars as pl

from toolkit.errors import InputError
from toolkit.io.source import open_source
from toolkit.load.persona.run import ChatRun, PersonaEntry, build_run

#: How errors name the schema a table or column comes from.
SYSTEM = "the-office (Drizzle schema, late 2026)"

#: The schemes read as a PostgreSQL database.
SCHEMES = ("postgresql://", "postgres://")

_RELATIVE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$")
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


class Tables(Protocol):
    """What is used of :class:`toolkit.io.source_postgres.PostgresSource`."""

    def url(self) -> str: ...

    def require(self, table: str, columns: Sequence[str], *, system: str) -> None: ...

    def frame(
        self,
        table: str,
        columns: Sequence[str],
        *,
        where: Sequence[tuple[str, str, Any]] = (),
        order_by: Sequence[str] = (),
    ) -> pl.DataFrame: ...


def is_database_url(value: object) -> bool:
    """Whether ``value`` is a ``postgresql://`` or ``postgres://`` URL."""
    return isinstance(value, str) and value.lower().startswith(SCHEMES)


@contextmanager
def office_tables(url: str) -> Iterator[Tables]:
    """Open the-office's database at ``url`` (read-only; closed on exit)."""
    source: Any = open_source(url)
    try:
        if source.kind() != "database":
            raise InputError(url, "expected a postgresql:// database of the-office")
        yield source
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


@dataclass(frozen=True)
class Window:
    """A time window, ``[start, end)``; either end may be open (``None``)."""

    start: datetime | None = None
    end: datetime | None = None

    def where(self, column: str) -> list[tuple[str, str, Any]]:
        """The window as ``where`` items on ``column``."""
        out: list[tuple[str, str, Any]] = []
        if self.start is not None:
            out.append((column, ">=", self.start))
        if self.end is not None:
            out.append((column, "<", self.end))
        return out

    def label(self) -> str:
        """``START..END`` as ``--window`` takes it (whole UTC days as dates, END's day
        included), empty for an open window."""
        if self.start is None and self.end is None:
            return ""
        ends = [d for d in (self.start, self.end) if d is not None]
        if all(d.astimezone(UTC).time() == time(0) for d in ends):
            last = None if self.end is None else self.end - timedelta(days=1)
            show = [d.astimezone(UTC).date().isoformat() if d else "" for d in (self.start, last)]
        else:
            show = [d.isoformat(timespec="minutes") if d else "" for d in (self.start, self.end)]
        return "..".join(show)


def parse_window(text: str | None, *, now: datetime | None = None) -> Window:
    """``--window``: ``7d``, ``12h`` or ``2w`` back from ``now`` (the-office's harness
    flag), or ``START..END`` with ISO dates or times (either side may be empty; a date
    without a zone is UTC; a bare date as END includes that whole day).

    Raises:
        InputError: a window of another form, one that ends before it starts, or one
            reaching outside the years a time in UTC holds.
    """
    try:
        return _parsed_window(text, now)
    except OverflowError:  # 9999-12-31 as END (its whole day), year 1 east of UTC, 10^11 d
        raise InputError(
            None, "reaches outside the years 1 to 9999 (UTC) a time can hold",
            field="--window", value=text,
        ) from None  # fmt: skip


def _parsed_window(text: str | None, now: datetime | None) -> Window:
    if text is None or not text.strip():
        return Window()
    match = _RELATIVE.match(text)
    if match:
        until = now or datetime.now(UTC)
        return Window(until - int(match.group(1)) * _UNITS[match.group(2)], until)
    if ".." not in text:
        raise InputError(
            None, "expected 7d, 12h, 2w or START..END (ISO dates)", field="--window", value=text
        )
    left, _, right = text.partition("..")
    start, end = _when(left, text, end=False), _when(right, text, end=True)
    if start is not None and end is not None and end <= start:
        raise InputError(None, "the window ends before it starts", field="--window", value=text)
    return Window(start, end)


def _when(part: str, text: str, *, end: bool) -> datetime | None:
    part = part.strip()
    if not part:
        return None
    try:
        value = datetime.fromisoformat(part)
    except ValueError as exc:
        raise InputError(
            None, f"{part!r} is not an ISO date or time", field="--window", value=text
        ) from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    if end and len(part) == 10:  # a bare date: the whole day
        value += timedelta(days=1)
    return value.astimezone(UTC)


def resolve_channels(tables: Tables, channel: str | Sequence[str] | None) -> pl.DataFrame:
    """The channels named (by id or name; a comma-separated string names several).

    Returns:
        Columns ``id``, ``name``, in the order asked.

    Raises:
        InputError: a channel no row has, with the closest names ("did you mean").
    """
    asked = channel.split(",") if isinstance(channel, str) else list(channel or ())
    asked = [a.strip().lstrip("#") for a in asked if a.strip()]
    if not asked:
        raise InputError(tables.url(), "name a channel (--channel NAME or ID)", field="--channel")
    tables.require("channels", ("id", "name"), system=SYSTEM)
    known = tables.frame("channels", ("id", "name"))
    rows: list[dict[str, Any]] = []
    for name in asked:
        hit = known.filter((pl.col("id") == name) | (pl.col("name") == name))
        if hit.height == 0:
            choices = [str(v) for v in [*known["name"].to_list(), *known["id"].to_list()]]
            close = difflib.get_close_matches(name, choices, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(
                tables.url(),
                f"no such channel in table channels{hint}",
                field="--channel",
                value=name,
            )
        rows.extend(hit.head(1).to_dicts())
    return pl.DataFrame(rows, schema={"id": pl.String(), "name": pl.String()}).unique(
        "id", keep="first", maintain_order=True
    )


MESSAGE_COLUMNS = ("id", "channel_id", "user_id", "text", "created_at")
AGENT_COLUMNS = ("id", "display_name", "system_prompt")


def load_office_chat(
    url: str,
    *,
    channel: str | Sequence[str] | None,
    window: str | Window | None = None,
    agents: Sequence[str] | None = None,
) -> ChatRun:
    """The conversation of ``channel`` in ``window`` as a :class:`ChatRun`.

    Args:
        url: ``postgresql://…/DB`` of the-office (read-only; the password never shown).
        channel: a channel name or id (``#`` optional), or several (a list or
            ``"a,b"``).
        window: ``7d``/``12h``/``2w`` back from now, ``START..END``, or a :class:`Window`.
        agents: agents whose personas are read besides the conversation's authors (ids).

    Returns:
        A :class:`ChatRun` with ``form`` ``"the-office"``; the run is named after the
        channels and the window.

    Raises:
        InputError: a missing table or column (naming the-office's schema), an unknown
            channel, a value of the wrong type, no message in the window.
    """
    with office_tables(url) as tables:
        return office_chat(tables, channel=channel, window=window, agents=agents)


def office_chat(
    tables: Tables,
    *,
    channel: str | Sequence[str] | None,
    window: str | Window | None = None,
    agents: Sequence[str] | None = None,
) -> ChatRun:
    """:func:`load_office_chat` on tables already open."""
    win = window if isinstance(window, Window) else parse_window(window)
    channels = resolve_channels(tables, channel)
    tables.require("messages", MESSAGE_COLUMNS, system=SYSTEM)
    tables.require("agents", AGENT_COLUMNS, system=SYSTEM)
    ids = channels["id"].to_list()
    if win.start is not None or win.end is not None:  # the window compares times: check first
        probe = tables.frame("messages", ("created_at",), where=[("channel_id", "in", [])])
        _timestamps(probe, tables.url(), "messages", "created_at")
    messages = tables.frame(
        "messages",
        MESSAGE_COLUMNS,
        where=[("channel_id", "in", ids), *win.where("created_at")],
        order_by=("created_at", "id"),
    )
    _strings(messages, tables.url(), "messages", ("user_id",))
    wanted = sorted({*(str(u) for u in messages["user_id"].drop_nulls()), *(agents or ())})
    people = tables.frame("agents", AGENT_COLUMNS, where=[("id", "in", wanted)])
    return chat_from_office_rows(tables.url(), messages, people, channels, win)


def as_text(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """Id columns (``uuid`` or ``text``) as text, whatever form the driver gave them in
    (text, Python ``UUID`` objects, or 16 raw bytes)."""
    out = []
    for column in columns:
        series = frame[column]
        if series.dtype == pl.String():
            continue
        values = [None if v is None else _uuid_text(v) for v in series.to_list()]
        out.append(pl.Series(column, values, dtype=pl.String))
    return frame.with_columns(out) if out else frame


def _uuid_text(value: Any) -> str:
    if isinstance(value, bytes | bytearray) and len(value) == 16:
        return str(uuid.UUID(bytes=bytes(value)))
    return str(value)


def _timestamps(frame: pl.DataFrame, url: str, table: str, column: str) -> None:
    """Refuse a time column of another type than a timestamp (a value of the wrong type)."""
    series = frame[column]
    if not isinstance(series.dtype, pl.Datetime):
        raise InputError(
            url,
            f"expected timestamptz in {table}.{column} ({SYSTEM}), got {series.dtype}",
            field=f"{table}.{column}",
            value=series[0] if len(series) else None,
        )


def _strings(frame: pl.DataFrame, url: str, table: str, columns: Sequence[str]) -> None:
    """Refuse a column of another type than text (a value of the wrong type)."""
    for column in columns:
        dtype = frame.schema[column]
        if dtype not in (pl.String(), pl.Null()):
            bad = frame[column].drop_nulls()
            raise InputError(
                url,
                f"expected text in {table}.{column} ({SYSTEM}), got {dtype}",
                field=f"{table}.{column}",
                value=bad[0] if len(bad) else None,
            )


def chat_from_office_rows(
    url: str,
    messages: pl.DataFrame,
    agents: pl.DataFrame,
    channels: pl.DataFrame,
    window: Window = Window(),
) -> ChatRun:
    """Build the :class:`ChatRun` from the rows read (pure: no database).

    Args:
        url: the redacted URL, for errors and ``source``.
        messages: ``messages`` rows (:data:`MESSAGE_COLUMNS`) ordered by time.
        agents: ``agents`` rows (:data:`AGENT_COLUMNS`).
        channels: ``id``, ``name`` of the channels read.
        window: the window read (it names the run).
    """
    if messages.height == 0:
        where = ", ".join(f"#{n}" for n in channels["name"].to_list())
        span = f" in {window.label()}" if window.label() else ""
        raise InputError(url, f"no messages in {where}{span}: nothing to evaluate")
    _strings(messages, url, "messages", ("channel_id", "user_id", "text"))
    _strings(agents, url, "agents", AGENT_COLUMNS)
    _timestamps(messages, url, "messages", "created_at")
    stamps = messages["created_at"]
    names = dict(zip(channels["id"].to_list(), channels["name"].to_list(), strict=True))
    known = {str(r["id"]): r for r in agents.iter_rows(named=True)}
    personas = {
        a: PersonaEntry(agent_id=a, name=r["display_name"] or a, persona=r["system_prompt"])
        for a, r in known.items()
    }
    if isinstance(stamps.dtype, pl.Datetime) and stamps.dtype.time_zone:
        times = stamps.dt.convert_time_zone("UTC")
    else:  # timestamp without time zone: UTC, as the-office writes it
        times = stamps.dt.replace_time_zone("UTC")
    rows: list[dict[str, Any]] = []
    people = 0
    for step, (row, at) in enumerate(
        zip(messages.iter_rows(named=True), times.to_list(), strict=True), start=1
    ):
        user = row["user_id"]
        is_agent = user in known
        people += not is_agent
        rows.append(
            {
                "run": None,
                "step": step,
                "channel": names.get(row["channel_id"], row["channel_id"]),
                "agent_id": user if is_agent else None,
                "agent_name": user if is_agent else None,
                "kind": "action" if is_agent else "stimulus",
                "text": row["text"] if is_agent else f"{user}: {row['text']}",
                "time": at,
                "recipient_id": None,
            }
        )
    run = " ".join(f"#{n}" for n in channels["name"].to_list())
    if window.label():
        run += f" {window.label()}"
    for r in rows:
        r["run"] = run
    warnings = []
    if people:
        warnings.append(
            f"{people} message(s) by authors who are not agents shown as stimuli "
            "('<user_id>: <text>')"
        )
    return build_run(run, url, "the-office", rows, personas, warnings)


__all__ = [
    "AGENT_COLUMNS",
    "MESSAGE_COLUMNS",
    "SCHEMES",
    "SYSTEM",
    "Tables",
    "Window",
    "as_text",
    "chat_from_office_rows",
    "is_database_url",
    "load_office_chat",
    "office_chat",
    "office_tables",
    "parse_window",
    "resolve_channels",
]
