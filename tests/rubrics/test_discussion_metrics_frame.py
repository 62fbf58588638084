"""The metrics frame read off per-game tallies written here (issue 38: one select and
one explode instead of seven selects concatenated and sorted).

Expected rows are worked out by hand from the tallies and the default rubric's
thresholds (docs/rubrics/discussion.md).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.metrics import metrics_frame
from toolkit.rubrics.discussion.schemas import METRIC_SCHEMA

TALLY_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    **{
        c: pl.Int64()
        for c in [
            "messages",
            "strategic",
            "coherence_n",
            "coherent",
            "role_n",
            "breaks",
            "role_unknown",
            "accurate",
            "inaccurate",
            "review",
            "speakers",
            "unique",
            "phrases",
            "repeats",
            "ratings",
            "diversity_overridden",
        ]
    },
    "max_similarity": pl.Float64(),
    "engagement": pl.Float64(),
    "engagement_source": pl.String(),
}

#: Game "a": everything countable; game "b": nothing to count and no rating.
GAME_A: dict[str, Any] = {
    "game_id": "a", "messages": 4, "strategic": 3, "coherence_n": 4, "coherent": 2,
    "role_n": 5, "breaks": 1, "role_unknown": 2, "accurate": 3, "inaccurate": 1,
    "review": 0, "speakers": 4, "unique": 2, "phrases": 10, "repeats": 1, "ratings": 2,
    "diversity_overridden": 0, "max_similarity": 0.8126, "engagement": 2.5,
    "engagement_source": None,
}  # fmt: skip
GAME_B: dict[str, Any] = {
    **{k: 0 for k in GAME_A},
    "game_id": "b", "review": 2, "speakers": 1, "max_similarity": None, "engagement": None,
    "engagement_source": None,
}  # fmt: skip

ROWS_A = [
    ("memory_accuracy", "Memory accuracy", 0.75, 0.8, False, "FAIL",
     "3/4 references accurate"),
    ("strategic_depth", "Strategic depth", 0.75, 0.6, True, "PASS",
     "3/4 messages strategic"),
    ("coherence", "Conversation coherence", 0.5, 0.7, False, "FAIL",
     "2/4 messages link to one of the previous 3"),
    ("role_consistency", "Role consistency", 0.8, 0.8, True, "PASS",
     "1 role breaks in 5 messages; 2 of unknown role not counted"),
    ("personality_diversity", "Personality diversity", 0.5, 0.5, True, "PASS",
     "2/4 speakers unique (max similarity 0.813)"),
    ("anti_repetition", "Anti-repetition", 0.9, 0.9, True, "PASS",
     "1 repeats in 10 3-word phrases"),
    ("engagement", "Engagement", 2.5, 3.0, False, "FAIL", "mean 2.5 of 2 rating(s)"),
]  # fmt: skip
ROWS_B = [
    ("memory_accuracy", "Memory accuracy", 1.0, 0.8, True, "PASS",
     "1.0 by 2L's rule: no checkable references to past events; 2 need review (not scored)"),
    ("strategic_depth", "Strategic depth", None, 0.6, None, "N/A", "N/A: no messages"),
    ("coherence", "Conversation coherence", None, 0.7, None, "N/A",
     "N/A: fewer than 2 messages"),
    ("role_consistency", "Role consistency", None, 0.8, None, "N/A",
     "N/A: no messages by players of known role"),
    ("personality_diversity", "Personality diversity", None, 0.5, None, "N/A",
     "N/A: fewer than 2 speakers"),
    ("anti_repetition", "Anti-repetition", None, 0.9, None, "N/A",
     "N/A: no phrases to compare"),
    ("engagement", "Engagement", None, 3.0, None, "PENDING", "pending: no rating yet"),
]  # fmt: skip


def _expected(games: list[tuple[str, list[tuple[Any, ...]]]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(gid, *row) for gid, rows in games for row in rows],
        schema=METRIC_SCHEMA,
        orient="row",
    )


@pytest.mark.parametrize(
    ("tallies", "game_ids", "expected"),
    [
        ([GAME_A, GAME_B], ["a", "b"], [("a", ROWS_A), ("b", ROWS_B)]),
        ([GAME_A, GAME_B], ["b", "a"], [("b", ROWS_B), ("a", ROWS_A)]),
        ([GAME_B, GAME_A], ["a", "b"], [("a", ROWS_A), ("b", ROWS_B)]),
    ],
)
def test_rows_come_game_by_game_in_the_given_order_metrics_in_rubric_order(
    tallies: list[dict[str, Any]], game_ids: list[str], expected: list[Any]
) -> None:
    table = pl.DataFrame(tallies, schema=TALLY_SCHEMA)
    got = metrics_frame(table, DEFAULT_DISCUSSION_SPEC, game_ids)
    assert got.to_dicts() == _expected(expected).to_dicts()
    assert got.schema == METRIC_SCHEMA


def test_no_games_is_an_empty_frame_of_the_schema() -> None:
    got = metrics_frame(pl.DataFrame(schema=TALLY_SCHEMA), DEFAULT_DISCUSSION_SPEC, [])
    assert got.height == 0
    assert got.schema == METRIC_SCHEMA
