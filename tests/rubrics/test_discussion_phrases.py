"""Phrase uses (metric 6) of no messages: no phrases and no per-game counts, in their
schemas (issue 38: answered without running a query)."""

from __future__ import annotations

import polars as pl
import pytest

from toolkit.frames import DISCUSSION_MESSAGES_SCHEMA, DISCUSSION_PLAYERS_SCHEMA
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC, DISCUSSION_SPEC_1_0_0
from toolkit.rubrics.discussion.repetition import phrase_uses
from toolkit.rubrics.discussion.schemas import PHRASE_SCHEMA
from toolkit.rubrics.discussion.spec import DiscussionSpec


@pytest.mark.parametrize("spec", [DEFAULT_DISCUSSION_SPEC, DISCUSSION_SPEC_1_0_0])
def test_no_messages_no_phrases(spec: DiscussionSpec) -> None:
    players = pl.DataFrame(
        [{"game_id": "g", "player_id": "Ash", "name": "Ash", "role": "MAFIA"}],
        schema=DISCUSSION_PLAYERS_SCHEMA,
    )
    phrases, counts = phrase_uses(pl.DataFrame(schema=DISCUSSION_MESSAGES_SCHEMA), players, spec)
    assert phrases.height == 0
    assert phrases.schema == PHRASE_SCHEMA
    assert counts.height == 0
    assert counts.schema == {"game_id": pl.String(), "phrases": pl.Int64(), "repeats": pl.Int64()}
