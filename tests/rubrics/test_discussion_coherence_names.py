"""Coherence's "names a previous speaker" read from the names' own whole-word patterns
(issue 38) is :func:`toolkit.rubrics.discussion.text.mentions`, pair for pair.

The reference is ``mentions`` itself, run by Polars on the same pairs: generated texts
and names over ASCII and non-ASCII letters, their case variants (the long s and the
Kelvin sign fold onto s and k), marks, digits, ``_``, punctuation and blanks; names that
start or end with a non-word character (the path that asks ``mentions`` whole), empty,
blank and null names and null texts.
"""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.rubrics.discussion.coherence import _names_previous
from toolkit.rubrics.discussion.text import all_ascii, mentions

WORDY = "abkSsKe\u017f\u212a\u00e9\u00c9\u00df\u0301_7"
OTHER = " .!'’-(\n"

wordy_names = st.text(alphabet=WORDY, min_size=1, max_size=4)
any_names = st.one_of(st.text(alphabet=WORDY + OTHER, max_size=4), st.none())
texts = st.one_of(st.text(alphabet=WORDY + OTHER, max_size=30), st.none())


def _expected(speakers: list[str | None], texts: list[str | None], n: int) -> list[list[bool]]:
    """mentions(text, speaker k messages before), one game, by hand-made pairs."""
    pairs = pl.DataFrame(
        {
            "text": [t for t in texts for _ in range(n)],
            "name": [speakers[i - k] if i - k >= 0 else None
                     for i in range(len(texts)) for k in range(1, n + 1)],
        },
        schema={"text": pl.String(), "name": pl.String()},
    )  # fmt: skip
    found = pairs.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    return [found[k::n] for k in range(n)]


def _named(messages: pl.DataFrame) -> list[pl.Series]:
    """``_named1`` .. ``_named3`` as the coherence query reads them (columns or expressions
    of ``messages``)."""
    out = messages.with_columns(*_names_previous(messages, 3, all_ascii(messages["text"])))
    return [out.get_column(f"_named{k}") for k in (1, 2, 3)]


def _check(speakers: list[str | None], text_list: list[str | None]) -> None:
    messages = pl.DataFrame(
        {"game_id": ["g"] * len(speakers), "speaker": speakers, "text": text_list},
        schema={"game_id": pl.String(), "speaker": pl.String(), "text": pl.String()},
    )
    got = _named(messages)
    # a null is read as False by the coherence query's ``when``
    assert [[bool(x) for x in s.to_list()] for s in got] == _expected(speakers, text_list, 3)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(wordy_names, texts), min_size=1, max_size=8))
def test_word_bounded_names_read_as_mentions(rows: list[tuple[str, str | None]]) -> None:
    _check([s for s, _ in rows], [t for _, t in rows])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(any_names, texts), min_size=1, max_size=8))
def test_any_names_read_as_mentions(rows: list[tuple[str | None, str | None]]) -> None:
    _check([s for s, _ in rows], [t for _, t in rows])


def test_case_variants_and_a_name_ending_in_punctuation() -> None:
    speakers = ["Sam", "Kai", "x", "Dr. Wren!", "y"]
    text_list = ["hi", "\u017fam said", "\u212aAI?", "kai's", "dr. wren! no"]
    _check(speakers, text_list)
    got = _named(pl.DataFrame({"game_id": ["g"] * 5, "speaker": speakers, "text": text_list}))
    # by hand: message 2 names Sam (1 back), 3 names Kai (1 back), 4 names Kai (2 back),
    # 5 names "Dr. Wren!" (1 back)
    assert [bool(x) for x in got[0].to_list()] == [False, True, True, False, True]
    assert [bool(x) for x in got[1].to_list()] == [False, False, False, True, False]
    assert [bool(x) for x in got[2].to_list()] == [False] * 5
