"""The cue phrases a message holds (:func:`toolkit.rubrics.discussion.text.cues_in`).

A cue is found in the text lower-cased, its ASCII letters in either case. Issue 38 builds
the automaton of the cues with their ASCII capitals lower-cased and no case-insensitivity
(half the transitions to build); here it answers as the earlier form, the cues as written
matched ASCII-case-insensitively by the same engine (Polars' Aho-Corasick), written out as
the reference, on cues and texts drawn to probe the difference: capitals whose lower case
is ASCII (the Kelvin sign), that lower-case to two characters (dotted I), non-ASCII
capitals, overlapping and repeated cues.
"""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.rubrics.discussion.text import cues_in

#: Letters that probe case: ASCII both ways, the Kelvin sign (lower-cases to ASCII k), the
#: dotted capital I (to i and a combining dot), sharp s, accented and Greek capitals.
ALPHABET = "aAbBkKiIsS \u212a\u0130\u00df\u1e9e\u00e9\u00c9\u03a3\u03c3\u03c2!?'"


def _reference(texts: list[str | None], cues: list[str]) -> list[list[str] | None]:
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String})
    found = frame.select(
        pl.col("text")
        .str.to_lowercase()
        .str.extract_many(cues, ascii_case_insensitive=True, overlapping=True)
        .list.unique(maintain_order=True)
    )
    return found.to_series().to_list()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.none() | st.text(alphabet=ALPHABET, max_size=24), min_size=1, max_size=6),
    st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=4), min_size=1, max_size=6),
)
def test_cues_are_found_as_the_case_insensitive_form_finds_them(
    texts: list[str | None], cues: list[str]
) -> None:
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String})
    got = frame.select(cues_in(pl.col("text"), cues)).to_series().to_list()
    assert got == _reference(texts, cues)


def test_a_capitalised_cue_is_found_in_any_case_and_reported_lower_cased() -> None:
    frame = pl.DataFrame({"text": ["TRUST ME, trust me", "i am the Mafia", "nothing"]})
    got = frame.select(cues_in(pl.col("text"), ["Trust me", "I am", "Mafia"]))
    assert got.to_series().to_list() == [["trust me"], ["i am", "mafia"], []]
