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
    "all_ascii",
    "alternation",
    "ascii_classes",
    "cue_matches",
    "mentions",
    "pattern_union",
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


def pattern_union(patterns: Iterable[str]) -> str:
    """One case-insensitive regex matching where any of ``patterns`` does (each in its own
    group): the form the rubric's pattern lists are run in, and checked in when a rubric
    is read."""
    return "(?i)(?:" + "|".join(f"(?:{p})" for p in patterns) + ")"


#: The ASCII members of each Perl class escape, as a class (valid nested in a class too).
#: ``\\x20`` and not a space: a space in a class is ignored in the ``x`` (verbose) mode.
_ASCII_CLASS = {
    "w": "[0-9A-Za-z_]",
    "d": "[0-9]",
    "s": r"[\t\n\x0B\x0C\r\x20]",
    "W": "[^0-9A-Za-z_]",
    "D": "[^0-9]",
    "S": r"[^\t\n\x0B\x0C\r\x20]",
}


#: A flag group that may turn on the verbose mode (a false alarm only costs time).
_VERBOSE = re.compile(r"\(\?[A-Za-z-]*x")


def ascii_classes(pattern: str) -> str:
    """``pattern`` with each Perl class escape (``\\w \\d \\s \\W \\D \\S``, in a class
    or not) spelt as its ASCII members: on text of ASCII characters only it matches
    exactly where ``pattern`` does (each class accepts the same characters of such a
    text, case-insensitively or not, and nothing else in the pattern changes), and it
    compiles several times faster (Polars' regex builds an automaton of every Unicode
    word character for each ``\\w``: issue 38). A pattern that may turn on the verbose
    mode (``(?x)``, where a blank may stand between a class and a ``-``) is left as it is."""
    if _VERBOSE.search(pattern):
        return pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            escape = pattern[i + 1]
            # every other escape is the backslash and one character, and what may follow
            # (``\\x{41}``, ``\\p{Greek}``) holds no backslash: copied as it stands; so is
            # a class next to a ``-`` (``[\\w-a]`` is refused, ``[[0-9A-Za-z_]-a]`` is not)
            dash = pattern[i - 1 : i] == "-" or pattern[i + 2 : i + 3] == "-"
            out.append("\\" + escape if dash else _ASCII_CLASS.get(escape, "\\" + escape))
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def all_ascii(texts: pl.Series) -> bool:
    """Whether every string of ``texts`` is of ASCII characters only (nulls aside)."""
    # in Python: a tenth of the CPU of comparing Polars' byte and character lengths
    return all(text.isascii() for text in texts.to_list() if text is not None)


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
