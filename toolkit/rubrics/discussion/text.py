"""What the metrics share to read a message's text column-wise: words, sentences, cues.

Regex fragments and Polars expressions only; each metric builds its own reading from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import polars as pl

__all__ = [
    "SENTENCE",
    "WORD",
    "alternation",
    "cue_matches",
    "mentions",
    "stem",
    "stem_regex",
    "with_roles",
]

#: A lower-cased word (letters and digits, inner apostrophes and hyphens).
WORD = r"[a-z0-9]+(?:['’-][a-z0-9]+)*"
#: A sentence: up to and including its closing punctuation.
SENTENCE = r"[^.!?\n]+[.!?]*"
#: A name whose first and last characters are word characters (one character or more).
_WORD_ENDS = r"^\w(?:(?s:.*)\w)?$"


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, escaped, longest first (so a longer cue wins)."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def stem(word: str) -> str:
    """The inflection rule: a keyword matches any word starting with it, minus a final e."""
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def stem_regex(words: Iterable[str]) -> str:
    """A case-insensitive regex of any word starting with one of ``words``' stems."""
    return r"(?i)\b(?:" + "|".join(re.escape(stem(w)) for w in words) + r")[\w]*"


def with_roles(messages: pl.DataFrame, players: pl.DataFrame) -> pl.DataFrame:
    """``messages`` with their speaker's ``role`` (the first player of that name)."""
    roles = players.select("game_id", pl.col("name").alias("speaker"), "role").unique(
        ["game_id", "speaker"], keep="first", maintain_order=True
    )
    return messages.join(roles, on=["game_id", "speaker"], how="left")


def mentions(text: pl.Expr, name: pl.Expr) -> pl.Expr:
    """Whether ``text`` names ``name`` as a whole word (case-insensitive); a null name, or
    one empty or of blanks only -> False."""
    escaped = name.str.replace_all(r"([.*+?^$()\[\]{}|\\])", r"\$1")
    # Only the name is matched case-insensitively: ``(?i)[^\w]`` and ``[^\w]`` match the
    # same code points (every one checked), and a pattern is compiled per distinct name,
    # a third faster without case-folding the Unicode class (issue 38).
    pattern = pl.concat_str([pl.lit(r"(?:^|[^\w])(?i:"), escaped, pl.lit(r")(?:[^\w]|$)")])
    # A name that starts and ends with a word character (every player name seen) is
    # bounded the same by ``\b``: before its first character ``\b`` holds exactly when the
    # text starts there or a non-word character precedes it, and likewise after its last
    # (case variants of a word character are word characters). ``\b`` compiles without the
    # Unicode class ``[^\w]``: about 4x faster per distinct name (issue 38).
    bounded = pl.concat_str([pl.lit(r"\b(?i:"), escaped, pl.lit(r")\b")])
    wordy = name.str.contains(_WORD_ENDS)
    # an empty name, or one of blanks only, would match wherever two non-word characters
    # meet or one ends the text: such a name is named by no text
    found = text.str.contains(pl.when(wordy).then(bounded).otherwise(pattern))
    return (found & name.str.contains(r"\S")).fill_null(False)


def cue_matches(column: str, cues: Sequence[str]) -> pl.Expr:
    """Matched cue phrases (lower-cased, unique) of ``column``."""
    if not cues:
        return pl.lit([], dtype=pl.List(pl.String()))
    return (
        pl.col(column)
        .str.to_lowercase()
        .str.extract_many(list(cues), ascii_case_insensitive=True, overlapping=True)
        .list.unique(maintain_order=True)
    )
