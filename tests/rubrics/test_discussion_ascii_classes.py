"""The ASCII reading of the memory and role patterns (issue 38).

On messages of ASCII characters only, :func:`memory_references` and :func:`role_evidence`
compile their patterns with each Perl class escape spelt as its ASCII members
(:func:`ascii_classes`): a fraction of the compile time. Here the rewritten pattern answers
as the pattern as written (both run by Polars' regex) on every ASCII text, and the two
metrics answer as with the patterns as written, on generated games of ASCII and non-ASCII
text (case variants ``K`` U+212A, ``ſ``, ``İ``, ``Σ``/``ς``, ``’``, digits, newlines,
possessives). So do the sentences and questions cut by their ASCII spelling
(:data:`~toolkit.rubrics.discussion.text.ASCII_SENTENCE`), on every ASCII character.
"""

from __future__ import annotations

import re
from typing import Any
from unittest import mock

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from pydantic import ValidationError

from toolkit.frames import (
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.rubrics.discussion import text
from toolkit.rubrics.discussion.memory import memory_references
from toolkit.rubrics.discussion.role import role_evidence
from toolkit.rubrics.discussion.spec import DEFAULT_DISCUSSION_SPEC, PUBLISHED, DiscussionSpec
from toolkit.rubrics.discussion.text import (
    ASCII_QUESTION,
    ASCII_SENTENCE,
    QUESTION,
    SENTENCE,
    all_ascii,
    ascii_classes,
)

ASCII = [chr(i) for i in range(128)]
#: The ASCII members of each class, by hand: Unicode's White_Space has U+0009-U+000D and
#: the space, not U+001C-U+001F (which Python's ``str.isspace`` counts).
MEMBERS = {
    "w": set("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "d": set("0123456789"),
    "s": set("\t\n\x0b\x0c\r "),
}


def _members(pattern: str) -> set[str]:
    found = pl.DataFrame({"c": ASCII}).select(pl.col("c").str.contains(pattern)).to_series()
    return {c for c, hit in zip(ASCII, found, strict=True) if hit}


@pytest.mark.parametrize("escape", ["w", "d", "s", "W", "D", "S"])
@pytest.mark.parametrize("flags", ["", "(?i)", "(?-u)"])
@pytest.mark.parametrize("form", ["^{}$", "^[{}]$", "^[^{}]$", "^[%{}]$"])
def test_each_class_accepts_the_same_ascii_characters(escape: str, flags: str, form: str) -> None:
    pattern = flags + form.format("\\" + escape)
    if flags == "(?-u)" and (escape.isupper() or "^" in form[1:]):
        # a negated class may match a byte of no character without Unicode: refused as
        # written and as rewritten
        for p in (pattern, ascii_classes(pattern)):
            with pytest.raises(pl.exceptions.ComputeError):
                _members(p)
        return
    members = MEMBERS[escape.lower()]
    if escape.isupper():
        members = set(ASCII) - members
    if form == "^[^{}]$":
        members = set(ASCII) - members
    if form == "^[%{}]$":
        members = members | {"%"}
    assert ascii_classes(pattern) != pattern
    assert _members(pattern) == members
    assert _members(ascii_classes(pattern)) == members


def test_only_class_escapes_change() -> None:
    written = r"(?i)\bK\\w\x{41}\p{Greek}\pL[\w'’-]\s+\d{2}\\"
    assert ascii_classes(written) == (
        r"(?i)\bK\\w\x{41}\p{Greek}\pL[[0-9A-Za-z_]'’-][\t\n\x0B\x0C\r\x20]+[0-9]{2}\\"
    )


@pytest.mark.parametrize("written", [r"[\w-a]", r"[\d-z]", r"(?x)[\w -a]", r"(?x:[\d #c" "\n-z])"])
def test_a_class_by_a_dash_or_in_verbose_mode_is_left_as_written(written: str) -> None:
    """``[\\w-a]`` is refused (a class is no end of a range); ``[[0-9A-Za-z_]-a]`` would
    not be, nor would it with a blank or a comment between (the verbose mode)."""
    assert ascii_classes(written) == written


PIECES = [r"\w", r"\d", r"\s", r"\W", r"\D", r"\S", r"\b", "[", "]", "^", "-", "a", "K", "s",
          "_", "0", " ", "'", "’", "(", ")", "(?:", "?", "*", "+", "{1,2}", "|", "&&", "--",
          "(?i)", "(?-i)", "(?-u)", "(?x)", ".", "\\", r"\-", "#", "\n", "$"]  # fmt: skip


def _run(pattern: str, texts: list[str]) -> list[Any] | None:
    """``texts`` with each match bracketed, and each text's matches; None if refused."""
    frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
    try:
        got = frame.select(
            pl.col("t").str.replace_all(pattern, "<$0>").alias("r"),
            pl.col("t").str.extract_all(pattern).alias("x"),
        )
    except pl.exceptions.ComputeError:
        return None
    return got.rows()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join),
    st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=12), min_size=1),
)
def test_generated_patterns_match_alike_on_ascii_text(pattern: str, texts: list[str]) -> None:
    """Rewritten, a pattern matches the same spans; a rewritten one that compiles is never
    one refused as written (the metrics fall back to the pattern as written on a refusal)."""
    fast = _run(ascii_classes(pattern), texts)
    if fast is not None:
        assert _run(pattern, texts) == fast


# --- the metrics: the ASCII reading against the patterns as written ------------------------

NAMES = ["Ash", "Bay", "Kai", "Sam"]


def _villagers() -> pl.DataFrame:
    """One game ("g") of the :data:`NAMES`, every one a Villager."""
    return pl.DataFrame(
        [{"game_id": "g", "player_id": n, "name": n, "role": "VILLAGER", "personality": None,
          "alive": True, "position": i} for i, n in enumerate(NAMES)],
        schema=DISCUSSION_PLAYERS_SCHEMA,
    )  # fmt: skip


WORDS = ["voted for", "voted", "said", "accused", "in round 2", "round 1", "last round",
         "earlier", "I", "you", "is mafia", "vote for", "eliminate", "because", "no solid",
         "evidence", "don't have", "any", "two of you are", "someone is lying", "definitely",
         "i suspect", "the mafia", "why", "?", ".", "!", ",", "\n", "7", "it's", "-", "also",
         "Bay is mafia", "vote for Kai", "no real evidence", "at least two of them are real mafia",
         "I accuse anybody", "didn't give any real reason", "the game", "Bay NOTED", "SAID",
         "the START", "Kai SHOUTED", "Bay's", "Kai's'", "sam's", "'s", "Ash''s"]  # fmt: skip
ODD = ["\u212aai", "\u017fam", "\u0130", "\u03a3", "\u03c2", "don\u2019t", "\u00e9", "Z\u00f6e",
       "Bay\u2019s", "Kai\u2019s's"]  # fmt: skip


#: A verb, then a last-round word beyond ASCII (and words in capitals): ``ſ`` matches ``s``
#: and ``S`` case-insensitively and is its own lower case, so ASCII text is not
#: lower-cased for either.
ODD_WORDS = [
    DEFAULT_DISCUSSION_SPEC.model_copy(
        update={
            "memory": DEFAULT_DISCUSSION_SPEC.memory.model_copy(
                update={key: (*words, *getattr(DEFAULT_DISCUSSION_SPEC.memory, key))}
            )
        }
    )
    for key, words in (
        ("speech_verbs", ("Noted", "\u017fhouted")),
        ("last_round_words", ("the \u017ftart",)),
    )
]


@st.composite
def _game(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, DiscussionSpec]:
    vocabulary = NAMES + WORDS + ([] if draw(st.booleans()) else ODD)
    roles = draw(st.lists(st.sampled_from(["MAFIA", "VILLAGER", None]), min_size=4, max_size=4))
    players = [
        {"game_id": "g", "player_id": n, "name": n, "role": r, "personality": None,
         "alive": True, "position": i}
        for i, (n, r) in enumerate(zip(NAMES, roles, strict=True))
    ]  # fmt: skip
    messages = []
    for turn in range(1, draw(st.integers(1, 6)) + 1):
        words = draw(st.lists(st.sampled_from(vocabulary), max_size=12))
        reply = draw(st.one_of(st.none(), st.sampled_from(NAMES)))
        messages.append(
            {"game_id": "g", "message_id": f"m{turn}", "turn": turn, "round": 1 + turn // 3,
             "speaker": draw(st.sampled_from(NAMES)), "text": " ".join(words),
             "in_reply_to": None, "in_reply_to_player": reply, "timestamp": None}
        )  # fmt: skip
    votes = [
        {"game_id": "g", "round": r, "voter": v, "target": t, "justification": None,
         "timestamp": None}
        for r, v, t in draw(st.lists(st.tuples(st.integers(1, 3), *[st.sampled_from(NAMES)] * 2)))
    ]  # fmt: skip
    return (
        pl.DataFrame(messages, schema=DISCUSSION_MESSAGES_SCHEMA),
        pl.DataFrame(players, schema=DISCUSSION_PLAYERS_SCHEMA),
        pl.DataFrame(votes, schema=DISCUSSION_VOTES_SCHEMA),
        draw(st.sampled_from([*PUBLISHED.values(), *ODD_WORDS])),
    )


def _as_written(fn: Any, *args: Any) -> pl.DataFrame:
    """``fn`` reading every text as if it were not ASCII: the patterns as written."""
    with (
        mock.patch("toolkit.rubrics.discussion.memory.all_ascii", return_value=False),
        mock.patch("toolkit.rubrics.discussion.role.all_ascii", return_value=False),
    ):
        return fn(*args)


@settings(max_examples=150, deadline=None)
@given(_game())
def test_the_metrics_answer_as_with_the_patterns_as_written(game: Any) -> None:
    messages, players, votes, spec = game
    assert_frame_equal(
        memory_references(messages, players, votes, spec),
        _as_written(memory_references, messages, players, votes, spec),
    )
    assert_frame_equal(
        role_evidence(messages, players, spec), _as_written(role_evidence, messages, players, spec)
    )


@pytest.mark.parametrize("char", ASCII)
def test_each_ascii_character_ends_a_sentence_or_a_question_as_written(char: str) -> None:
    # ``.``, ``!``, ``?`` and the line feed end a sentence; every other ASCII character
    # stands inside one, for the ASCII spelling as for the written class
    texts = pl.Series([f"a{char}b", f"{char}", f"x {char}? y", f"why{char}"], dtype=pl.String)
    frame = pl.DataFrame({"t": texts})
    for ascii_form, written in ((ASCII_SENTENCE, SENTENCE), (ASCII_QUESTION, QUESTION)):
        assert_frame_equal(
            frame.select(pl.col("t").str.extract_all(ascii_form)),
            frame.select(pl.col("t").str.extract_all(written)),
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=[*ASCII, *".!?\n" * 8], max_size=30), max_size=6))
def test_sentences_and_questions_of_ascii_texts_read_as_written(texts: list[str]) -> None:
    frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
    assert_frame_equal(
        frame.select(pl.col("t").str.extract_all(ASCII_SENTENCE)),
        frame.select(pl.col("t").str.extract_all(SENTENCE)),
    )
    assert_frame_equal(
        frame.select(pl.col("t").str.replace_all(ASCII_QUESTION, " ")),
        frame.select(pl.col("t").str.replace_all(QUESTION, " ")),
    )


def test_a_pattern_that_does_not_compile_is_refused_when_the_rubric_is_read() -> None:
    """The metrics no longer fall back to the pattern as written: a rubric's own patterns
    are compiled (as run) when it is read, and one refused names the field and index."""
    data = DEFAULT_DISCUSSION_SPEC.model_dump(mode="json")
    data["role"]["no_reason"] = ["fine", r"\w("]
    with pytest.raises(ValidationError) as caught:
        DiscussionSpec.model_validate(data)
    (error,) = caught.value.errors()
    assert error["loc"] == ("role", "no_reason", 1)
    assert error["input"] == r"\w("
    assert "unclosed group" in error["msg"]


def test_all_ascii_reads_every_text_and_skips_nulls() -> None:
    assert all_ascii(pl.Series(["a b", None, "\x7f"], dtype=pl.String))
    assert all_ascii(pl.Series([], dtype=pl.String))
    assert not all_ascii(pl.Series(["a", "don\u2019t"]))
    assert not all_ascii(pl.Series(["\u212a"]))


def test_a_last_round_word_beyond_ascii_still_matches_ascii_text_case_insensitively() -> None:
    """``the ſtart`` names the last round: ``ſ`` matches ``S`` case-insensitively, so the
    ASCII "the START" names round 1 in round 2 (the ASCII text is not lower-cased for it)."""
    row = {"game_id": "g", "in_reply_to": None, "in_reply_to_player": None, "timestamp": None}
    messages = pl.DataFrame(
        [
            {**row, "message_id": "m1", "turn": 1, "round": 1, "speaker": "Kai", "text": "Hi."},
            {**row, "message_id": "m2", "turn": 2, "round": 2, "speaker": "Ash",
             "text": "Earlier Kai voted for Bay at the START."},
        ],
        schema=DISCUSSION_MESSAGES_SCHEMA,
    )  # fmt: skip
    votes = pl.DataFrame(
        [{"game_id": "g", "round": 1, "voter": "Kai", "target": "Bay", "justification": None,
          "timestamp": None}],
        schema=DISCUSSION_VOTES_SCHEMA,
    )  # fmt: skip
    players = _villagers()
    refs = memory_references(messages, players, votes, ODD_WORDS[1])
    assert refs.select("referenced_round", "verdict", "reason").rows() == [
        (1, "accurate", "Kai voted for Bay: matches vote of round 1")
    ]


def test_an_unknown_actor_is_quoted_as_written_on_ascii_text() -> None:
    """The actor's word is found in the lower-cased sentence and cut from the sentence as
    written: the reason quotes it in its own case ("ZeD", not "zed")."""
    row = {"game_id": "g", "in_reply_to": None, "in_reply_to_player": None, "timestamp": None}
    messages = pl.DataFrame(
        [{**row, "message_id": "m1", "turn": 1, "round": 2, "speaker": "Ash",
          "text": "Hi all. In round 1 my friend ZeD Voted For Bay!"}],
        schema=DISCUSSION_MESSAGES_SCHEMA,
    )  # fmt: skip
    players = _villagers()
    refs = memory_references(
        messages, players, pl.DataFrame(schema=DISCUSSION_VOTES_SCHEMA), DEFAULT_DISCUSSION_SPEC
    )
    assert refs.select("reference_id", "actor", "object", "verdict", "reason").rows() == [
        ("m1#1", None, "Bay", "inaccurate", "actor cannot be identified ('ZeD')")
    ]


# --- the two questions asked of a pattern's text without a pattern of their own ---------

PATTERN_CHARS = ["(", "?", "x", "X", "i", "-", ":", "a", "_", "1", "\\", "é", " ", ")"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=PATTERN_CHARS, max_size=12))
def test_a_flag_group_that_may_turn_on_verbose_mode_is_found_as_its_regex_finds_it(
    pattern: str,
) -> None:
    expected = re.search(r"\(\?[A-Za-z-]*x", pattern) is not None
    assert text._may_be_verbose(pattern) is expected


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=["a", "Z", "0", "_", "-", " ", "é", "\u212a", "\u0660"], max_size=6))
def test_a_stem_of_ascii_word_characters_is_told_as_its_regex_tells_it(stem: str) -> None:
    expected = re.fullmatch(r"[A-Za-z0-9_]+", stem) is not None
    assert text.ascii_word(stem) is expected
