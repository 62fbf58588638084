"""The discussion's cheaper queries (issue 38) read the same as the rubric's definitions.

Strategic keywords are found as word runs filtered by a stem prefix instead of one
pattern with ``[\\w]*`` after the stems; the cards split the frames by game once instead
of filtering them per game. Each is compared with a plain-Python reading of the rubric
(docs/rubrics/discussion.md, metric 2), written here, on hand-picked and generated texts.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.frames import (
    DISCUSSION_GAMES_SCHEMA,
    DISCUSSION_MESSAGES_SCHEMA,
    DISCUSSION_PLAYERS_SCHEMA,
    DISCUSSION_VOTES_SCHEMA,
)
from toolkit.load.discussion import Discussion, load_discussion
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC, score_discussion
from toolkit.rubrics.discussion.card import game_cards
from toolkit.rubrics.discussion.coherence import coherence_evidence
from toolkit.rubrics.discussion.evidence import gather_evidence
from toolkit.rubrics.discussion.strategic import keyword_words, strategic_evidence
from toolkit.rubrics.discussion.tallies import game_tallies
from toolkit.rubrics.discussion.text import stem

#: Characters of the generated texts and whether each is a word character (Unicode's
#: ``\w``, UTS #18: alphabetic, marks, decimal digits, connector punctuation, join
#: controls), by hand.
WORD_CHARS = {
    **{c: True for c in "abcdefhiklnorstuvwABCEIKSTV_7"},
    "\u017f": True,  # LATIN SMALL LETTER LONG S, a case variant of s
    "\u212a": True,  # KELVIN SIGN, a case variant of k
    "\u00e9": True,
    "\u00df": True,
    "\u0301": True,  # COMBINING ACUTE ACCENT (a mark)
    "\u200d": True,  # ZERO WIDTH JOINER (a join control)
    "\u0663": True,  # ARABIC-INDIC DIGIT THREE (a decimal digit)
    **{c: False for c in " ,.'’-\n!?"},
    "\u00b2": False,  # SUPERSCRIPT TWO: a number, but not a decimal digit
    "\U0001f600": False,
}

#: The code points a case-insensitive match of an ASCII letter accepts (simple case
#: folding: besides the two cases, K also matches the Kelvin sign, s the long s).
_FOLDS = {"k": {"\u212a"}, "s": {"\u017f"}}


def _same_letter(text_char: str, stem_char: str) -> bool:
    low = stem_char.lower()
    return text_char in {low, low.upper(), *_FOLDS.get(low, set())}


def _word_char(ch: str) -> bool:
    """Unicode's ``\\w`` by general category (letters, marks, decimal and letter numbers,
    connector punctuation) and the two join controls; the table above where it has ``ch``."""
    if ch in WORD_CHARS:
        return WORD_CHARS[ch]
    cat = unicodedata.category(ch)
    return cat[0] in "LM" or cat in ("Nd", "Nl", "Pc") or ch in "\u200c\u200d"


def _is_word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and _word_char(text[i])


def reference_keywords(text: str, keywords: list[str]) -> list[str]:
    """Metric 2 by its definition: a keyword (its stem: a final ``e`` dropped from a word
    of four letters or more) matches any word starting with it, case-insensitively, never
    inside a word; the word is read to its end. The stems are tried in the rubric's
    order at each place; the words found, lower-cased, each once, in text order."""
    stems = [stem(k) for k in keywords]
    found: list[str] = []
    i = 0
    while i < len(text):
        at_boundary = _is_word(text, i - 1) != _is_word(text, i)
        hit = next(
            (
                s
                for s in stems
                if at_boundary
                and len(text[i : i + len(s)]) == len(s)
                and all(_same_letter(t, c) for t, c in zip(text[i : i + len(s)], s, strict=True))
            ),
            None,
        )
        if hit is None:
            i += 1
            continue
        j = i + len(hit)
        while _is_word(text, j):
            j += 1
        word = text[i:j].lower()
        if word not in found:
            found.append(word)
        i = j
    return found


def toolkit_keywords(texts: list[str], keywords: list[str]) -> list[list[str]]:
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String()})
    out = frame.select(
        keyword_words(pl.col("text"), keywords)
        .list.eval(pl.element().str.to_lowercase())
        .list.unique(maintain_order=True)
    )
    return [list(x) for x in out.to_series()]


RUBRIC_WORDS = [w for group in DEFAULT_DISCUSSION_SPEC.strategic_keywords.values() for w in group]


def test_the_word_table_agrees_with_the_category_rule() -> None:
    for ch, word in WORD_CHARS.items():
        cat = unicodedata.category(ch)
        assert (cat[0] in "LM" or cat in ("Nd", "Nl", "Pc") or ch == "\u200d") == word, ch


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Voting for Ash because of the pattern.", ["voting", "because", "pattern"]),
        ("I distrust you; trustworthy? TRUST!", ["trustworthy", "trust"]),
        # the long s and the Kelvin sign are case variants of s and k
        ("\u017fuspicious, I thin\u212a", ["\u017fuspicious", "think"]),
        # a combining mark and a joiner are word characters: the word goes on
        ("vote\u0301d re\u200dason reason\u00b2", ["vote\u0301d", "reason"]),
        ("_vote x7trust vote_", ["vote_"]),
        ("", []),
    ],
)
def test_strategic_words_are_the_rubric_reading(text: str, expected: list[str]) -> None:
    assert reference_keywords(text, RUBRIC_WORDS) == expected
    assert toolkit_keywords([text], RUBRIC_WORDS) == [expected]


def test_a_stem_with_a_hyphen_still_matches_across_the_hyphen() -> None:
    # "self-vote" -> stem "self-vot": not word characters only, so the whole pattern
    words = ["self-vote", "trust"]
    text = "Self-voted, self voted, trusty"
    assert reference_keywords(text, words) == ["self-voted", "trusty"]
    assert toolkit_keywords([text], words) == [["self-voted", "trusty"]]


def test_a_non_ascii_stem_reads_the_same() -> None:
    words = ["zoë", "vote"]
    text = "Zoëy voted; ZOËS, zoe"
    assert reference_keywords(text, words) == ["zoëy", "voted", "zoës"]
    assert toolkit_keywords([text], words) == [["zoëy", "voted", "zoës"]]


def test_a_null_text_has_no_keywords_list() -> None:
    frame = pl.DataFrame({"text": [None, "vote"]}, schema={"text": pl.String()})
    out = frame.select(keyword_words(pl.col("text"), RUBRIC_WORDS)).to_series().to_list()
    assert out == [None, ["vote"]]


_ALPHABET = "".join(WORD_CHARS)


_TEXTS = st.lists(st.text(alphabet=_ALPHABET, max_size=40), min_size=1, max_size=6)
#: mostly ASCII stems (word runs); now and then one with "-" or "é" (the whole pattern)
_KEYWORDS = st.lists(
    st.text(alphabet="abceiklnorstv", min_size=1, max_size=6)
    | st.text(alphabet="abest-\u00e9", min_size=1, max_size=4),
    min_size=1,
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, _KEYWORDS)
def test_generated_texts_and_keywords_match_the_reference(
    texts: list[str], keywords: list[str]
) -> None:
    assert toolkit_keywords(texts, keywords) == [reference_keywords(t, keywords) for t in texts]


@settings(max_examples=150, deadline=None)
@given(_TEXTS, _KEYWORDS)
def test_strategic_evidence_with_generated_keywords_matches_the_reference(
    texts: list[str], keywords: list[str]
) -> None:
    # both ways of finding the words (word runs; the whole pattern for "-" or "é"),
    # each lower-cased in the query that finds them (issue 38)
    spec = DEFAULT_DISCUSSION_SPEC.model_copy(update={"strategic_keywords": {"k": tuple(keywords)}})
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String()})
    got = strategic_evidence(frame, spec)
    expected = [reference_keywords(t, keywords) for t in texts]
    assert [list(x) for x in got["strategic_keywords"]] == expected
    assert got["strategic"].to_list() == [bool(e) for e in expected]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=_ALPHABET, max_size=60), min_size=1, max_size=6))
def test_generated_texts_match_the_reference_on_the_rubric_keywords(texts: list[str]) -> None:
    frame = pl.DataFrame({"text": texts}, schema={"text": pl.String()})
    got = strategic_evidence(frame, DEFAULT_DISCUSSION_SPEC)
    expected = [reference_keywords(t, RUBRIC_WORDS) for t in texts]
    assert [list(x) for x in got["strategic_keywords"]] == expected
    assert got["strategic"].to_list() == [bool(e) for e in expected]


def _strategic_by_reference(path: Path) -> list[list[str]]:
    messages = load_discussion(path).messages
    return [reference_keywords(t, RUBRIC_WORDS) for t in messages["text"].to_list()]


def test_sample_games_strategic_keywords_match_the_reference(sample_runs: Path) -> None:
    folder = sample_runs / "discussions"
    report = score_discussion(load_discussion(folder))
    got = [list(x) for x in report.evidence.messages["strategic_keywords"]]
    assert got == _strategic_by_reference(folder)
    assert sum(map(len, got)) > 20  # the samples do use the keywords


def test_real_export_strategic_keywords_match_the_reference(real_runs: Path) -> None:
    path = real_runs / "discussions" / "2l-ai-mafia" / "data-backup.json"
    report = score_discussion(load_discussion(path))
    got = [list(x) for x in report.evidence.messages["strategic_keywords"]]
    assert got == _strategic_by_reference(path)


# --- the cards: each frame split by game once --------------------------------------------


def _two_games() -> Discussion:
    """Game ``b`` (2 messages over rounds 1 and 2, listed first) and game ``a`` (none)."""
    games = [
        {"game_id": g, "source_kind": "transcript", "source_file": f"{g}.json", "cost_usd": c}
        for g, c in (("b", 1.0), ("a", None))
    ]
    players = [
        {"game_id": g, "player_id": n, "name": n, "role": "VILLAGER", "alive": True, "position": i}
        for g in ("a", "b")
        for i, n in enumerate(("Ash", "Bay"))
    ]
    texts = [(1, "Ash", "I trust Bay because of the vote."), (2, "Bay", "Ash voted for me.")]
    messages = [
        {
            "game_id": "b",
            "message_id": f"m{t}",
            "turn": t,
            "round": r,
            "speaker": s,
            "text": x,
            "in_reply_to": None,
            "in_reply_to_player": None,
            "timestamp": None,
        }
        for t, (r, s, x) in enumerate(texts, start=1)
    ]
    return Discussion(
        games=pl.DataFrame(games, schema=DISCUSSION_GAMES_SCHEMA),
        players=pl.DataFrame(players, schema=DISCUSSION_PLAYERS_SCHEMA),
        messages=pl.DataFrame(messages, schema=DISCUSSION_MESSAGES_SCHEMA),
        votes=pl.DataFrame(schema=DISCUSSION_VOTES_SCHEMA),
    )


def test_each_card_reads_its_own_game_in_load_order() -> None:
    report = score_discussion(_two_games())
    assert [c.subject for c in report.scorecards] == ["b", "a"]
    b, a = report.scorecards
    assert b.title == "Game b · 2 messages, 2 rounds · $1.00"
    assert b.meta["source_file"] == "b.json"
    assert b.dimensions["dimension"].to_list()[0] == "memory_accuracy"
    # a game nobody spoke in: no rows of its own in the messages, rounds 0
    assert a.title == "Game a · 0 messages, 0 rounds · cost unknown"
    assert a.meta["reasons"][0] == "no discussion messages: nothing to score"
    assert a.meta["source_file"] == "a.json"


def test_a_cards_rows_are_its_games_whether_together_or_interleaved() -> None:
    """The cards slice each game's rows where they are together (as the metrics frame
    holds them) and split the frame by game where they are not: either way a card's
    dimensions are its game's rows, in their order (the frame filtered by game)."""
    discussion = _two_games()
    report = score_discussion(discussion)
    table = report.metrics  # games b then a, each game's seven rows together
    interleaved = table.with_row_index("_i").sort(pl.col("_i") % 7, "_i").drop("_i")
    assert interleaved["game_id"].to_list()[:4] == ["b", "a", "b", "a"]
    spec = DEFAULT_DISCUSSION_SPEC
    evidence, phrase_counts, overridden = gather_evidence(discussion, spec, None, None, ["b", "a"])
    tallies = game_tallies(discussion.games, evidence, phrase_counts, overridden, None, spec)
    for metrics in (table, interleaved):
        cards = game_cards(["b", "a"], metrics, tallies, discussion, spec)
        for card in cards:
            own = table.filter(pl.col("game_id") == card.subject)
            assert card.dimensions["dimension"].to_list() == own["key"].to_list()
            assert card.dimensions["value"].to_list() == own["score"].to_list()


# --- coherence: every (message, previous speaker) pair asked in one expression -------------

_COHERENCE_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")


def _fold_set(ch: str) -> set[str]:
    """What a case-insensitive pattern character matches (simple case folding) for the
    characters the generated names use."""
    for group in ({"k", "K", "\u212a"}, {"s", "S", "\u017f"}):
        if ch in group:
            return group
    return {ch.lower(), ch.upper()} if ch.isascii() and ch.isalpha() else {ch}


def reference_names(text: str | None, name: str | None) -> bool:
    """Metric 3's "names a speaker": the name, case-insensitively, as a whole word (no
    word character just before or after it); an empty name, or blanks only, never."""
    if text is None or name is None or not name.strip():
        return False
    size = len(name)
    for i in range(len(text) - size + 1):
        same = all(t in _fold_set(c) for t, c in zip(text[i : i + size], name, strict=True))
        if same and not _is_word(text, i - 1) and not _is_word(text, i + size):
            return True
    return False


def reference_coherence(rows: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    """Metric 3 by its definition (rubric 1.2.0: window 3, 2+ shared words of 5+
    letters, a game's first message counted as not coherent), message by message."""
    spec = DEFAULT_DISCUSSION_SPEC
    n, min_len, min_shared = (
        spec.coherence_window,
        spec.coherence_min_word_length,
        spec.coherence_min_shared_words,
    )
    seen: dict[str, list[dict[str, Any]]] = {}
    out: list[tuple[bool, str]] = []
    for row in rows:
        before = seen.setdefault(row["game_id"], [])
        if not before:
            out.append((False, "first message: nothing before it to link to"))
            before.append(row)
            continue
        words = set(w for w in _COHERENCE_WORD.findall(row["text"].lower()) if len(w) >= min_len)
        reasons: list[str] = []
        if row["in_reply_to"] is not None:
            reasons.append(f"replies to {row['in_reply_to_player'] or row['in_reply_to']}")
        window = before[-n:][::-1]  # k = 1 .. n
        for prev in window:
            if reference_names(row["text"], prev["speaker"]):
                reasons.append(f"names {prev['speaker']} (turn {prev['turn']})")
        for prev in window:
            common = words & {
                w for w in _COHERENCE_WORD.findall(prev["text"].lower()) if len(w) >= min_len
            }
            if len(common) >= min_shared:
                reasons.append(f"shares {', '.join(sorted(common))} with turn {prev['turn']}")
        out.append(
            (bool(reasons), reasons[0] if reasons else f"no link to the previous {n} messages")
        )
        before.append(row)
    return out


_NAMES = ["Ash", "ash", "\u017fam", "Sam", "Kai", "\u212aai", ".x", "x.", "Bo-b", "_z_", "", " "]
_FILLER = ["voted", "Sable", "trust", "pattern", "shady", "-", ",", "!", "ZZ", "\u00e9", "\u0301"]


@st.composite
def _games(draw: st.DrawFn) -> list[dict[str, Any]]:
    size = draw(st.integers(min_value=0, max_value=9))
    rows = []
    for turn in range(1, size + 1):
        pieces = draw(st.lists(st.sampled_from(_NAMES + _FILLER), max_size=8))
        glue = draw(st.sampled_from([" ", "", ", "]))
        reply = draw(st.one_of(st.none(), st.sampled_from(_NAMES[:4])))
        rows.append(
            {
                "game_id": draw(st.sampled_from(["g1", "g2"])),  # games interleaved
                "message_id": f"m{turn}",
                "turn": turn,
                "round": 1,
                "speaker": draw(st.sampled_from(_NAMES)),
                "text": glue.join(pieces),
                "in_reply_to": f"id-{reply}" if reply else None,
                "in_reply_to_player": reply,
                "timestamp": None,
            }
        )
    return rows


@settings(max_examples=200, deadline=None)
@given(_games())
def test_generated_games_coherence_matches_the_reference(rows: list[dict[str, Any]]) -> None:
    messages = pl.DataFrame(rows, schema=DISCUSSION_MESSAGES_SCHEMA)
    got = coherence_evidence(messages, DEFAULT_DISCUSSION_SPEC)
    assert list(zip(got["coherent"], got["coherence_reason"], strict=True)) == (
        reference_coherence(rows)
    )


def test_a_name_two_and_three_messages_back_is_found_in_each_game() -> None:
    rows = [
        {"game_id": g, "message_id": f"m{t}", "turn": t, "round": 1, "speaker": s, "text": x,
         "in_reply_to": None, "in_reply_to_player": None, "timestamp": None}
        for t, (g, s, x) in enumerate(
            [
                ("g1", "Ash", "hello"),
                ("g2", "\u017fam", "hi"),
                ("g1", "Kai", "ok"),
                ("g1", "Bo-b", "ok"),
                ("g2", "Ash", "I agree with SAM."),  # the long s's case variant, 1 back in g2
                ("g1", "Ash", "Not ash, but \u212aAI."),  # Kai 2 back; Ash (3 back) is ash
            ],
            start=1,
        )
    ]  # fmt: skip
    got = coherence_evidence(
        pl.DataFrame(rows, schema=DISCUSSION_MESSAGES_SCHEMA), DEFAULT_DISCUSSION_SPEC
    )
    assert got["coherence_reason"].to_list()[4:] == [
        "names \u017fam (turn 2)",
        "names Kai (turn 3)",
    ]
    assert reference_coherence(rows)[4:] == [
        (True, "names \u017fam (turn 2)"),
        (True, "names Kai (turn 3)"),
    ]
