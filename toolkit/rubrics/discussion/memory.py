"""Metric 1, memory accuracy: every reference to a past event, checked against the game.

A reference is found, its claim read (kind, actor, object, round), looked up in the
votes or the earlier messages, and given a verdict; a reviewer's label has the last word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import ENGINE
from toolkit.rubrics.discussion.schemas import (
    ACCURATE,
    INACCURATE,
    NEEDS_REVIEW,
    REFERENCE_SCHEMA,
)
from toolkit.rubrics.discussion.text import (
    ASCII_SENTENCE,
    SENTENCE,
    all_ascii,
    alternation,
    ascii_classes,
    ascii_union,
    ascii_word_ended,
    mentions,
    pattern_union,
)

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec, MemoryCues

__all__ = ["memory_references"]


def memory_references(
    messages: pl.DataFrame,
    players: pl.DataFrame,
    votes: pl.DataFrame,
    spec: DiscussionSpec,
    labels: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Every reference to a past event, with its kind, actor, and verdict.

    A sentence matching one of ``spec.memory.reference_patterns`` is a reference. Its
    claim's kind comes from its verb: ``vote`` (checked against the votes: the actor
    voted for the object in an earlier round), ``said`` (the actor has an earlier
    message), ``stance`` (an earlier message of the actor names the object, or replies
    to them) or ``unverifiable``. The actor is the word before the verb (``I`` = the
    speaker, ``you`` = the player replied to); the object the word after it. A named
    round after the message's round is inaccurate; so is an actor that cannot be
    identified; an unverifiable claim needs review (left out of the score) unless a
    reviewer label (kind ``memory``) decides it.

    Returns:
        :data:`REFERENCE_SCHEMA` (game_id, reference_id, message_id, turn, round,
        speaker, sentence, kind, actor, object, referenced_round, verdict, reason).
    """
    m = spec.memory
    # Two queries, not 23: the references read and resolved in one, checked and given
    # their verdicts in another (a step costs more than the rows it reads here: issue 38).
    # the patterns compile: a rubric's own are checked when it is read (spec.py)
    ascii_text = all_ascii(messages["text"])
    sentences = _reference_sentences(messages.lazy(), m, ascii_text)
    names = (
        players.lazy()
        .select("game_id", pl.col("name"), pl.col("name").str.to_lowercase().alias("_lower"))
        .unique(["game_id", "_lower"], keep="first", maintain_order=True)
    )
    refs = (
        _resolve(
            _resolve(sentences, names, m, "_actor_word", "actor", ascii_text),
            names,
            m,
            "_object_word",
            "object",
            ascii_text,
        )
        # A speech claim has no object ("X said ..."): what follows the verb is the content.
        .with_columns(
            pl.when(pl.col("kind") == "said")
            .then(pl.lit(None, dtype=pl.String()))
            .otherwise("object")
            .alias("object")
        )
        .collect(engine=ENGINE)
    )
    # the objects named: ASCII names that start and end with a word character are looked
    # for as mentions reads them there (its ASCII path)
    ascii_words = ascii_text and ascii_word_ended(refs["object"])
    hits = pl.concat(
        [_vote_hits(refs, votes.lazy()), _said_hits(refs, messages.lazy(), ascii_words=ascii_words)]
    )
    checked = _verdicts(refs.lazy().join(hits, on=["game_id", "reference_id"], how="left"))
    if labels is not None and labels.height:
        checked = _reviewer_verdicts(checked, labels.lazy())
    return checked.select(pl.col(k).cast(t) for k, t in REFERENCE_SCHEMA.items()).collect(
        engine=ENGINE
    )


def _reference_sentences(messages: pl.LazyFrame, m: MemoryCues, ascii_text: bool) -> pl.LazyFrame:
    """One row per sentence that refers to a past event: its id (``message#index``), verb,
    claim kind, the words before and after the verb, and the round it names.

    With ``ascii_text`` (every message of ASCII characters only) the patterns' classes are
    spelt as their ASCII members (:func:`ascii_classes`); the reference patterns, when they
    read alike lower-cased (:func:`ascii_union`), the round named and, when the verbs and
    last-round words are ASCII too, those and the object's word are looked for lower-cased
    in the lower-cased sentence: the same matches, compiled in a fraction of the time."""
    fit = ascii_classes if ascii_text else str
    verbs = {"vote": m.vote_verbs, "said": m.speech_verbs, "stance": m.stance_verbs}
    words = [v for group in verbs.values() for v in group]
    all_verbs = alternation(words)
    kind_of: dict[str, str] = {v: k for k, group in verbs.items() for v in group}
    adverbs = r"(?:(?:also|then|both|just|had|has|have|already|all|openly|clearly|\w+ly)\s+)?"
    # a word's inner apostrophes: on ASCII text no typographic one to meet (and a class of
    # ASCII members compiles without an automaton of the characters beyond)
    quotes = "'" if ascii_text else "'’"
    actor = rf"([\w][\w{quotes}-]*)\s+{adverbs}"
    after_verb = rf")\s+(?:for\s+|against\s+|to\s+eliminate\s+)?([\w][\w{quotes}-]*)"
    # each expression whole in one step (issue 38: a step costs more than reading a few
    # dozen sentences twice)
    split = pl.col("text").str.extract_all(ASCII_SENTENCE if ascii_text else SENTENCE)
    sentence = pl.col("sentence")
    lowered = sentence.str.to_lowercase()
    if ascii_text:  # the references, and the round named, looked for lower-cased if alike
        ref_pattern, ref_lowered = ascii_union(m.reference_patterns)
        is_reference = (lowered if ref_lowered else sentence).str.contains(ref_pattern)
        named_round = lowered.str.extract(r"\bround ([0-9]+)\b", 1)
    else:
        is_reference = sentence.str.contains(pattern_union(m.reference_patterns))
        named_round = sentence.str.extract(r"(?i)\bround (\d+)\b", 1)
    if ascii_text and all(w.isascii() for w in [*words, *m.last_round_words]):
        # On ASCII text lower-casing changes one letter for one, and ``(?i)`` on an ASCII
        # word matches where the word lower-cased does in the text lower-cased: the verb is
        # read lower-cased anyway, and a pattern with no ``(?i)`` compiles in half the time.
        # So is the object's word (only ever read lower-cased: ``_resolve``).
        lower_verbs = alternation(w.lower() for w in words)
        verb = lowered.str.extract(rf"\b({lower_verbs})\b", 1)
        # the last-round words as literals (Aho-Corasick: no regex to compile); with none,
        # the empty literal matches every sentence, as the empty alternation did
        last = lowered.str.contains_any([w.lower() for w in m.last_round_words] or [""])
        object_word = lowered.str.extract(ascii_classes(r"\b(?:" + lower_verbs + after_verb), 1)
        # The actor's word as written: found in the lower-cased sentence after the shortest
        # text before it (anchored, the same leftmost match; a third of the compile time),
        # then cut from the sentence at the same place (ASCII: one character for one).
        found = lowered.str.extract_groups(
            ascii_classes(rf"^([\x00-\x7f]*?){actor}(?:{lower_verbs})\b")
        )
        actor_word = sentence.str.slice(
            found.struct.field("1").str.len_chars(), found.struct.field("2").str.len_chars()
        )
    else:
        verb = sentence.str.extract(rf"(?i)\b({all_verbs})\b", 1).str.to_lowercase()
        last = sentence.str.contains(f"(?i)(?:{alternation(m.last_round_words)})")
        object_word = sentence.str.extract(fit(r"(?i)\b(?:" + all_verbs + after_verb), 1)
        actor_word = sentence.str.extract(fit(rf"(?i){actor}(?:{all_verbs})\b"), 1)
    return (
        messages.select(
            "game_id",
            "message_id",
            "turn",
            "round",
            "speaker",
            "in_reply_to_player",
            split.alias("sentence"),
            pl.int_ranges(split.list.len()).alias("_idx"),
        )
        .explode("sentence", "_idx")
        .filter(is_reference)
        .with_columns(
            pl.col("sentence").str.strip_chars(),
            pl.format("{}#{}", "message_id", pl.col("_idx").cast(pl.String())).alias(
                "reference_id"
            ),
            verb.alias("_verb"),
            actor_word.alias("_actor_word"),
            object_word.alias("_object_word"),
            pl.coalesce(
                named_round.cast(pl.Int64),
                pl.when(last).then(pl.col("round") - 1).otherwise(pl.lit(None, dtype=pl.Int64)),
            ).alias("referenced_round"),
            verb.replace_strict(kind_of, default="unverifiable", return_dtype=pl.String()).alias(
                "kind"
            ),
        )
    )


def _resolve(
    frame: pl.LazyFrame,
    names: pl.LazyFrame,
    m: MemoryCues,
    word_col: str,
    out: str,
    ascii_text: bool,
) -> pl.LazyFrame:
    """The player ``word_col`` stands for, in ``out``: a player's name (possessive or
    not), the speaker (``self_words``) or the player replied to (``addressee_words``).
    With ``ascii_text`` (every message of ASCII characters only: no typographic
    apostrophe in a word) the possessive ``'s`` is cut as a suffix, with no pattern."""
    word = pl.col(word_col).str.to_lowercase().str.strip_chars("'’")
    name = word.str.strip_suffix("'s") if ascii_text else word.str.replace(r"['’]s$", "")
    staged = frame.join(  # the key read inline: one step fewer (issue 38)
        names,
        left_on=["game_id", name],
        right_on=["game_id", "_lower"],
        how="left",
        suffix="_names",
    )
    resolved = (
        pl.when(pl.col("name").is_not_null())
        .then(pl.col("name"))
        .when(word.is_in(list(m.self_words)))
        .then(pl.col("speaker"))
        .when(word.is_in(list(m.addressee_words)))
        .then(pl.col("in_reply_to_player"))
        .otherwise(pl.lit(None, dtype=pl.String()))
    )
    return staged.select(pl.exclude("game_id_names", "_lower", "name"), resolved.alias(out))


def _vote_hits(refs: pl.DataFrame, votes: pl.LazyFrame) -> pl.LazyFrame:
    """Vote claims: a vote by the actor (for the object, when one is named) before this
    round; ``_found`` names the earliest."""
    # four steps, not seven: the votes joined as they are (their round renamed by the join's
    # suffix; no other of their columns is one of the references'), the earliest round
    # named in the aggregation (issue 38)
    return (
        refs.lazy()
        .filter(pl.col("kind") == "vote")
        .join(
            votes,
            left_on=["game_id", "actor"],
            right_on=["game_id", "voter"],
            how="inner",
            suffix="_vote",
        )
        .filter(
            (pl.col("round_vote") < pl.col("round"))
            & (pl.col("object").is_null() | (pl.col("target") == pl.col("object")))
            & (
                pl.col("referenced_round").is_null()
                | (pl.col("round_vote") == pl.col("referenced_round"))
            )
        )
        .group_by("game_id", "reference_id")
        .agg(
            pl.format("vote of round {}", pl.col("round_vote").min().cast(pl.String())).alias(
                "_found"
            )
        )
    )


def _said_hits(refs: pl.DataFrame, messages: pl.LazyFrame, *, ascii_words: bool) -> pl.LazyFrame:
    """Said / stance claims: an earlier message of the actor (naming the object for
    stances); ``_found`` names the earliest. ``ascii_words``: every text is ASCII and every
    object an ASCII name that starts and ends with a word character
    (:func:`~.text.mentions`)."""
    # five steps, not seven: the references joined as they are (the messages' columns are
    # renamed apart from them), the earliest turn named in the aggregation (issue 38)
    supported = (pl.col("_turn") < pl.col("turn")) & (
        pl.col("referenced_round").is_null() | (pl.col("_round") == pl.col("referenced_round"))
    )
    if "stance" in refs["kind"].to_list():  # else every claim is a speech one: no object
        supported &= (
            (pl.col("kind") == "said")
            | pl.col("object").is_null()
            | mentions(pl.col("_text"), pl.col("object"), ascii_words=ascii_words)
            | (pl.col("_replied") == pl.col("object")).fill_null(False)
        )
    return (
        refs.lazy()
        .filter(pl.col("kind").is_in(["said", "stance"]))
        .join(
            messages.select(
                "game_id",
                pl.col("speaker").alias("actor"),
                pl.col("turn").alias("_turn"),
                pl.col("round").alias("_round"),
                pl.col("text").str.to_lowercase().alias("_text"),
                pl.col("in_reply_to_player").alias("_replied"),
            ),
            on=["game_id", "actor"],
            how="inner",
        )
        .filter(supported)
        .group_by("game_id", "reference_id")
        .agg(
            pl.format("message of turn {}", pl.col("_turn").min().cast(pl.String())).alias("_found")
        )
    )


def _verdicts(refs: pl.LazyFrame) -> pl.LazyFrame:
    """Each reference's ``verdict`` and the ``reason`` a reader sees."""
    round_missing = (pl.col("referenced_round") > pl.col("round")) | (
        pl.col("referenced_round") < 1
    )
    verdict = (
        pl.when(round_missing)
        .then(pl.lit(INACCURATE))
        .when(pl.col("kind") == "unverifiable")
        .then(pl.lit(NEEDS_REVIEW))
        .when(pl.col("actor").is_null())
        .then(pl.lit(INACCURATE))
        .when(pl.col("_found").is_not_null())
        .then(pl.lit(ACCURATE))
        .otherwise(pl.lit(INACCURATE))
    )
    claim = pl.format(
        "{} {}{}",
        pl.col("actor").fill_null("?"),
        pl.col("_verb").fill_null(""),
        pl.when(pl.col("object").is_not_null())
        .then(pl.format(" {}", pl.col("object")))
        .otherwise(pl.lit("")),
    )
    reason = (
        pl.when(round_missing)
        .then(pl.format("round {} has not happened", pl.col("referenced_round").cast(pl.String())))
        .when(pl.col("kind") == "unverifiable")
        .then(pl.lit("no checkable claim (no vote, speech or stance verb)"))
        .when(pl.col("actor").is_null())
        .then(
            pl.format(
                "actor cannot be identified ('{}')", pl.col("_actor_word").fill_null("nobody")
            )
        )
        .when(pl.col("_found").is_not_null())
        .then(pl.format("{}: matches {}", claim, pl.col("_found")))
        .when(pl.col("kind") == "vote")
        .then(pl.format("{}: no such vote before this round", claim))
        .otherwise(pl.format("{}: no earlier message supports it", claim))
    )
    return refs.with_columns(verdict.alias("verdict"), reason.alias("reason"))


def _reviewer_verdicts(refs: pl.LazyFrame, labels: pl.LazyFrame) -> pl.LazyFrame:
    """A reviewer's label (kind ``memory``, item = reference id) over the verdict; the
    reason says so and what it was."""
    lab = (
        labels.filter(pl.col("kind") == "memory")
        .unique(["game_id", "item_id"], keep="last", maintain_order=True)
        .select("game_id", pl.col("item_id").alias("reference_id"), pl.col("label").alias("_label"))
    )
    return (
        refs.join(lab, on=["game_id", "reference_id"], how="left")
        .with_columns(
            pl.when(pl.col("_label").is_not_null())
            .then(pl.when(pl.col("_label")).then(pl.lit(ACCURATE)).otherwise(pl.lit(INACCURATE)))
            .otherwise(pl.col("verdict"))
            .alias("verdict"),
            pl.when(pl.col("_label").is_not_null())
            .then(pl.format("labelled by a reviewer (was: {})", pl.col("reason")))
            .otherwise(pl.col("reason"))
            .alias("reason"),
        )
        .drop("_label")
    )
