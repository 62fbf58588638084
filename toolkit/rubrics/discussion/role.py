"""Metric 4, role consistency: which messages break their speaker's role, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import ENGINE
from toolkit.rubrics.discussion.text import (
    ASCII_QUESTION,
    ASCII_SENTENCE,
    QUESTION,
    SENTENCE,
    all_ascii,
    alternation,
    ascii_union,
    ascii_word_ended,
    cue_matches,
    cues_in,
    mentions,
    pattern_union,
    with_roles,
)

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec, RoleCues

__all__ = ["role_evidence"]

#: The cue columns a message is read into, dropped once its breaks are named.
_CUE_COLUMNS = ("_certain", "_reveal", "_deflect", "_defend", "_accuse", "_reason", "_breaks")


def role_evidence(
    messages: pl.DataFrame, players: pl.DataFrame, spec: DiscussionSpec
) -> pl.DataFrame:
    """Which messages break their speaker's role, and why.

    Mafia: accusing a fellow Mafia (a sentence naming a partner and an accusation cue),
    over-aggressive certainty, or revealing the role. Villager: deflecting, defending or
    accusing with no reason cue in the message. Cue lists: ``spec.role``.

    A stated absence of a reason (``spec.role.no_reason``: "we don't have solid
    evidence") is not a reason; with ``spec.role.questions_in_role`` a Villager's
    questions are left out of the accusation cues (questioning a suspect, "Why did you
    vote for Y?", is in role; "Why are you looking at me?" still deflects). A general
    statement about the game (``spec.role.general_statements``: "at least two of you are
    Mafia", "someone is lying") accuses nobody and is left out of the accusation cues.

    Returns:
        messages with ``role`` (from players), ``role_break`` and ``role_break_reason``.
    """
    cues = spec.role
    framed = with_roles(messages, players) if "role" not in messages.columns else messages
    # one query, not 13: the partners accused, the cues read and the breaks named in one
    # lazy frame (a step costs more than the rows it reads here: issue 38)
    # the patterns compile: a rubric's own are checked when it is read (spec.py)
    ascii_text = all_ascii(framed["text"])
    partners = _accused_partners(
        framed,
        players,
        cues,
        ascii_text=ascii_text,
        ascii_words=ascii_text and ascii_word_ended(players["name"]),
    )
    read = _read_cues(
        framed.lazy().join(partners, on=["game_id", "message_id"], how="left"), cues, ascii_text
    )
    has_breaks = pl.col("_breaks") != ""  # a break is named by a label: never empty
    return (
        read.with_columns(_break_reasons().alias("_breaks"))
        .with_columns(
            pl.when(pl.col("role").is_null())
            .then(pl.lit(None, dtype=pl.Boolean()))
            .otherwise(has_breaks)
            .alias("role_break"),
            pl.when(pl.col("role").is_null())
            .then(pl.lit("speaker's role unknown"))
            .when(has_breaks)
            .then(pl.col("_breaks"))
            .otherwise(pl.lit("in role"))
            .alias("role_break_reason"),
        )
        .drop(*_CUE_COLUMNS, "_accused_partners")
        .collect(engine=ENGINE)
    )


def _accused_partners(
    framed: pl.DataFrame,
    players: pl.DataFrame,
    cues: RoleCues,
    *,
    ascii_text: bool,
    ascii_words: bool,
) -> pl.LazyFrame:
    """Per Mafia message, the fellow Mafia it accuses (``_accused_partners``): sentences x
    partners, column-wise; a message accusing none has no row. With ``ascii_text`` (ASCII
    texts) the sentences are cut as :data:`~.text.ASCII_SENTENCE` cuts them; with
    ``ascii_words`` (ASCII texts, ASCII names that start and end with a word character)
    the names are looked for as :func:`~.text.mentions` reads them there."""
    partners = (
        players.lazy()
        .filter(pl.col("role") == "MAFIA")
        .select("game_id", pl.col("name").alias("partner"))
    )
    accusation = alternation(cues.accusation)
    # the cues as literals (Aho-Corasick): where their alternation matches, no regex compiled
    partner_accused = (
        mentions(pl.col("text"), pl.col("partner"), ascii_words=ascii_words)
        & pl.col("text").str.to_lowercase().str.contains_any(list(cues.accusation))
        if accusation
        else pl.lit(False)
    )
    return (
        framed.lazy()
        .filter(pl.col("role") == "MAFIA")
        .select(
            "game_id",
            "message_id",
            "speaker",
            pl.col("text").str.extract_all(ASCII_SENTENCE if ascii_text else SENTENCE),
        )
        .explode("text")
        .join(partners, on="game_id", how="inner")
        .filter((pl.col("partner") != pl.col("speaker")) & partner_accused)
        .group_by("game_id", "message_id", maintain_order=True)
        .agg(pl.col("partner").unique(maintain_order=True).alias("_accused_partners"))
    )


def _read_cues(framed: pl.LazyFrame, cues: RoleCues, ascii_text: bool) -> pl.LazyFrame:
    """The cue phrases of each message, one list column per cue family: accusations read
    without the questions (``questions_in_role``) and general statements, reasons without
    stated absences of one (``no_reason``).

    With ``ascii_text`` (every message of ASCII characters only) the patterns are run as
    :func:`ascii_union` spells them (their classes as ASCII members, and with no ``(?i)``
    in the text lower-cased when they read alike): the same matches, compiled in a
    fraction of the time."""
    accusation_text = pl.col("text")
    if cues.questions_in_role:
        accusation_text = accusation_text.str.replace_all(
            ASCII_QUESTION if ascii_text else QUESTION, " "
        )
    if cues.general_statements:
        accusation_text = _removed(accusation_text, cues.general_statements, ascii_text)
    reason_text = pl.col("text")
    if cues.no_reason:
        reason_text = _removed(reason_text, cues.no_reason, ascii_text)
    # one step: the cues read in the texts as expressions (the patterns compile: spec.py)
    return framed.with_columns(
        cue_matches("text", cues.mafia_over_certainty).alias("_certain"),
        cue_matches("text", cues.mafia_reveal).alias("_reveal"),
        cue_matches("text", cues.deflection).alias("_deflect"),
        cue_matches("text", cues.defence).alias("_defend"),
        cues_in(accusation_text, cues.accusation).alias("_accuse"),
        cues_in(reason_text, cues.reason).alias("_reason"),
    )


def _removed(text: pl.Expr, patterns: tuple[str, ...], ascii_text: bool) -> pl.Expr:
    """``text`` with each match of ``patterns`` (case-insensitive) replaced by a blank; on
    all-ASCII text the union as :func:`ascii_union` runs it, in the text lower-cased when
    it reads alike (the cues are read lower-cased anyway: :func:`cue_matches`)."""
    if not ascii_text:
        return text.str.replace_all(pattern_union(patterns), " ")
    pattern, lowered = ascii_union(patterns)
    return (text.str.to_lowercase() if lowered else text).str.replace_all(pattern, " ")


def _break_reasons() -> pl.Expr:
    """The role breaks of a message, each named with the cues that found it, joined by
    ``; `` (empty: no break)."""
    has_reason = pl.col("_reason").list.len() > 0
    mafia = pl.col("role") == "MAFIA"
    villager = pl.col("role") == "VILLAGER"

    def item(cond: pl.Expr, label: str, found: pl.Expr) -> pl.Expr:
        return pl.when(cond).then(pl.format("{} ({})", pl.lit(label), found.list.join(", ")))

    parts = [
        item(
            mafia & pl.col("_accused_partners").list.len().fill_null(0).gt(0),
            "Mafia accuses fellow Mafia",
            pl.col("_accused_partners"),
        ),
        item(
            mafia & (pl.col("_certain").list.len() > 0),
            "Mafia over-certain",
            pl.col("_certain"),
        ),
        item(mafia & (pl.col("_reveal").list.len() > 0), "Mafia reveals role", pl.col("_reveal")),
        item(
            villager & ~has_reason & (pl.col("_deflect").list.len() > 0),
            "Villager deflects without a reason",
            pl.col("_deflect"),
        ),
        item(
            villager & ~has_reason & (pl.col("_defend").list.len() > 0),
            "Villager defends without evidence",
            pl.col("_defend"),
        ),
        item(
            villager & ~has_reason & (pl.col("_accuse").list.len() > 0),
            "Villager accuses without a reason",
            pl.col("_accuse"),
        ),
    ]
    # joined as they are found: one string, no list built, dropped of nulls and joined
    return pl.concat_str(parts, separator="; ", ignore_nulls=True)
