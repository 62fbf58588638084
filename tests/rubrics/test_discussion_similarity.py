"""Speaker similarity (metric 5) against a plain-Python Dice reading of the rubric
(docs/rubrics/discussion.md): each speaker's texts joined, whitespace removed, character
bigrams as a multiset, ``2 * shared / (bigrams of a + bigrams of b)`` (0 when neither has
a bigram), every ordered pair of distinct speakers of a game.

Issue 38 built the bigrams from two shifted character lists instead of a window over
exploded characters; the reference is written here, on generated games with empty,
one-character, blank and null texts, a combining mark and a non-ASCII letter.
"""

from __future__ import annotations

from collections import Counter

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.rubrics.discussion.diversity import speaker_similarity
from toolkit.rubrics.discussion.schemas import SIMILARITY_SCHEMA

SCHEMA = {"game_id": pl.String(), "speaker": pl.String(), "text": pl.String()}
#: Whitespace here is space, tab and newline: White_Space to both Python and the regex.
ALPHABET = "abé\u0301 \t\n"


def reference(rows: list[tuple[str, str, str | None]]) -> dict[tuple[str, str, str], float]:
    joined: dict[tuple[str, str], str] = {}
    for game, speaker, text in rows:
        joined[(game, speaker)] = joined.get((game, speaker), "") + (text or "")
    grams = {}
    for key, text in joined.items():
        chars = "".join(text.split())
        grams[key] = Counter(chars[i : i + 2] for i in range(len(chars) - 1))
    out = {}
    for game, a in joined:
        for g2, b in joined:
            if g2 != game or a == b:
                continue
            ga, gb = grams[(game, a)], grams[(game, b)]
            total = sum(ga.values()) + sum(gb.values())
            shared = sum(min(n, gb[g]) for g, n in ga.items())
            out[(game, a, b)] = 2 * shared / total if total else 0.0
    return out


rows_strategy = st.lists(
    st.tuples(
        st.sampled_from(["g1", "g2"]),
        st.sampled_from(["Ash", "Bay", "Cole"]),
        st.one_of(st.none(), st.text(alphabet=ALPHABET, max_size=8)),
    ),
    max_size=10,
)


@settings(max_examples=200, deadline=None)
@given(rows_strategy)
def test_similarity_is_the_dice_reading_of_every_pair(
    rows: list[tuple[str, str, str | None]],
) -> None:
    got = speaker_similarity(pl.DataFrame(rows, schema=SCHEMA, orient="row"))
    assert got.schema == SIMILARITY_SCHEMA
    pairs = {(g, a, b): s for g, a, b, s in got.iter_rows()}
    assert len(pairs) == got.height  # each ordered pair once
    expected = reference(rows)
    assert pairs.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(pairs[key] - value) < 1e-12, key


def test_one_character_and_empty_texts_have_no_bigrams() -> None:
    # "a" and "" have none; "ab" has one: 2 * 0 / 1 = 0, and 0 where neither has any
    rows = [("g", "Ash", "a"), ("g", "Bay", ""), ("g", "Cole", "a b")]
    got = speaker_similarity(pl.DataFrame(rows, schema=SCHEMA, orient="row"))
    assert sorted(got.iter_rows()) == [
        ("g", "Ash", "Bay", 0.0),
        ("g", "Ash", "Cole", 0.0),
        ("g", "Bay", "Ash", 0.0),
        ("g", "Bay", "Cole", 0.0),
        ("g", "Cole", "Ash", 0.0),
        ("g", "Cole", "Bay", 0.0),
    ]


def test_no_messages_no_pairs() -> None:
    got = speaker_similarity(pl.DataFrame(schema=SCHEMA))
    assert got.height == 0
    assert got.schema == SIMILARITY_SCHEMA
