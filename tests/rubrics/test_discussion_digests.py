"""Each game's input digest (:func:`toolkit.rubrics.discussion.epoch.game_digests`).

Issue 38 encodes each frame's rows once, every frame in one query, and shares the JSON
lines out by game, instead of a ``partition_by`` and a write per game. The reference here
is the earlier way, written out: every frame split by game and each game's rows written
alone, hashed with :func:`toolkit.epoch.input_digest`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing.parametric import column, dataframes

from toolkit.epoch import input_digest
from toolkit.frames import (
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_RATINGS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.load.discussion import Discussion, load_discussions
from toolkit.rubrics.discussion.epoch import game_digests

GAMES = Path(__file__).resolve().parents[2] / "sample_runs" / "discussions"


def _reference(discussion: Discussion, ratings: pl.DataFrame) -> dict[str, str]:
    """The digest as each game's rows written alone, frame by frame."""
    frames = {"games": discussion.games, "players": discussion.players,
              "messages": discussion.messages, "votes": discussion.votes,
              "ratings": ratings}  # fmt: skip
    parts: dict[str, list[tuple[str, bytes]]] = {g: [] for g in discussion.game_ids}
    for name, frame in frames.items():
        if frame.is_empty():
            continue
        where = [c for c in frame.columns if c == "source_kind" or c.endswith(("_file", "_path"))]
        rows = frame.drop(where).with_columns(pl.col("game_id").cast(pl.String))
        for (gid,), part in rows.partition_by("game_id", as_dict=True).items():
            if str(gid) in parts:
                parts[str(gid)].append((name, part.write_ndjson().encode("utf-8")))
    return {g: input_digest(p) for g, p in parts.items()}


def _ratings(game_ids: list[str | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {"game_id": game_ids, "rater": [f"r{i}" for i in range(len(game_ids))],
         "score": [float(i % 5 + 1) for i in range(len(game_ids))]},
    )  # fmt: skip


def test_the_sample_games_digests_equal_each_game_written_alone() -> None:
    discussion = load_discussions([GAMES])
    ratings = _ratings(["game-pass", "game-over-budget", "game-pass"])
    got = game_digests(discussion, ratings, None)
    assert got == _reference(discussion, ratings)
    assert len(set(got.values())) == len(got) == 3


def test_interleaved_rows_newlines_line_separators_and_a_null_game_are_shared_out_right() -> None:
    """Rows of the games interleaved, texts with a newline, U+2028 and U+0085 (line breaks
    for ``str.splitlines`` but not for JSON lines), and a row of no game."""
    discussion = load_discussions([GAMES])
    messages = discussion.messages
    texts = ["line one\nline two", "a\u2028b", "c\u0085d", "\r\n", ""]
    shuffled = messages.sample(fraction=1.0, shuffle=True, seed=38).with_columns(
        pl.Series("text", [texts[i % len(texts)] for i in range(messages.height)])
    )
    odd = dataclasses.replace(discussion, messages=shuffled)
    ratings = _ratings(["game-pass", None, "game-role-repetition", "game-pass"])
    assert game_digests(odd, ratings, None) == _reference(odd, ratings)
    assert game_digests(odd, ratings, None) != game_digests(discussion, ratings, None)


_IDS = ["game-pass", "game-over-budget", "game-role-repetition", None]


def _rows(schema: dict[str, pl.DataType]) -> st.SearchStrategy[pl.DataFrame]:
    """Frames of ``schema``'s columns and dtypes: Polars' own generated values (odd text,
    extreme and non-finite floats, far datetimes, nulls), rows of the sample games or of
    none."""
    cols = [
        column("game_id", strategy=st.sampled_from(_IDS), dtype=pl.String)
        if name == "game_id"
        else column(name, dtype=dtype, allow_null=True)
        for name, dtype in schema.items()
    ]
    return dataframes(cols, min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=_rows(DISCUSSION_PLAYERS_SCHEMA),
    messages=_rows(DISCUSSION_MESSAGES_SCHEMA),
    votes=_rows(DISCUSSION_VOTES_SCHEMA),
    ratings=_rows(DISCUSSION_RATINGS_SCHEMA),
)
def test_generated_rows_of_every_dtype_digest_as_each_game_written_alone(
    players: pl.DataFrame, messages: pl.DataFrame, votes: pl.DataFrame, ratings: pl.DataFrame
) -> None:
    """The rows are encoded as JSON structs in one query for every frame: the text
    ``write_ndjson`` writes for each game's rows alone (the digest's definition), for
    every dtype of the discussion frames."""
    discussion = dataclasses.replace(
        load_discussions([GAMES]), players=players, messages=messages, votes=votes
    )
    assert game_digests(discussion, ratings, None) == _reference(discussion, ratings)
