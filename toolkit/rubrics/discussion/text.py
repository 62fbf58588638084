"""What the metrics share to read a message's text column-wise: words, sentences, cues.

Regex fragments and Polars expressions only; each metric builds its own reading from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import polars as pl

__all__ = [
    "ASCII_QUESTION",
    "ASCII_SENTENCE",
    "ASCII_WORD",
    "QUESTION",
    "SENTENCE",
    "WORD",
    "all_ascii",
    "alternation",
    "ascii_classes",
    "ascii_named",
    "ascii_union",
    "ascii_word",
    "ascii_word_ended",
    "cue_matches",
    "cues_in",
    "escaped",
    "lowered_alike",
    "mentions",
    "pattern_union",
    "stem",
    "stem_regex",
    "with_roles",
    "word_bounded",
]

#: A lower-cased word (letters and digits, inner apostrophes and hyphens).
WORD = r"[a-z0-9]+(?:['’-][a-z0-9]+)*"
#: :data:`WORD` on text of ASCII characters only (no typographic apostrophe to meet): the
#: same matches there, and a pattern of ASCII characters only compiles faster (issue 38).
ASCII_WORD = WORD.replace("’", "")
#: A sentence: up to and including its closing punctuation.
SENTENCE = r"[^.!?\n]+[.!?]*"
#: A question: the words of a sentence up to its question mark.
QUESTION = r"[^.!?\n]*\?"
#: What may stand inside a sentence on text of ASCII characters only: every ASCII
#: character but ``.``, ``!``, ``?`` and the line feed, the same characters ``[^.!?\n]``
#: accepts there. The negated class accepts every character beyond ASCII too, and to
#: compile that Polars' regex builds an automaton of them over a 400 KB table (issue 38).
_ASCII_INSIDE = r"[\x00-\x09\x0B-\x20\x22-\x2D\x2F-\x3E\x40-\x7F]"
#: :data:`SENTENCE` and :data:`QUESTION` for text of ASCII characters only: the same
#: matches there.
ASCII_SENTENCE = _ASCII_INSIDE + r"+[.!?]*"
ASCII_QUESTION = _ASCII_INSIDE + r"*\?"


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, escaped, longest first (so a longer cue wins)."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def pattern_union(patterns: Iterable[str]) -> str:
    """One case-insensitive regex matching where any of ``patterns`` does (each in its own
    group): the form the rubric's pattern lists are run in, and checked in when a rubric
    is read."""
    return "(?i)" + _alternatives(patterns)


def _alternatives(patterns: Iterable[str]) -> str:
    """``patterns`` as one alternation, each in its own non-capturing group."""
    return "(?:" + "|".join(f"(?:{p})" for p in patterns) + ")"


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


def _may_be_verbose(pattern: str) -> bool:
    """Whether ``pattern`` holds a flag group that may turn on the verbose mode: ``(?``
    then flag letters and dashes up to an ``x`` (a false alarm only costs time). Asked of
    the string, with no pattern of its own to compile (issue 38)."""
    at = pattern.find("(?")
    while at >= 0:
        i = at + 2
        while (
            i < len(pattern)
            and pattern[i].isascii()
            and (pattern[i].isalpha() or pattern[i] == "-")
        ):
            if pattern[i] == "x":
                return True
            i += 1
        at = pattern.find("(?", at + 2)
    return False


def ascii_classes(pattern: str) -> str:
    """``pattern`` with each Perl class escape (``\\w \\d \\s \\W \\D \\S``, in a class
    or not) spelt as its ASCII members: on text of ASCII characters only it matches
    exactly where ``pattern`` does (each class accepts the same characters of such a
    text, case-insensitively or not, and nothing else in the pattern changes), and it
    compiles several times faster (Polars' regex builds an automaton of every Unicode
    word character for each ``\\w``: issue 38). A pattern that may turn on the verbose
    mode (``(?x)``, where a blank may stand between a class and a ``-``) is left as it is."""
    if _may_be_verbose(pattern):
        return pattern
    out: list[str] = []
    i = 0
    # from one backslash to the next (what lies between is copied as it stands)
    while (at := pattern.find("\\", i)) >= 0 and at + 1 < len(pattern):
        out.append(pattern[i:at])
        escape = pattern[at + 1]
        # every other escape is the backslash and one character, and what may follow
        # (``\\x{41}``, ``\\p{Greek}``) holds no backslash: copied as it stands; so is a
        # class next to a ``-`` (``[\\w-a]`` is refused, ``[[0-9A-Za-z_]-a]`` is not)
        dash = pattern[at - 1 : at] == "-" or pattern[at + 2 : at + 3] == "-"
        out.append("\\" + escape if dash else _ASCII_CLASS.get(escape, "\\" + escape))
        i = at + 2
    out.append(pattern[i:])  # the rest, a last lone backslash included
    return "".join(out)


#: Escapes whose meaning does not change with case: word boundaries and Perl classes (which
#: hold both cases of every letter they hold).
_CASELESS_ESCAPES = frozenset("bBdDsSwW")
#: Typographic punctuation: no case, and no ASCII character folds to one of them.
_CASELESS_NON_ASCII = frozenset("‘’“”–—…")


def _class_dash_ok(pattern: str, i: int, first: int) -> bool:
    """Whether the ``-`` at ``i`` in a class whose content starts at ``first`` is a literal
    dash (first or last in the class) or a range between two lower-case letters or two
    digits (a range such as ``0-a`` holds upper-case letters)."""
    if i == first or pattern[i + 1 : i + 2] == "]":
        return True
    before, after = pattern[i - 1], pattern[i + 1 : i + 2]
    if pattern[i - 2 : i - 1] == "\\":  # an escape before the dash: left alone
        return False
    return (before + after).isdigit() or (
        before.islower() and after.islower() and (before + after).isalpha()
    )


def _class_char_ok(pattern: str, i: int, first: int) -> bool:
    """Whether the character at ``i``, in a class whose content starts at ``first``, reads
    alike lower-cased: no nested or POSIX class (``[``), no set operation (``&&``, ``~~``,
    ``--``), a ``-`` only as :func:`_class_dash_ok` allows."""
    c = pattern[i]
    if c == "[" or (c in "&~" and pattern[i + 1 : i + 2] == c):
        return False
    return c != "-" or _class_dash_ok(pattern, i, first)


def lowered_alike(pattern: str) -> bool:
    """Whether ``"(?i)" + pattern`` on text of ASCII characters only matches exactly where
    ``pattern`` (with no ``(?i)``) matches the text lower-cased (the same spans, groups
    lower-cased): checked conservatively, on the pattern as written.

    It holds when every atom accepts a character under ``(?i)`` exactly when it accepts the
    character lower-cased: the pattern is ASCII (typographic quotes and dashes aside), has
    no upper-case letter, no flag group or named group (``(?`` only as ``(?:``), no escape
    but punctuation and the caseless ``\\b \\B \\d \\D \\s \\S \\w \\W``, no nested,
    POSIX or set-operation class, and ranges only between two lower-case letters or two
    digits. Case folding keeps ``.``, assertions, digits and punctuation as they are, adds
    the upper-case twin of each lower-case letter (a negated class is folded before it is
    negated), and lower-casing ASCII text changes one letter for one, so positions and
    word boundaries stay."""
    ascii_or_caseless = pattern.isascii() or all(
        c.isascii() or c in _CASELESS_NON_ASCII for c in pattern
    )
    if not ascii_or_caseless:
        return False
    first = -1  # where the open class's content starts; -1 outside a class
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            escape = pattern[i + 1 : i + 2]
            if not escape or (escape.isalnum() and escape not in _CASELESS_ESCAPES):
                return False
            i += 2
            continue
        if c.isupper() or (
            c == "(" and pattern[i + 1 : i + 2] == "?" and pattern[i + 2 : i + 3] != ":"
        ):
            return False
        if first < 0:
            if c == "[":
                first = i + 2 if pattern[i + 1 : i + 2] == "^" else i + 1
                if pattern[first : first + 1] == "]":  # a literal ``]`` first in the class
                    i = first
        elif not _class_char_ok(pattern, i, first):
            return False
        elif c == "]":
            first = -1
        i += 1
    return first < 0


def ascii_union(patterns: Iterable[str]) -> tuple[str, bool]:
    """The regex :func:`pattern_union` of ``patterns`` is run as on text of ASCII characters
    only, and whether it is run on the text lower-cased: with no ``(?i)`` when the union
    reads alike lower-cased (:func:`lowered_alike`; a pattern with no ``(?i)`` compiles in
    half the time or less, issue 38), its classes spelt as their ASCII members."""
    union = _alternatives(patterns)
    if lowered_alike(union):
        return ascii_classes(union), True
    return ascii_classes("(?i)" + union), False


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


def escaped(name: pl.Expr) -> pl.Expr:
    """``name`` with each regex metacharacter escaped: a literal in a pattern built per row."""
    return name.str.replace_all(r"([.*+?^$()\[\]{}|\\])", r"\$1")


def word_bounded(name: pl.Expr) -> pl.Expr:
    """``\\b(?i:<name, escaped>)\\b``: ``name`` as a whole word, case-insensitively (what
    :func:`mentions` looks for when the name starts and ends with a word character).

    Matched against ``name`` itself it says whether ``name`` starts and ends with a word
    character: a match of the escaped literal has as many characters as the name, so it
    can only be the whole name, and ``\\b`` holds at the start of a text before a word
    character and at its end after one (an empty name: no match)."""
    return pl.concat_str([pl.lit(r"\b(?i:"), escaped(name), pl.lit(r")\b")])


def mentions(text: pl.Expr, name: pl.Expr, *, ascii_words: bool = False) -> pl.Expr:
    """Whether ``text`` names ``name`` as a whole word (case-insensitive); a null name, or
    one empty or of blanks only -> False.

    With ``ascii_words`` (the caller has checked that every text is ASCII and every name
    is ASCII and starts and ends with a word character: :func:`all_ascii`,
    :func:`ascii_word_ended`) the same answer is read as :func:`ascii_named` reads it, its
    patterns compiled without case-folding and Unicode's word table: ~10 µs a distinct
    name against ~80 (issue 38), and the same patterns coherence compiles for the same
    names (Polars keeps compiled patterns per thread)."""
    if ascii_words:
        return ascii_named(text.str.to_lowercase(), name).fill_null(False)
    # Only the name is matched case-insensitively: ``(?i)[^\w]`` and ``[^\w]`` match the
    # same code points (every one checked), and a pattern is compiled per distinct name,
    # a third faster without case-folding the Unicode class (issue 38).
    pattern = pl.concat_str([pl.lit(r"(?:^|[^\w])(?i:"), escaped(name), pl.lit(r")(?:[^\w]|$)")])
    # A name that starts and ends with a word character (every player name seen) is
    # bounded the same by ``\b``: before its first character ``\b`` holds exactly when the
    # text starts there or a non-word character precedes it, and likewise after its last
    # (case variants of a word character are word characters). ``\b`` compiles without the
    # Unicode class ``[^\w]``: about 4x faster per distinct name (issue 38).
    bounded = word_bounded(name)
    # whether the name starts and ends with a word character: its own pattern matched
    # against it (:func:`word_bounded`); the same pattern the texts are then matched
    # against, compiled once (Polars keeps compiled patterns per thread), and no pattern
    # of a Unicode class (``^\w(?:(?s:.*)\w)?$`` cost ~0.6 ms to compile; issue 38)
    wordy = name.str.contains(bounded)
    # an empty name, or one of blanks only, would match wherever two non-word characters
    # meet or one ends the text: such a name is named by no text. ``strip_chars`` strips
    # the characters of Unicode's White_Space, those ``\s`` matches: a name holds a
    # character ``\S`` matches exactly when it is left non-empty (no pattern to compile)
    found = text.str.contains(pl.when(wordy).then(bounded).otherwise(pattern))
    return (found & (name.str.strip_chars().str.len_bytes() > 0)).fill_null(False)


#: The ASCII word characters (to Unicode's ``\\w`` as to ASCII's).
_ASCII_WORD_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def ascii_word(text: str) -> bool:
    """Whether ``text`` is one or more ASCII word characters (letters, digits, ``_``):
    ``[A-Za-z0-9_]+`` as a whole, asked of the string with no pattern to compile."""
    return text != "" and set(text) <= _ASCII_WORD_CHARS


def ascii_word_ended(names: pl.Series) -> bool:
    """Whether every name (nulls aside) is ASCII and starts and ends with a word character
    (checked in Python: asking the engine costs a pattern's compile)."""
    ends = _ASCII_WORD_CHARS
    return all(
        name != "" and name.isascii() and name[0] in ends and name[-1] in ends
        for name in set(names.to_list()) - {None}
    )


def ascii_named(lower: pl.Expr, name: pl.Expr) -> pl.Expr:
    """:func:`word_bounded`'s match, and :func:`mentions`', for ASCII texts and ASCII names
    that start and end with a word character, compiled without a Unicode table: the
    lower-cased name as a whole word, ``(?-u:\\b)name(?-u:\\b)``, in ``lower``, the
    lower-cased text.

    On ASCII text the ASCII word boundary holds where the Unicode one does (an ASCII
    character is a word character to both or to neither), and ``(?i:name)`` of an ASCII
    name matches at a place of an ASCII text exactly when the lower-cased name is there
    in the lower-cased text (Unicode folds an ASCII letter to its other case and to
    characters beyond ASCII only: ``k`` to the Kelvin sign, ``s`` to the long s).
    Lower-casing keeps an ASCII text's length and places. Each distinct name's pattern is
    compiled without case-folding and Unicode's word table (issue 38: in coherence about
    2 ms of CPU less a process on the samples). Null for a null text or name.
    """
    pattern = pl.concat_str(
        [pl.lit(r"(?-u:\b)"), escaped(name.str.to_lowercase()), pl.lit(r"(?-u:\b)")]
    )
    return lower.str.contains(pattern)


def cue_matches(column: str, cues: Sequence[str]) -> pl.Expr:
    """Matched cue phrases (lower-cased, unique) of ``column`` (:func:`cues_in`)."""
    return cues_in(pl.col(column), cues)


def cues_in(text: pl.Expr, cues: Sequence[str]) -> pl.Expr:
    """Matched cue phrases (lower-cased, unique) of the texts ``text`` (an expression: a
    column, or the text as read with parts left out)."""
    if not cues:
        return pl.lit([], dtype=pl.List(pl.String()))
    # The text is lower-cased, so it holds no ASCII capital: each cue's ASCII letters
    # lower-cased match exactly where the cue matched ASCII-case-insensitively, and the
    # automaton built without case-insensitivity has half the transitions (issue 38).
    return (
        text.str.to_lowercase()
        .str.extract_many([_ascii_lower(c) for c in cues], overlapping=True)
        .list.unique(maintain_order=True)
    )


def _ascii_lower(text: str) -> str:
    """``text`` with its ASCII capitals lower-cased and every other character kept."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
