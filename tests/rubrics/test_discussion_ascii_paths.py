"""The cheaper readings of strategic keywords, coherence's names and repetition's word
windows (issue 38) answer as the expressions as written.

Strategic keywords and the names coherence, role and memory look for, on ASCII text, are
matched lower-cased with the ASCII word boundary; the references are the patterns as
written (``stem_regex``, ``mentions``) run by Polars, on generated ASCII texts with case
variants, digits, ``_`` and punctuation, and on texts with the Unicode case variants of s
and k (the other path).
Repetition's windows are shifts over the whole tokens frame when each message id is one
row; the reference is the shift over the ``(game_id, message_id)`` groups.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import polars as pl
import pytest
from conftest import SAMPLE_RUNS
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_discussion_coherence_names import _expected as names_as_written
from test_discussion_coherence_names import _named  # the coherence query's _named<k>

from toolkit.frames import DISCUSSION_MESSAGES_SCHEMA, DISCUSSION_PLAYERS_SCHEMA
from toolkit.load.discussion import load_discussions
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DISCUSSION_SPEC_1_0_0,
    coherence,
    memory,
    repetition,
    role,
    strategic,
)
from toolkit.rubrics.discussion.memory import memory_references
from toolkit.rubrics.discussion.repetition import phrase_uses
from toolkit.rubrics.discussion.role import role_evidence
from toolkit.rubrics.discussion.spec import DiscussionSpec
from toolkit.rubrics.discussion.strategic import strategic_evidence
from toolkit.rubrics.discussion.text import ascii_word_ended, mentions, stem_regex

ASCII_WORDY = "abkKsSeEvVoOtT_79"
ASCII_OTHER = " .!'-(\n,?"
#: the Unicode case variants of s and k (long s, Kelvin sign) and a non-ASCII letter
BEYOND = "\u017f\u212a\u00e9"

ascii_texts = st.text(alphabet=ASCII_WORDY + ASCII_OTHER, max_size=40)
any_texts = st.text(alphabet=ASCII_WORDY + ASCII_OTHER + BEYOND, max_size=40)


def _spy(module: Any, name: str) -> Any:
    """A patch recording the calls of ``module.name`` (still called)."""
    return mock.patch.object(module, name, wraps=getattr(module, name))


# --- strategic keywords ---------------------------------------------------------------


def _keywords_as_written(texts: list[str | None], words: list[str]) -> list[Any]:
    """The rubric's pattern as written, run by Polars: each match lower-cased, once."""
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String()})
    found = frame.select(
        pl.col("text")
        .str.extract_all(stem_regex(words))
        .list.eval(pl.element().str.to_lowercase())
        .list.unique(maintain_order=True)
    )
    return found.to_series().to_list()


def _check_keywords(texts: list[str | None], words: list[str]) -> None:
    spec = DEFAULT_DISCUSSION_SPEC.model_copy(update={"strategic_keywords": {"k": tuple(words)}})
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String()})
    got = strategic_evidence(frame, spec)
    assert got["strategic_keywords"].to_list() == _keywords_as_written(texts, words)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(ascii_texts, st.none()), min_size=1, max_size=6),
    st.lists(st.text(alphabet="abkKsSeEvVoOtT_79", min_size=1, max_size=5), min_size=1),
)
def test_keywords_on_ascii_texts_read_as_the_pattern_as_written(
    texts: list[str | None], words: list[str]
) -> None:
    with _spy(strategic, "_ascii_words") as ascii_words:
        _check_keywords(texts, words)
    assert ascii_words.called  # the ASCII reading was the one checked


@settings(max_examples=100, deadline=None)
@given(st.lists(any_texts, min_size=1, max_size=6))
def test_keywords_on_any_texts_read_as_the_pattern_as_written(texts: list[str]) -> None:
    _check_keywords(texts, ["vote", "sus", "kill", "Trust"])


def test_keywords_by_hand_on_ascii_text() -> None:
    texts = ["VOTED for Kim; trusty_9 mistrust, vote-kill", "nothing here", None]
    words = ["vote", "trust", "kill"]
    _check_keywords(texts, words)
    got = strategic_evidence(
        pl.DataFrame({"text": texts}),
        DEFAULT_DISCUSSION_SPEC.model_copy(update={"strategic_keywords": {"k": tuple(words)}}),
    )
    # by hand: whole words starting with "vot", "trust" or "kill", lower-cased, once
    # each; a null text has none to list (null)
    assert got["strategic_keywords"].to_list() == [["voted", "trusty_9", "vote", "kill"], [], None]
    assert got["strategic"].to_list() == [True, False, None]


# --- coherence's names ----------------------------------------------------------------


def _check_names(speakers: list[str | None], texts: list[str | None]) -> None:
    messages = pl.DataFrame(
        {"game_id": ["g"] * len(speakers), "speaker": speakers, "text": texts},
        schema={"game_id": pl.String(), "speaker": pl.String(), "text": pl.String()},
    )
    got = [[bool(x) for x in s.to_list()] for s in _named(messages)]
    assert got == names_as_written(speakers, texts, 3)


ascii_names = st.text(alphabet=ASCII_WORDY, min_size=1, max_size=3).map(
    lambda s: s if len(s) < 3 else s[0] + " " + s[2]  # now and then two words
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(ascii_names, st.none()), ascii_texts), min_size=1, max_size=8))
def test_names_on_ascii_texts_read_as_mentions(rows: list[tuple[str | None, str]]) -> None:
    with _spy(coherence, "ascii_named") as ascii_named:
        _check_names([s for s, _ in rows], [t for _, t in rows])
    assert ascii_named.called


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(ascii_names, st.text(alphabet=ASCII_WORDY + "().", max_size=3)),
            st.one_of(any_texts, st.none()),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_names_on_any_texts_read_as_mentions(rows: list[tuple[str, str | None]]) -> None:
    _check_names([s for s, _ in rows], [t for _, t in rows])


def test_names_by_hand_on_ascii_text() -> None:
    speakers = ["Sam", "Kai", "x", "Jo Ann", "y"]
    texts = ["hi", "SAM said", "kai?", "samuel, kai_", "jo ann! no"]
    _check_names(speakers, texts)
    got = _named(pl.DataFrame({"game_id": ["g"] * 5, "speaker": speakers, "text": texts}))
    # by hand: 2 names Sam (1 back), 3 names Kai (1 back), 5 names Jo Ann (1 back);
    # "samuel" and "kai_" are other words
    assert [bool(x) for x in got[0].to_list()] == [False, True, True, False, True]
    assert [bool(x) for x in got[1].to_list()] == [False] * 5
    assert [bool(x) for x in got[2].to_list()] == [False] * 5


# --- mentions' ASCII path (role's partners, memory's objects) --------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(ascii_texts, st.none()),
            st.one_of(ascii_names, st.none()),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_mentions_on_ascii_words_reads_as_mentions_as_written(
    rows: list[tuple[str | None, str | None]],
) -> None:
    pairs = pl.DataFrame(
        {"text": [t for t, _ in rows], "name": [n for _, n in rows]},
        schema={"text": pl.String(), "name": pl.String()},
    )
    assert ascii_word_ended(pairs["name"])  # what the callers check before asking
    text, name = pl.col("text"), pl.col("name")
    got = pairs.select(mentions(text, name, ascii_words=True)).to_series().to_list()
    assert got == pairs.select(mentions(text, name)).to_series().to_list()


@pytest.mark.parametrize(
    ("names", "ended"),
    [
        (["Kim", "Bo Kim", "x_7", None], True),
        (["Kim", "Dr."], False),  # ends with a non-word character
        (["Kim", "'Ash"], False),  # starts with one
        (["Kim", "Zo\u00eb"], False),  # not ASCII
        (["Kim", ""], False),  # empty
        ([None], True),  # nothing to check
    ],
)
def test_ascii_word_ended_by_hand(names: list[str | None], ended: bool) -> None:
    assert ascii_word_ended(pl.Series(names, dtype=pl.String())) is ended


def _games_with_partner_talk() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The sample games, and one more where Mafia name partners in every case and as
    parts of other words, and references name players as objects."""
    games = load_discussions([SAMPLE_RUNS / "discussions"])
    players = pl.DataFrame(
        [{"game_id": "z", "player_id": p, "name": p, "role": r}
         for p, r in (("Kim", "MAFIA"), ("Bo Kim", "MAFIA"), ("Ash", "VILLAGER"))],
        schema=DISCUSSION_PLAYERS_SCHEMA,
    )  # fmt: skip
    texts = [
        ("Kim", "I suspect BO KIM. Kimberly is not here."),
        ("Bo Kim", "kim is suspicious, i accuse kim! Ash voted for Kim."),
        ("Ash", "Kim said Bo Kim was lying. I think Kim is Mafia."),
        ("Kim", "Ash voted for Kim in round 1. Bo Kim said nothing."),
        ("Ash", "Earlier Bo Kim suspected Ash. Previously Kim accused kimberly."),
    ]
    messages = pl.DataFrame(
        [{"game_id": "z", "message_id": f"z{i}", "turn": i, "round": 2, "speaker": who,
          "text": text} for i, (who, text) in enumerate(texts)],
        schema=DISCUSSION_MESSAGES_SCHEMA,
    )  # fmt: skip
    return (
        pl.concat([games.messages, messages], how="diagonal_relaxed"),
        pl.concat([games.players, players], how="diagonal_relaxed"),
        games.votes,
    )


def test_role_and_memory_read_names_as_mentions_as_written() -> None:
    messages, players, votes = _games_with_partner_talk()
    spec = DEFAULT_DISCUSSION_SPEC
    with _spy(role, "mentions") as in_role, _spy(memory, "mentions") as in_memory:
        got_role = role_evidence(messages, players, spec)
        got_refs = memory_references(messages, players, votes, spec)
    # the ASCII path was the one taken in both
    assert in_role.call_args.kwargs == {"ascii_words": True}
    assert in_memory.call_args.kwargs == {"ascii_words": True}
    breaks = got_role.filter(pl.col("role_break_reason").str.contains("fellow Mafia"))
    assert breaks.height > 0  # the partner accusations were found at all
    # the reference: every name looked for by mentions as written
    with (
        mock.patch.object(role, "ascii_word_ended", return_value=False),
        mock.patch.object(memory, "ascii_word_ended", return_value=False),
    ):
        assert_frame_equal(got_role, role_evidence(messages, players, spec))
        assert_frame_equal(got_refs, memory_references(messages, players, votes, spec))


# --- repetition's windows -------------------------------------------------------------


def _players(games: list[str]) -> pl.DataFrame:
    rows = [{"game_id": g, "player_id": n, "name": n, "role": "TOWN"}
            for g in games for n in ("Ash", "Bo Kim")]  # fmt: skip
    return pl.DataFrame(rows, schema=DISCUSSION_PLAYERS_SCHEMA)


def _messages(rows: list[tuple[str, str | None, str]]) -> pl.DataFrame:
    data = [
        {"game_id": g, "message_id": m, "turn": i, "round": 1, "speaker": "Ash", "text": t}
        for i, (g, m, t) in enumerate(rows)
    ]
    return pl.DataFrame(data, schema=DISCUSSION_MESSAGES_SCHEMA)


def _over_groups(column: pl.Expr, i: int, one_row: bool) -> pl.Expr:
    """The windows as written: a shift over the ``(game_id, message_id)`` groups."""
    return column.shift(i).over("game_id", "message_id")


def _check_phrases(messages: pl.DataFrame, spec: DiscussionSpec) -> None:
    got = phrase_uses(messages, _players(["g", "h"]), spec)
    with mock.patch.object(repetition, "_back", _over_groups):
        expected = phrase_uses(messages, _players(["g", "h"]), spec)
    assert_frame_equal(got[0], expected[0])
    assert_frame_equal(got[1].sort("game_id"), expected[1].sort("game_id"))


words = st.sampled_from(["ash", "bo", "kim", "vote", "i", "think", "is", "sus", "ASH", "."])
message_rows = st.tuples(
    st.sampled_from(["g", "h"]),
    st.sampled_from(["m1", "m2", "m3", None]),
    st.lists(words, max_size=7).map(" ".join),
)


@pytest.mark.parametrize("spec", [DEFAULT_DISCUSSION_SPEC, DISCUSSION_SPEC_1_0_0])
@settings(max_examples=100, deadline=None)
@given(st.lists(message_rows, min_size=1, max_size=8))
def test_phrases_read_as_the_windows_over_message_groups(
    spec: DiscussionSpec, rows: list[tuple[str, str | None, str]]
) -> None:
    # ids repeat, are null, and interleave between games: both ways are checked
    _check_phrases(_messages(rows), spec)


@pytest.mark.parametrize("spec", [DEFAULT_DISCUSSION_SPEC, DISCUSSION_SPEC_1_0_0])
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["g", "h"]), st.lists(words, max_size=7)), max_size=8))
def test_phrases_of_one_row_messages_read_as_the_windows_over_groups(
    spec: DiscussionSpec, rows: list[tuple[str, list[str]]]
) -> None:
    messages = _messages([(g, f"m{i}", " ".join(w)) for i, (g, w) in enumerate(rows)])
    if messages.height:
        _check_phrases(messages, spec)


def test_a_message_id_used_twice_is_one_window_as_written() -> None:
    # by hand: the two rows of id m are one group, its words "a b c d": "a b c", "b c d"
    phrases, _ = phrase_uses(
        _messages([("g", "m", "a b"), ("g", "m", "c d")]), _players(["g"]), DISCUSSION_SPEC_1_0_0
    )
    assert phrases["phrase"].to_list() == ["a b c", "b c d"]


def test_one_row_messages_windows_end_with_the_message() -> None:
    # by hand: "a b c d" gives "a b c", "b c d"; "e f" none; words never run on
    phrases, counts = phrase_uses(
        _messages([("g", "m1", "a b c d"), ("g", "m2", "e f"), ("g", "m3", "a b c")]),
        _players(["g"]),
        DISCUSSION_SPEC_1_0_0,
    )
    assert phrases.select("phrase", "uses").rows() == [("a b c", 2), ("b c d", 1)]
    assert counts.rows() == [("g", 3, 1)]
