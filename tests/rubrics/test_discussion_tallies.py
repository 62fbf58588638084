"""The per-game tallies (:func:`toolkit.rubrics.discussion.tallies.game_tallies`).

Issue 38 runs them as one lazy query and adds a frame with no rows (no ratings, no
reviewer labels) as typed null columns instead of joining it. Pinned here: the columns a
left join with each frame gives, in that order and type; the counts filled with 0 for a
game with nothing to count; the ratings' mean and number, by hand; the judge standing in
only where no person rated.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import polars as pl

from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.evidence import gather_evidence
from toolkit.rubrics.discussion.tallies import COUNT_COLUMNS, game_tallies

SPEC = DEFAULT_DISCUSSION_SPEC

#: The columns in the order the left joins add them: games, messages, references,
#: speakers, phrases, ratings, the three overridden counts, diversity's, the sign-off.
COLUMNS = [
    "game_id", "cost_usd", "cache_hit_rate",
    "messages", "rounds", "strategic", "coherence_n", "coherent",
    "role_n", "breaks", "role_unknown",
    "accurate", "inaccurate", "review",
    "speakers", "unique", "max_similarity",
    "phrases", "repeats",
    "engagement", "ratings",
    "strategic_overridden", "role_overridden", "memory_overridden", "diversity_overridden",
    "signed_off", "engagement_source",
]  # fmt: skip


def _games() -> Discussion:
    """Game ``b`` (two messages by two players) and game ``a`` (none)."""
    games = [{"game_id": g, "source_kind": "transcript", "source_file": f"{g}.json"} for g in "ba"]
    players = [{"game_id": "b", "player_id": n, "name": n, "role": "VILLAGER", "alive": True,
                "position": i} for i, n in enumerate(("Ash", "Bay"))]  # fmt: skip
    messages = [{"game_id": "b", "message_id": f"m{t}", "turn": t, "round": 1, "speaker": s,
                 "text": x, "in_reply_to": None, "in_reply_to_player": None, "timestamp": None}
                for t, s, x in ((1, "Ash", "Hello Bay."), (2, "Bay", "Hello Ash."))]  # fmt: skip
    return Discussion(
        games=pl.DataFrame(games, schema=DISCUSSION_GAMES_SCHEMA),
        players=pl.DataFrame(players, schema=DISCUSSION_PLAYERS_SCHEMA),
        messages=pl.DataFrame(messages, schema=DISCUSSION_MESSAGES_SCHEMA),
        votes=pl.DataFrame(schema=DISCUSSION_VOTES_SCHEMA),
    )


def _tallies(ratings: pl.DataFrame | None = None, judged: Any = None) -> pl.DataFrame:
    d = _games()
    evidence, phrases, overridden = gather_evidence(d, SPEC, None, ratings, ["b", "a"])
    return game_tallies(d.games, evidence, phrases, overridden, None, SPEC, judged)


def test_without_ratings_or_labels_every_column_is_there_typed_and_counts_are_zero() -> None:
    table = _tallies()
    assert table.columns == COLUMNS
    assert all(table.schema[c] == pl.Int64() for c in COUNT_COLUMNS)
    assert table.schema["engagement"] == pl.Float64()
    assert table.schema["signed_off"] == pl.Boolean()
    assert table.schema["engagement_source"] == pl.String()
    rows = {r["game_id"]: r for r in table.iter_rows(named=True)}
    assert rows["b"]["messages"] == 2 and rows["b"]["speakers"] == 2
    assert all(rows["a"][c] == 0 for c in COUNT_COLUMNS)
    assert rows["a"]["max_similarity"] is None
    for r in rows.values():
        assert r["engagement"] is None and r["engagement_source"] is None
        assert r["signed_off"] is None


def test_ratings_give_their_mean_and_number_and_people_as_the_source() -> None:
    ratings = pl.DataFrame({"game_id": ["b", "b", "b"], "rater": ["x", "y", "z"],
                            "score": [2.0, 3.0, 5.0]})  # fmt: skip
    table = _tallies(ratings)
    assert table.columns == COLUMNS
    rows = {r["game_id"]: r for r in table.iter_rows(named=True)}
    assert (rows["b"]["engagement"], rows["b"]["ratings"]) == (10 / 3, 3)
    assert rows["b"]["engagement_source"] == "humans"
    assert (rows["a"]["engagement"], rows["a"]["ratings"]) == (None, 0)


def test_the_judge_stands_in_only_for_a_game_no_person_rated() -> None:
    ratings = pl.DataFrame({"game_id": ["b"], "rater": ["x"], "score": [4.0]})
    readings = pl.DataFrame({"game_id": ["b", "a"], "key": ["engagement", "engagement"],
                             "value": [1.0, 2.0]})  # fmt: skip
    table = _tallies(ratings, SimpleNamespace(readings=readings))
    rows = {r["game_id"]: r for r in table.iter_rows(named=True)}
    assert (rows["b"]["engagement"], rows["b"]["engagement_source"]) == (4.0, "humans")
    assert (rows["a"]["engagement"], rows["a"]["engagement_source"]) == (2.0, "judge")
    assert rows["a"]["ratings"] == 0
