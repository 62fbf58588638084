"""What every 2L reader shares (:mod:`toolkit.load.discussion`,
:mod:`toolkit.load.discussion_db`): the :class:`Discussion` result, the :class:`Builder`
rows are collected in, and the timestamp parser. The lenient file-boundary models are in
:mod:`toolkit.load._discussion_models` (pydantic: imported only when a model is needed)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import polars as pl

from toolkit._record import FieldsEqual, record
from toolkit.errors import InputError
from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
    ENGINE,
)
from toolkit.summary import Shows, Summary, plural

__all__ = ["Builder", "Discussion", "build_all", "parse_time", "read_time"]


# ---------------------------------------------------------------------------
# The load result
# ---------------------------------------------------------------------------


@record  # eq, hash: toolkit._record
class Discussion(FieldsEqual, Shows):
    """Games of LLM Mafia as typed frames.

    Attributes:
        games: one row per game, :data:`~toolkit.frames.DISCUSSION_GAMES_SCHEMA` (game_id,
            source_kind, source_file, status, round_number, player_count, created_at,
            total_turns, duration_seconds, cost_usd, input_tokens, cached_tokens,
            output_tokens, cache_hit_rate).
        players: :data:`~toolkit.frames.DISCUSSION_PLAYERS_SCHEMA` (game_id, player_id,
            name, role, personality, alive, position).
        messages: :data:`~toolkit.frames.DISCUSSION_MESSAGES_SCHEMA` (game_id, message_id,
            turn, round, speaker, text, in_reply_to, in_reply_to_player, timestamp),
            sorted by game, then time (as 2L's transcript writer orders them), then turn.
        votes: :data:`~toolkit.frames.DISCUSSION_VOTES_SCHEMA` (game_id, round, voter,
            target, justification, timestamp).
        warnings: lenient readings the reader should know about.
    """

    games: pl.DataFrame
    players: pl.DataFrame
    messages: pl.DataFrame
    votes: pl.DataFrame
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        ids = self.game_ids
        shown = ", ".join(ids[:3]) + (f", … {len(ids) - 3} more" if len(ids) > 3 else "")
        return Summary(
            "Discussion",
            f"{plural(len(ids), 'game')} ({shown or 'none'})",
            (
                ("players", self.players.height),
                ("messages", self.messages.height),
                ("votes", self.votes.height),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def game_ids(self) -> list[str]:
        """The game ids, in load order."""
        return [str(g) for g in self.games["game_id"].to_list()]

    def game(self, game_id: str) -> Discussion:
        """The same frames restricted to one game."""
        if game_id not in self.game_ids:
            raise KeyError(game_id)
        keep = pl.col("game_id") == game_id
        return Discussion(
            games=self.games.filter(keep),
            players=self.players.filter(keep),
            messages=self.messages.filter(keep),
            votes=self.votes.filter(keep),
            warnings=tuple(w for w in self.warnings if game_id in w),
        )


class Builder:
    """Rows collected while reading one file or database, turned into frames once.

    A plain class, not a dataclass: one is made per file, and on Python 3.11 a dataclass
    compiles its methods when its module is imported (issue 38).
    """

    __slots__ = ("games", "messages", "path", "players", "votes", "warnings")

    def __init__(self, path: str) -> None:
        self.path = path
        self.games: list[dict[str, Any]] = []
        self.players: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.votes: list[dict[str, Any]] = []
        self.warnings: list[str] = []

    def build(self) -> Discussion:
        """The rows collected, as a :class:`Discussion`."""
        return build_all([self])


def build_all(builders: Sequence[Builder]) -> Discussion:
    """The rows of ``builders`` (one a file or database), in order, as one
    :class:`Discussion`: the frames those of each builder's :meth:`Builder.build`
    stacked, built once, not once a file and stacked after (issue 38: three queries a
    file before). A builder's messages stay together, its games' in their load order,
    those of a game it has no row for after them."""
    games = [g for b in builders for g in b.games]
    part: list[int] = []
    for i, b in enumerate(builders):
        part += [i] * len(b.messages)
    order = {g["game_id"]: i for i, g in enumerate(games)}
    messages = (
        pl.DataFrame([m for b in builders for m in b.messages], schema=DISCUSSION_MESSAGES_SCHEMA)
        .lazy()
        .with_columns(
            pl.Series("_part", part, dtype=pl.Int64),
            pl.col("game_id")
            .replace_strict(order, default=len(order), return_dtype=pl.Int64)
            .alias("_order"),
        )
        # 2L's transcript writer orders a game's messages by time (turn counts restart
        # each Discussion phase); the turn breaks ties and orders undated messages
        .sort(["_part", "_order", "timestamp", "turn"], maintain_order=True, nulls_last=True)
        .drop("_part", "_order")
        # Polars' in-memory engine, the one eager steps use, at a fifth of the streaming
        # engine's fixed cost (Polars 2's default) on a few games
        .collect(engine=ENGINE)
    )
    return Discussion(
        games=pl.DataFrame(games, schema=DISCUSSION_GAMES_SCHEMA),
        players=pl.DataFrame(
            [p for b in builders for p in b.players], schema=DISCUSSION_PLAYERS_SCHEMA
        ),
        messages=messages,
        votes=pl.DataFrame([v for b in builders for v in b.votes], schema=DISCUSSION_VOTES_SCHEMA),
        warnings=tuple(w for b in builders for w in b.warnings),
    )


# ---------------------------------------------------------------------------
# Shared parsing helpers
# ---------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 text (``Z`` allowed) or epoch milliseconds (Prisma on SQLite) -> UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value) / 1000.0, tz=UTC)
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return datetime.fromtimestamp(int(text) / 1000.0, tz=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ValueError(f"not a timestamp: {value!r}")


def read_time(value: Any, path: str, where: str) -> datetime | None:
    try:
        return parse_time(value)
    except (ValueError, OverflowError, OSError) as exc:  # e.g. epoch ms beyond year 9999
        raise InputError(path, "not an ISO-8601 timestamp", field=where, value=value) from exc
