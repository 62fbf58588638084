"""The discussion-quality rubric for LLM Mafia games: seven metrics, evidence, verdict.

Every metric is computed column-wise over the frames of a :class:`~toolkit.load.
discussion.Discussion` and keeps the evidence that decided it, per message or per
reference, in a :class:`DiscussionEvidence`. The numbers and cue lists come from a
:class:`~toolkit.rubrics.discussion_spec.DiscussionSpec` (rubric 1.1.0 by default).

Verdict per game: ``PASS`` when at least ``min_passed`` (5) of the seven metrics pass,
engagement >= 3.0 and the metadata cost is not over $3.00 (an unknown cost is shown as
unknown and does not decide, unless ``require_cost``); ``PENDING_RATING`` when only the
rating is missing to decide; ``FAIL`` otherwise, naming each reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from toolkit._show import Shows, Summary, plural
from toolkit.frames import DISCUSSION_LABELS_SCHEMA, DISCUSSION_RATINGS_SCHEMA
from toolkit.load.discussion import Discussion
from toolkit.load.ratings import LabelSource, RatingSource
from toolkit.ratings.agreement import transcript_agreement
from toolkit.rubrics.discussion_spec import (
    DEFAULT_DISCUSSION_SPEC,
    METRIC_KEYS,
    DiscussionSpec,
)
from toolkit.scorecard import NA, Dimension, Scorecard

if TYPE_CHECKING:
    from toolkit.rubrics.discussion_judge import JudgedDiscussion

__all__ = [
    "FAIL",
    "PASS",
    "PENDING",
    "PENDING_RATING",
    "DiscussionEvidence",
    "DiscussionReport",
    "coherence_evidence",
    "decide_verdict",
    "memory_references",
    "phrase_uses",
    "role_evidence",
    "score_discussion",
    "speaker_similarity",
    "strategic_evidence",
]

PASS, FAIL, PENDING, PENDING_RATING = "PASS", "FAIL", "PENDING", "PENDING_RATING"

#: Memory reference verdicts.
ACCURATE, INACCURATE, NEEDS_REVIEW = "accurate", "inaccurate", "needs review"

_WORD = r"[a-z0-9]+(?:['’-][a-z0-9]+)*"
_SENTENCE = r"[^.!?\n]+[.!?]*"

#: Per-message evidence of metrics 2-4.
MESSAGE_EVIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "message_id": pl.String(),
    "turn": pl.Int64(),
    "round": pl.Int64(),
    "speaker": pl.String(),
    "role": pl.String(),
    "text": pl.String(),
    "strategic": pl.Boolean(),
    "strategic_keywords": pl.List(pl.String()),
    "coherent": pl.Boolean(),
    "coherence_reason": pl.String(),
    "role_break": pl.Boolean(),
    "role_break_reason": pl.String(),
}

#: One row per reference to a past event (metric 1).
REFERENCE_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "reference_id": pl.String(),
    "message_id": pl.String(),
    "turn": pl.Int64(),
    "round": pl.Int64(),
    "speaker": pl.String(),
    "sentence": pl.String(),
    "kind": pl.String(),
    "actor": pl.String(),
    "object": pl.String(),
    "referenced_round": pl.Int64(),
    "verdict": pl.String(),
    "reason": pl.String(),
}

#: Pairwise speaker similarity (metric 5), both orders.
SIMILARITY_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "speaker": pl.String(),
    "other": pl.String(),
    "similarity": pl.Float64(),
}

#: Uses of each phrase per speaker (metric 6).
PHRASE_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "speaker": pl.String(),
    "phrase": pl.String(),
    "uses": pl.Int64(),
    "repeats": pl.Int64(),
    "turns": pl.List(pl.Int64()),
}

#: One row per game and metric.
METRIC_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "key": pl.String(),
    "name": pl.String(),
    "score": pl.Float64(),
    "threshold": pl.Float64(),
    "passed": pl.Boolean(),
    "status": pl.String(),
    "detail": pl.String(),
}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def _stem(word: str) -> str:
    """The inflection rule: a keyword matches any word starting with it, minus a final e."""
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _stem_regex(words: Iterable[str]) -> str:
    return r"(?i)\b(?:" + "|".join(re.escape(_stem(w)) for w in words) + r")[\w]*"


def _with_roles(messages: pl.DataFrame, players: pl.DataFrame) -> pl.DataFrame:
    roles = players.select("game_id", pl.col("name").alias("speaker"), "role").unique(
        ["game_id", "speaker"], keep="first", maintain_order=True
    )
    return messages.join(roles, on=["game_id", "speaker"], how="left")


def _names(text: pl.Expr, name: pl.Expr) -> pl.Expr:
    """Whether ``text`` names ``name`` as a whole word (case-insensitive); null name -> False."""
    escaped = name.str.replace_all(r"([.*+?^$()\[\]{}|\\])", r"\$1")
    pattern = pl.concat_str([pl.lit(r"(?i)(?:^|[^\w])"), escaped, pl.lit(r"(?:[^\w]|$)")])
    return text.str.contains(pattern).fill_null(False)


def _cues(column: str, cues: Sequence[str]) -> pl.Expr:
    """Matched cue phrases (lower-cased, unique) of ``column``."""
    if not cues:
        return pl.lit([], dtype=pl.List(pl.String()))
    return (
        pl.col(column)
        .str.to_lowercase()
        .str.extract_many(list(cues), ascii_case_insensitive=True, overlapping=True)
        .list.unique(maintain_order=True)
    )


# ---------------------------------------------------------------------------
# Metric 2: strategic depth
# ---------------------------------------------------------------------------


def strategic_evidence(messages: pl.DataFrame, spec: DiscussionSpec) -> pl.DataFrame:
    """Which messages carry a strategic keyword (or an inflection of one).

    Returns:
        messages with ``strategic_keywords`` (list of matched words, lower-cased) and
        ``strategic`` (bool).
    """
    words = [w for group in spec.strategic_keywords.values() for w in group]
    pattern = _stem_regex(words)
    return messages.with_columns(
        pl.col("text")
        .str.extract_all(pattern)
        .list.eval(pl.element().str.to_lowercase())
        .list.unique(maintain_order=True)
        .alias("strategic_keywords")
    ).with_columns((pl.col("strategic_keywords").list.len() > 0).alias("strategic"))


# ---------------------------------------------------------------------------
# Metric 3: conversation coherence
# ---------------------------------------------------------------------------


def coherence_evidence(messages: pl.DataFrame, spec: DiscussionSpec) -> pl.DataFrame:
    """Whether each message links to the previous ``coherence_window`` messages.

    A message after the first of its game is coherent when it has ``in_reply_to``, names
    a speaker of one of the previous messages, or shares ``coherence_min_shared_words``
    or more words of ``coherence_min_word_length`` or more letters with one of them.

    A game's first message has nothing before it to link to: with
    ``spec.coherence_counts_first`` (the rubric's formula, coherent / all messages) it
    counts as not coherent; without (rubric 1.0.0) it is left out (null).

    Returns:
        messages with ``coherent`` and ``coherence_reason``.
    """
    n = spec.coherence_window
    min_len = spec.coherence_min_word_length
    lower = pl.col("text").str.to_lowercase()
    frame = messages.with_columns(
        lower.str.extract_all(_WORD)
        .list.eval(pl.element().filter(pl.element().str.len_chars() >= min_len))
        .list.unique()
        .list.sort()
        .alias("_words"),
        pl.int_range(pl.len()).over("game_id").alias("_pos"),
    )
    named: list[pl.Expr] = []
    shared: list[pl.Expr] = []
    for k in range(1, n + 1):
        prev_speaker = pl.col("speaker").shift(k).over("game_id")
        prev_turn = pl.col("turn").shift(k).over("game_id")
        names_it = _names(pl.col("text"), prev_speaker)
        named.append(
            pl.when(names_it).then(
                pl.format("names {} (turn {})", prev_speaker, prev_turn.cast(pl.String()))
            )
        )
        common = pl.col("_words").list.set_intersection(pl.col("_words").shift(k).over("game_id"))
        shared.append(
            pl.when(common.list.len() >= spec.coherence_min_shared_words).then(
                pl.format(
                    "shares {} with turn {}",
                    common.list.sort().list.join(", "),
                    prev_turn.cast(pl.String()),
                )
            )
        )
    reply = pl.when(pl.col("in_reply_to").is_not_null()).then(
        pl.format("replies to {}", pl.coalesce("in_reply_to_player", "in_reply_to"))
    )
    reason = pl.coalesce(reply, *named, *shared)
    first = spec.coherence_counts_first
    return frame.with_columns(
        pl.when(pl.col("_pos") == 0)
        .then(pl.lit(False if first else None, dtype=pl.Boolean()))
        .otherwise(reason.is_not_null())
        .alias("coherent"),
        pl.when(pl.col("_pos") == 0)
        .then(
            pl.lit(
                "first message: nothing before it to link to"
                if first
                else "first message (not counted)"
            )
        )
        .otherwise(reason.fill_null(f"no link to the previous {n} messages"))
        .alias("coherence_reason"),
    ).drop("_words", "_pos")


# ---------------------------------------------------------------------------
# Metric 4: role consistency
# ---------------------------------------------------------------------------


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
    vote for Y?", is in role; "Why are you looking at me?" still deflects).

    Returns:
        messages with ``role`` (from players), ``role_break`` and ``role_break_reason``.
    """
    cues = spec.role
    framed = _with_roles(messages, players) if "role" not in messages.columns else messages
    # Mafia accusing a partner: sentences x partners, column-wise.
    partners = players.filter(pl.col("role") == "MAFIA").select(
        "game_id", pl.col("name").alias("partner")
    )
    accusation = _alternation(cues.accusation)
    partner_accused = (
        _names(pl.col("text"), pl.col("partner"))
        & pl.col("text").str.to_lowercase().str.contains(f"(?:{accusation})")
        if accusation
        else pl.lit(False)
    )
    sentences = (
        framed.filter(pl.col("role") == "MAFIA")
        .select("game_id", "message_id", "speaker", pl.col("text").str.extract_all(_SENTENCE))
        .explode("text")
        .join(partners, on="game_id", how="inner")
        .filter(pl.col("partner") != pl.col("speaker"))
        .filter(partner_accused)
        .group_by("game_id", "message_id", maintain_order=True)
        .agg(pl.col("partner").unique(maintain_order=True).alias("_accused_partners"))
    )
    framed = framed.join(sentences, on=["game_id", "message_id"], how="left")
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
    reasons = pl.concat_list([p.fill_null(pl.lit(None)) for p in parts]).list.drop_nulls()
    accusation_text = pl.col("text")
    if cues.questions_in_role:
        accusation_text = accusation_text.str.replace_all(r"[^.!?\n]*\?", " ")
    reason_text = pl.col("text")
    if cues.no_reason:
        absent = "(?i)(?:" + "|".join(f"(?:{p})" for p in cues.no_reason) + ")"
        reason_text = reason_text.str.replace_all(absent, " ")
    return (
        framed.with_columns(accusation_text.alias("_atext"), reason_text.alias("_rtext"))
        .with_columns(
            _cues("text", cues.mafia_over_certainty).alias("_certain"),
            _cues("text", cues.mafia_reveal).alias("_reveal"),
            _cues("text", cues.deflection).alias("_deflect"),
            _cues("text", cues.defence).alias("_defend"),
            _cues("_atext", cues.accusation).alias("_accuse"),
            _cues("_rtext", cues.reason).alias("_reason"),
        )
        .with_columns(reasons.alias("_breaks"))
        .with_columns(
            (pl.col("_breaks").list.len() > 0).alias("role_break"),
            pl.when(pl.col("role").is_null())
            .then(pl.lit("speaker's role unknown"))
            .when(pl.col("_breaks").list.len() > 0)
            .then(pl.col("_breaks").list.join("; "))
            .otherwise(pl.lit("in role"))
            .alias("role_break_reason"),
        )
        .with_columns(
            pl.when(pl.col("role").is_null())
            .then(pl.lit(None, dtype=pl.Boolean()))
            .otherwise(pl.col("role_break"))
            .alias("role_break")
        )
        .drop("_certain", "_reveal", "_deflect", "_defend", "_accuse", "_reason", "_breaks")
        .drop("_atext", "_rtext")
        .drop("_accused_partners")
    )


# ---------------------------------------------------------------------------
# Metric 1: memory accuracy
# ---------------------------------------------------------------------------


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
    ref_pattern = "(?i)(?:" + "|".join(f"(?:{p})" for p in m.reference_patterns) + ")"
    verbs = {"vote": m.vote_verbs, "said": m.speech_verbs, "stance": m.stance_verbs}
    all_verbs = _alternation([v for group in verbs.values() for v in group])
    kind_of: dict[str, str] = {v: k for k, group in verbs.items() for v in group}
    adverbs = r"(?:(?:also|then|both|just|had|has|have|already|all|openly|clearly|\w+ly)\s+)?"
    actor_re = rf"(?i)([\w][\w'’-]*)\s+{adverbs}(?:{all_verbs})\b"
    verb_re = rf"(?i)\b({all_verbs})\b"
    object_re = rf"(?i)\b(?:{all_verbs})\s+(?:for\s+|against\s+|to\s+eliminate\s+)?([\w][\w'’-]*)"
    last_round = _alternation(m.last_round_words)

    sentences = (
        messages.select(
            "game_id",
            "message_id",
            "turn",
            "round",
            "speaker",
            "in_reply_to_player",
            pl.col("text").str.extract_all(_SENTENCE).alias("sentence"),
        )
        .with_columns(pl.int_ranges(pl.col("sentence").list.len()).alias("_idx"))
        .explode("sentence", "_idx")
        .filter(pl.col("sentence").str.contains(ref_pattern))
        .with_columns(
            pl.col("sentence").str.strip_chars(),
            pl.format("{}#{}", "message_id", pl.col("_idx").cast(pl.String())).alias(
                "reference_id"
            ),
            pl.col("sentence").str.extract(verb_re, 1).str.to_lowercase().alias("_verb"),
            pl.col("sentence").str.extract(actor_re, 1).alias("_actor_word"),
            pl.col("sentence").str.extract(object_re, 1).alias("_object_word"),
            pl.coalesce(
                pl.col("sentence").str.extract(r"(?i)\bround (\d+)\b", 1).cast(pl.Int64),
                pl.when(pl.col("sentence").str.contains(f"(?i)(?:{last_round})"))
                .then(pl.col("round") - 1)
                .otherwise(pl.lit(None, dtype=pl.Int64)),
            ).alias("referenced_round"),
        )
        .with_columns(
            pl.col("_verb")
            .replace_strict(kind_of, default="unverifiable", return_dtype=pl.String())
            .alias("kind")
        )
    )
    names = players.select(
        "game_id", pl.col("name"), pl.col("name").str.to_lowercase().alias("_lower")
    ).unique(["game_id", "_lower"], keep="first", maintain_order=True)

    def resolve(frame: pl.DataFrame, word_col: str, out: str) -> pl.DataFrame:
        word = pl.col(word_col).str.to_lowercase().str.strip_chars("'’")
        staged = frame.with_columns(
            word.str.replace(r"['’]s$", "").alias("_lower"),
        ).join(names, on=["game_id", "_lower"], how="left")
        resolved = (
            pl.when(pl.col("name").is_not_null())
            .then(pl.col("name"))
            .when(word.is_in(list(m.self_words)))
            .then(pl.col("speaker"))
            .when(word.is_in(list(m.addressee_words)))
            .then(pl.col("in_reply_to_player"))
            .otherwise(pl.lit(None, dtype=pl.String()))
        )
        return staged.with_columns(resolved.alias(out)).drop("_lower", "name")

    refs = resolve(resolve(sentences, "_actor_word", "actor"), "_object_word", "object")
    # A speech claim has no object ("X said ..."): what follows the verb is the content.
    refs = refs.with_columns(
        pl.when(pl.col("kind") == "said")
        .then(pl.lit(None, dtype=pl.String()))
        .otherwise("object")
        .alias("object")
    )

    # Vote claims: a vote by the actor (for the object, when one is named) before this round.
    vote_hits = (
        refs.filter(pl.col("kind") == "vote")
        .select("reference_id", "game_id", "round", "actor", "object", "referenced_round")
        .join(
            votes.select(
                "game_id",
                pl.col("voter").alias("actor"),
                pl.col("target").alias("_target"),
                pl.col("round").alias("_vote_round"),
            ),
            on=["game_id", "actor"],
            how="inner",
        )
        .filter(
            (pl.col("_vote_round") < pl.col("round"))
            & (pl.col("object").is_null() | (pl.col("_target") == pl.col("object")))
            & (
                pl.col("referenced_round").is_null()
                | (pl.col("_vote_round") == pl.col("referenced_round"))
            )
        )
        .group_by("game_id", "reference_id")
        .agg(pl.col("_vote_round").min().alias("_r"))
        .select(
            "game_id",
            "reference_id",
            pl.format("vote of round {}", pl.col("_r").cast(pl.String())).alias("_found"),
        )
    )
    # Said / stance claims: an earlier message of the actor (naming the object for stances).
    said_hits = (
        refs.filter(pl.col("kind").is_in(["said", "stance"]))
        .select("reference_id", "game_id", "turn", "kind", "actor", "object", "referenced_round")
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
        .filter(
            (pl.col("_turn") < pl.col("turn"))
            & (
                pl.col("referenced_round").is_null()
                | (pl.col("_round") == pl.col("referenced_round"))
            )
            & (
                (pl.col("kind") == "said")
                | pl.col("object").is_null()
                | _names(pl.col("_text"), pl.col("object"))
                | (pl.col("_replied") == pl.col("object")).fill_null(False)
            )
        )
        .group_by("game_id", "reference_id")
        .agg(pl.col("_turn").min().alias("_t"))
        .select(
            "game_id",
            "reference_id",
            pl.format("message of turn {}", pl.col("_t").cast(pl.String())).alias("_found"),
        )
    )
    hits = pl.concat([vote_hits, said_hits])
    refs = refs.join(hits, on=["game_id", "reference_id"], how="left")

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
    refs = refs.with_columns(verdict.alias("verdict"), reason.alias("reason"))
    if labels is not None and labels.height:
        lab = (
            labels.filter(pl.col("kind") == "memory")
            .unique(["game_id", "item_id"], keep="last", maintain_order=True)
            .select(
                "game_id", pl.col("item_id").alias("reference_id"), pl.col("label").alias("_label")
            )
        )
        refs = (
            refs.join(lab, on=["game_id", "reference_id"], how="left")
            .with_columns(
                pl.when(pl.col("_label").is_not_null())
                .then(
                    pl.when(pl.col("_label")).then(pl.lit(ACCURATE)).otherwise(pl.lit(INACCURATE))
                )
                .otherwise(pl.col("verdict"))
                .alias("verdict"),
                pl.when(pl.col("_label").is_not_null())
                .then(pl.format("labelled by a reviewer (was: {})", pl.col("reason")))
                .otherwise(pl.col("reason"))
                .alias("reason"),
            )
            .drop("_label")
        )
    return refs.select(list(REFERENCE_SCHEMA)).cast(REFERENCE_SCHEMA)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Metric 5: personality diversity
# ---------------------------------------------------------------------------


def speaker_similarity(messages: pl.DataFrame) -> pl.DataFrame:
    """Sørensen-Dice similarity of speakers' joined texts on character bigrams.

    Whitespace is removed before taking bigrams; bigrams are counted as a multiset:
    ``2 * shared bigrams / (bigrams of a + bigrams of b)``.

    Returns:
        :data:`SIMILARITY_SCHEMA` (game_id, speaker, other, similarity), both orders.
    """
    joined = (
        messages.group_by("game_id", "speaker", maintain_order=True)
        .agg(pl.col("text").str.join(""))
        .with_columns(pl.col("text").str.replace_all(r"\s+", ""))
    )
    chars = (
        joined.with_columns(pl.col("text").str.split("").alias("_c"))
        .explode("_c")
        .with_columns(
            (pl.col("_c") + pl.col("_c").shift(-1).over("game_id", "speaker")).alias("bigram")
        )
        .drop_nulls("bigram")
        .group_by("game_id", "speaker", "bigram")
        .len("n")
    )
    totals = chars.group_by("game_id", "speaker").agg(pl.col("n").sum().alias("total"))
    shared = (
        chars.join(chars, on=["game_id", "bigram"], suffix="_o")
        .filter(pl.col("speaker") != pl.col("speaker_o"))
        .group_by("game_id", "speaker", pl.col("speaker_o").alias("other"))
        .agg(pl.min_horizontal("n", "n_o").sum().alias("shared"))
    )
    speakers = joined.select("game_id", "speaker")
    pairs = (
        speakers.join(speakers.rename({"speaker": "other"}), on="game_id")
        .filter(pl.col("speaker") != pl.col("other"))
        .join(shared, on=["game_id", "speaker", "other"], how="left")
        .join(totals, on=["game_id", "speaker"], how="left")
        .join(
            totals.rename({"speaker": "other", "total": "total_o"}),
            on=["game_id", "other"],
            how="left",
        )
        .with_columns(
            pl.when((pl.col("total").fill_null(0) + pl.col("total_o").fill_null(0)) > 0)
            .then(
                2.0
                * pl.col("shared").fill_null(0)
                / (pl.col("total").fill_null(0) + pl.col("total_o").fill_null(0))
            )
            .otherwise(0.0)
            .alias("similarity")
        )
    )
    return pairs.select(list(SIMILARITY_SCHEMA)).cast(SIMILARITY_SCHEMA)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Metric 6: anti-repetition
# ---------------------------------------------------------------------------


def phrase_uses(
    messages: pl.DataFrame, players: pl.DataFrame, spec: DiscussionSpec
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Uses of each ``phrase_words``-word phrase per speaker.

    Words are lower-cased tokens; a phrase holding a game term (``spec.game_terms``,
    with inflections) is left out. A player's name becomes the placeholder ``<name>``
    (``spec.phrase_names == "placeholder"``, a name of several words one placeholder),
    so "I think [name] is suspicious" said fifteen times is fifteen uses of the same
    phrases whoever is named; rubric 1.0.0 (``"exclude"``) left such phrases out.

    Returns:
        ``(phrases, counts)``: :data:`PHRASE_SCHEMA` rows (game_id, speaker, phrase,
        uses, repeats, turns), and per game ``phrases`` (counted uses) and ``repeats``.
    """
    k = spec.phrase_words
    name_words = (
        players.select(
            "game_id", pl.col("name").str.to_lowercase().str.extract_all(_WORD).alias("_w")
        )
        .explode("_w")
        .drop_nulls("_w")
        .unique()
        .with_columns(pl.lit(True).alias("_is_name"))
    )
    term_re = r"^(?:" + "|".join(re.escape(_stem(t)) for t in spec.game_terms) + r")"
    tokens = (
        messages.select(
            "game_id",
            "message_id",
            "turn",
            "speaker",
            pl.col("text").str.to_lowercase().str.extract_all(_WORD).alias("_w"),
        )
        .explode("_w")
        .drop_nulls("_w")
        .join(name_words, on=["game_id", "_w"], how="left", maintain_order="left")
        .with_columns(pl.col("_is_name").fill_null(False))
    )
    if spec.phrase_names == "placeholder":
        prev_name = pl.col("_is_name").shift(1).over("game_id", "message_id").fill_null(False)
        tokens = tokens.filter(~(pl.col("_is_name") & prev_name)).with_columns(
            pl.when(pl.col("_is_name")).then(pl.lit("<name>")).otherwise("_w").alias("_w"),
            (~pl.col("_is_name") & pl.col("_w").str.contains(term_re)).alias("_excluded"),
        )
    else:
        tokens = tokens.with_columns(
            (pl.col("_is_name") | pl.col("_w").str.contains(term_re)).alias("_excluded")
        )
    window = [pl.col("_w").shift(-i).over("game_id", "message_id") for i in range(k)]
    excluded = [pl.col("_excluded").shift(-i).over("game_id", "message_id") for i in range(k)]
    grams = (
        tokens.with_columns(
            pl.concat_str(window, separator=" ").alias("phrase"),
            pl.any_horizontal(excluded).alias("_drop"),
        )
        .drop_nulls("phrase")
        .filter(~pl.col("_drop"))
    )
    phrases = (
        grams.group_by("game_id", "speaker", "phrase", maintain_order=True)
        .agg(pl.len().alias("uses"), pl.col("turn").alias("turns"))
        .with_columns((pl.col("uses") - 1).alias("repeats"))
        .select(list(PHRASE_SCHEMA))
        .cast(PHRASE_SCHEMA)  # type: ignore[arg-type]
    )
    counts = phrases.group_by("game_id").agg(
        pl.col("uses").sum().alias("phrases"), pl.col("repeats").sum().alias("repeats")
    )
    return phrases, counts


# ---------------------------------------------------------------------------
# The verdict rule
# ---------------------------------------------------------------------------


def decide_verdict(
    statuses: Mapping[str, str],
    engagement: float | None,
    cost: float | None,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    names: Mapping[str, str] | None = None,
    *,
    require_cost: bool = False,
    engagement_by_judge: bool = False,
) -> tuple[str, list[str], int]:
    """The verdict of one game from its metric statuses, engagement and cost.

    Args:
        statuses: metric key -> ``PASS`` / ``FAIL`` / ``PENDING`` / ``N/A``.
        engagement: the mean rating, or None when no rating exists.
        cost: the metadata cost in dollars, or None when unknown.
        spec: the rubric data.
        names: metric key -> display name (the spec's names by default).
        require_cost: an unknown cost fails the game (``--require-cost``); by default
            it is reported as unknown and does not decide the verdict.
        engagement_by_judge: ``engagement`` is the judge's reading standing in for a
            missing human rating (``--engagement judge``); every reason naming it says so.

    Returns:
        ``(verdict, reasons, passed_count)``. FAIL names each reason; engagement below
        its threshold fails whatever else passed; cost over the budget fails as
        "caching broken". An unknown cost is not over the budget: the reasons say
        "cost unknown" and the verdict follows the other rules, unless
        ``require_cost``, where it fails. PENDING_RATING when the game could still
        pass and only the rating is missing.
    """
    names = names or {k: spec.metrics[k].name for k in spec.metrics}
    passed = sum(1 for s in statuses.values() if s == PASS)
    total = len(statuses)
    need = spec.min_passed
    eng_thr = spec.threshold("engagement")
    failing = [names.get(k, k) for k, s in statuses.items() if s == FAIL and k != "engagement"]
    absent = [names.get(k, k) for k, s in statuses.items() if s == NA]
    budget = f"${spec.max_cost_usd:.2f}"
    fails: list[str] = []
    if cost is None and require_cost:
        fails.append(f"cost unknown: the {budget} budget cannot be checked (cost required)")
    elif cost is not None and cost > spec.max_cost_usd:
        fails.append(f"cost ${cost:.2f} over {budget}: caching broken")
    by = " (the judge's, no human rating: --engagement judge)" if engagement_by_judge else ""
    if engagement is not None and engagement < eng_thr:
        fails.append(f"engagement {engagement:.2f} below {eng_thr:.1f}{by}")
    if passed + (1 if engagement is None else 0) < need:
        text = f"only {passed}/{total} metrics passed ({need} needed)"
        if engagement is None:
            text += "; even a good rating cannot make up for it"
        fails.append(text)
    if fails:  # decided whatever a rating would say
        if failing:
            fails.append("failed: " + ", ".join(failing))
        if absent:
            fails.append("no evidence: " + ", ".join(absent))
        return FAIL, fails, passed
    within = (
        f"cost unknown: the {budget} budget not checked"
        if cost is None
        else f"cost ${cost:.2f} <= {budget}"
    )
    if engagement is None:
        reasons = ["no engagement rating yet", f"{passed}/{total} metrics passed so far", within]
    else:
        reasons = [
            f"{passed}/{total} metrics passed",
            f"engagement {engagement:.2f} >= {eng_thr:.1f}{by}",
        ]
        reasons.append(within)
    if failing:
        reasons.append("failed: " + ", ".join(failing))
    if absent:
        reasons.append("no evidence: " + ", ".join(absent))
    return (PENDING_RATING if engagement is None else PASS), reasons, passed


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscussionEvidence:
    """Why each metric scored as it did.

    Attributes:
        messages: :data:`MESSAGE_EVIDENCE_SCHEMA`, one row per message (strategic and its
            keywords, coherent and why, role_break and why).
        references: :data:`REFERENCE_SCHEMA`, the memory references with their verdicts.
        similarity: :data:`SIMILARITY_SCHEMA`, speaker-pair similarity.
        phrases: :data:`PHRASE_SCHEMA`, phrase uses per speaker (repeats > 0 = repeated).
        ratings: the ratings used, :data:`~toolkit.frames.DISCUSSION_RATINGS_SCHEMA`.
    """

    messages: pl.DataFrame
    references: pl.DataFrame
    similarity: pl.DataFrame
    phrases: pl.DataFrame
    ratings: pl.DataFrame


@dataclass(frozen=True, repr=False)
class DiscussionReport(Shows):
    """The result of :func:`score_discussion` over a set of games.

    Attributes:
        scorecards: one :class:`~toolkit.Scorecard` per game, in load order.
        metrics: :data:`METRIC_SCHEMA`, one row per game and metric.
        evidence: the per-message / per-reference evidence.
        spec: the rubric data used.
        judged: the judge's readings shown beside the keyword and human ones (None
            without a judge).
        engagement_source: ``humans`` (engagement is people's ratings only) or ``judge``
            (a game without a rating takes the judge's reading, stamped on its card).
    """

    scorecards: list[Scorecard]
    metrics: pl.DataFrame
    evidence: DiscussionEvidence
    spec: DiscussionSpec = field(default=DEFAULT_DISCUSSION_SPEC)
    judged: JudgedDiscussion | None = None
    engagement_source: str = "humans"

    def _summary(self) -> Summary:
        verdicts: dict[str, int] = {}
        for card in self.scorecards:
            verdicts[card.verdict] = verdicts.get(card.verdict, 0) + 1
        return Summary(
            "DiscussionReport",
            f"{plural(len(self.scorecards), 'game')}, rubric {self.spec.rubric} "
            f"{self.spec.version}",
            tuple((f"{v}:", n) for v, n in verdicts.items()),
            columns=("game", "verdict", "passed"),
            rows=tuple(
                (c.subject, c.verdict, f"{c.meta.get('passed_count')}/{len(METRIC_KEYS)}")
                for c in self.scorecards
            ),
        )

    def scorecard(self, game_id: str) -> Scorecard:
        """The scorecard of one game."""
        for card in self.scorecards:
            if card.subject == game_id:
                return card
        raise KeyError(game_id)


def _ratings_frame(
    ratings: RatingSource | pl.DataFrame | None, game_ids: Sequence[str]
) -> pl.DataFrame:
    if ratings is None:
        return pl.DataFrame(schema=DISCUSSION_RATINGS_SCHEMA)
    frame = ratings if isinstance(ratings, pl.DataFrame) else ratings.ratings(game_ids)
    return frame.select(list(DISCUSSION_RATINGS_SCHEMA)).cast(DISCUSSION_RATINGS_SCHEMA)  # type: ignore[arg-type]


def _apply_labels(
    evidence: pl.DataFrame, labels: pl.DataFrame | None, kind: str, column: str, invert: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Reviewer labels over automatic ones; returns the frame and the overridden count."""
    if labels is None or labels.height == 0:
        return evidence, pl.DataFrame(
            schema={"game_id": pl.String(), f"{kind}_overridden": pl.UInt32()}
        )
    lab = (
        labels.filter(pl.col("kind") == kind)
        .unique(["game_id", "item_id"], keep="last", maintain_order=True)
        .select("game_id", pl.col("item_id").alias("message_id"), pl.col("label").alias("_label"))
    )
    new = ~pl.col("_label") if invert else pl.col("_label")
    out = evidence.join(lab, on=["game_id", "message_id"], how="left")
    changed = out.filter(pl.col("_label").is_not_null() & (new != pl.col(column)))
    counts = changed.group_by("game_id").agg(pl.len().alias(f"{kind}_overridden"))
    out = out.with_columns(
        pl.when(pl.col("_label").is_not_null()).then(new).otherwise(pl.col(column)).alias(column)
    ).drop("_label")
    return out, counts


def _signoffs(labels: pl.DataFrame | None) -> pl.DataFrame:
    """Per game, the reviewer's "fascinating to watch" sign-off (label kind
    ``fascinating``, item ``game``): True / False as labelled; no row when none."""
    schema = {"game_id": pl.String(), "signed_off": pl.Boolean()}
    if labels is None or labels.height == 0:
        return pl.DataFrame(schema=schema)
    return (
        labels.filter((pl.col("kind") == "fascinating") & (pl.col("item_id") == "game"))
        .unique(["game_id"], keep="last", maintain_order=True)
        .select("game_id", pl.col("label").alias("signed_off"))
        .cast(schema)  # type: ignore[arg-type]
    )


def score_discussion(
    discussion: Discussion,
    *,
    ratings: RatingSource | pl.DataFrame | None = None,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    labels: pl.DataFrame | None = None,
    require_cost: bool = False,
    judged: JudgedDiscussion | None = None,
    engagement: Literal["humans", "judge"] = "humans",
) -> DiscussionReport:
    """Score every game of ``discussion`` against the discussion rubric.

    Args:
        discussion: the loaded games (see :func:`toolkit.load_discussion`).
        ratings: engagement ratings (game_id, rater, score 1-5): a frame or any
            :class:`~toolkit.load.ratings.RatingSource` (a ratings file, later a store).
        spec: the rubric data; rubric 1.1.0 by default.
        labels: reviewer labels (game_id, kind, item_id, label) over the automatic ones:
            kind ``memory`` (item = reference id; True = accurate), ``strategic`` (item
            = message id; True = strategic), ``role`` (True = role-consistent),
            ``diversity`` (item = player name; True = a reviewer can tell the player
            apart by style, over the similarity measure), ``fascinating`` (item
            ``game``; the "fascinating to watch" sign-off the success check needs).
            When not given and ``ratings`` is also a label source (the ratings store),
            its labels.
        require_cost: a game whose cost is unknown (the database forms record none)
            FAILs; by default its cost is shown as unknown and does not decide.
        judged: the judge's readings (:func:`toolkit.rubrics.discussion_judge.
            judge_discussion`), each shown beside its metric as an informational row
            ``<key>_judge`` ("Engagement (judge)") that never decides the verdict.
        engagement: ``humans`` (default): engagement is people's ratings only, a game
            without one is PENDING_RATING. ``judge``: a game without a human rating takes
            the judge's engagement reading, stamped on its card (title, engagement
            detail, verdict reasons, a warning, ``meta["engagement_source"]``); human
            ratings, where there are any, still decide.

    Returns:
        A :class:`DiscussionReport`: a scorecard per game, the metrics frame (game_id,
        key, name, score, threshold, passed, status, detail) and the evidence.

    Raises:
        ValueError: ``engagement="judge"`` without ``judged`` engagement readings.
    """
    if engagement not in ("humans", "judge"):
        raise ValueError(f"engagement must be 'humans' or 'judge', not {engagement!r}")
    if engagement == "judge" and (
        judged is None or judged.readings.filter(pl.col("key") == "engagement").height == 0
    ):
        raise ValueError("engagement='judge' needs the judge's engagement readings (judged=)")
    if labels is None and isinstance(ratings, LabelSource):
        labels = ratings.labels([str(g) for g in discussion.games["game_id"].to_list()])
    if labels is not None:
        labels = labels.select(list(DISCUSSION_LABELS_SCHEMA)).cast(DISCUSSION_LABELS_SCHEMA)  # type: ignore[arg-type]
    games = discussion.games
    game_ids = [str(g) for g in games["game_id"].to_list()]
    msgs = discussion.messages
    ev = role_evidence(
        coherence_evidence(strategic_evidence(msgs, spec), spec), discussion.players, spec
    )
    ev, strat_over = _apply_labels(ev, labels, "strategic", "strategic", invert=False)
    ev, role_over = _apply_labels(ev, labels, "role", "role_break", invert=True)
    ev = ev.select(list(MESSAGE_EVIDENCE_SCHEMA)).cast(MESSAGE_EVIDENCE_SCHEMA)  # type: ignore[arg-type]
    refs = memory_references(msgs, discussion.players, discussion.votes, spec, labels)
    mem_over = (
        refs.filter(pl.col("reason").str.starts_with("labelled by a reviewer"))
        .group_by("game_id")
        .agg(pl.len().alias("memory_overridden"))
    )
    sim = speaker_similarity(msgs)
    phrases, phrase_counts = phrase_uses(msgs, discussion.players, spec)
    rating_rows = _ratings_frame(ratings, game_ids)

    base = games.select("game_id", "cost_usd", "cache_hit_rate")

    # Per-game tallies, column-wise.
    msg_stats = ev.group_by("game_id").agg(
        pl.len().alias("messages"),
        pl.col("strategic").sum().alias("strategic"),
        pl.col("coherent").is_not_null().sum().alias("coherence_n"),
        pl.col("coherent").sum().alias("coherent"),
        pl.col("role_break").is_not_null().sum().alias("role_n"),
        pl.col("role_break").sum().alias("breaks"),
        pl.col("role_break").is_null().sum().alias("role_unknown"),
    )
    ref_stats = refs.group_by("game_id").agg(
        (pl.col("verdict") == ACCURATE).sum().alias("accurate"),
        (pl.col("verdict") == INACCURATE).sum().alias("inaccurate"),
        (pl.col("verdict") == NEEDS_REVIEW).sum().alias("review"),
    )
    thr = spec.similarity_threshold
    speakers = (
        sim.group_by("game_id", "speaker")
        .agg(pl.col("similarity").max().alias("_max"))
        .with_columns((pl.col("_max") < thr).alias("_unique"))
        .rename({"speaker": "message_id"})  # _apply_labels keys items by message_id
    )
    speakers, div_over = _apply_labels(speakers, labels, "diversity", "_unique", invert=False)
    div_stats = speakers.group_by("game_id").agg(
        pl.len().alias("speakers"),
        pl.col("_unique").sum().alias("unique"),
        pl.col("_max").max().alias("max_similarity"),
    )
    signoffs = _signoffs(labels)
    eng_stats = transcript_agreement(rating_rows).select(
        pl.col("transcript_id").alias("game_id"),
        pl.col("mean").alias("engagement"),
        pl.col("n").alias("ratings"),
    )
    table = (
        base.join(msg_stats, on="game_id", how="left")
        .join(ref_stats, on="game_id", how="left")
        .join(div_stats, on="game_id", how="left")
        .join(phrase_counts, on="game_id", how="left")
        .join(eng_stats, on="game_id", how="left")
        .join(strat_over, on="game_id", how="left")
        .join(role_over, on="game_id", how="left")
        .join(mem_over, on="game_id", how="left")
        .join(div_over, on="game_id", how="left")
        .join(signoffs, on="game_id", how="left")
    )
    table = table.with_columns(
        pl.when(pl.col("engagement").is_not_null())
        .then(pl.lit("humans"))
        .otherwise(pl.lit(None, dtype=pl.String()))
        .alias("engagement_source")
    )
    if engagement == "judge" and judged is not None:
        by_judge = judged.readings.filter(pl.col("key") == "engagement").select(
            "game_id", pl.col("value").alias("_judge_engagement")
        )
        table = (
            table.join(by_judge, on="game_id", how="left")
            .with_columns(
                pl.when(pl.col("engagement").is_null() & pl.col("_judge_engagement").is_not_null())
                .then(pl.lit("judge"))
                .otherwise(pl.col("engagement_source"))
                .alias("engagement_source"),
                pl.coalesce("engagement", "_judge_engagement").alias("engagement"),
            )
            .drop("_judge_engagement")
        )
    count_cols = [
        "messages",
        "strategic",
        "coherence_n",
        "coherent",
        "role_n",
        "breaks",
        "role_unknown",
        "accurate",
        "inaccurate",
        "review",
        "speakers",
        "unique",
        "phrases",
        "repeats",
        "ratings",
        "strategic_overridden",
        "role_overridden",
        "memory_overridden",
        "diversity_overridden",
    ]
    table = table.with_columns(pl.col(c).fill_null(0).cast(pl.Int64) for c in count_cols)
    t = spec.threshold
    checked = pl.col("accurate") + pl.col("inaccurate")
    scores = table.with_columns(
        pl.when(checked > 0)
        .then(pl.col("accurate") / checked)
        .otherwise(1.0)
        .alias("memory_accuracy"),
        pl.when(pl.col("messages") > 0)
        .then(pl.col("strategic") / pl.col("messages"))
        .alias("strategic_depth"),
        pl.when(pl.col("coherence_n") > 0)
        .then(pl.col("coherent") / pl.col("coherence_n"))
        .alias("coherence"),
        pl.when(pl.col("role_n") > 0)
        .then(1.0 - pl.col("breaks") / pl.col("role_n"))
        .alias("role_consistency"),
        pl.when(pl.col("speakers") >= 2)
        .then(pl.col("unique") / pl.col("speakers"))
        .alias("personality_diversity"),
        pl.when(pl.col("phrases") > 0)
        .then(1.0 - pl.col("repeats") / pl.col("phrases"))
        .alias("anti_repetition"),
        pl.col("engagement"),
    )

    def s(e: pl.Expr) -> pl.Expr:
        return e.cast(pl.String())

    def detail(key: str) -> pl.Expr:
        c = pl.col
        if key == "memory_accuracy":
            review = pl.when(c("review") > 0).then(
                pl.format("; {} need review (not scored)", s(c("review")))
            )
            return (
                pl.when(checked > 0)
                .then(
                    pl.format(
                        "{}/{} references accurate{}",
                        s(c("accurate")),
                        s(checked),
                        review.otherwise(pl.lit("")),
                    )
                )
                .otherwise(
                    pl.format(
                        "1.0 by 2L's rule: no checkable references to past events{}",
                        review.otherwise(pl.lit("")),
                    )
                )
            )
        if key == "strategic_depth":
            return (
                pl.when(c("messages") > 0)
                .then(pl.format("{}/{} messages strategic", s(c("strategic")), s(c("messages"))))
                .otherwise(pl.lit("N/A: no messages"))
            )
        if key == "coherence":
            return (
                pl.when(c("coherence_n") > 0)
                .then(
                    pl.format(
                        "{}/{} messages {} the previous {}",
                        s(c("coherent")),
                        s(c("coherence_n")),
                        pl.lit(
                            "link to one of"
                            if spec.coherence_counts_first
                            else "after the first link to"
                        ),
                        pl.lit(str(spec.coherence_window)),
                    )
                )
                .otherwise(pl.lit("N/A: fewer than 2 messages"))
            )
        if key == "role_consistency":
            unknown = pl.when(c("role_unknown") > 0).then(
                pl.format("; {} of unknown role not counted", s(c("role_unknown")))
            )
            return (
                pl.when(c("role_n") > 0)
                .then(
                    pl.format(
                        "{} role breaks in {} messages{}",
                        s(c("breaks")),
                        s(c("role_n")),
                        unknown.otherwise(pl.lit("")),
                    )
                )
                .otherwise(pl.lit("N/A: no messages by players of known role"))
            )
        if key == "personality_diversity":
            return (
                pl.when(c("speakers") >= 2)
                .then(
                    pl.format(
                        "{}/{} speakers unique (max similarity {}){}",
                        s(c("unique")),
                        s(c("speakers")),
                        s(c("max_similarity").round(3)),
                        pl.when(c("diversity_overridden") > 0)
                        .then(pl.format("; {} decided by a reviewer", s(c("diversity_overridden"))))
                        .otherwise(pl.lit("")),
                    )
                )
                .otherwise(pl.lit("N/A: fewer than 2 speakers"))
            )
        if key == "anti_repetition":
            return (
                pl.when(c("phrases") > 0)
                .then(
                    pl.format(
                        "{} repeats in {} {}-word phrases",
                        s(c("repeats")),
                        s(c("phrases")),
                        pl.lit(str(spec.phrase_words)),
                    )
                )
                .otherwise(pl.lit("N/A: no phrases to compare"))
            )
        # engagement
        return (
            pl.when(c("ratings") > 0)
            .then(
                pl.format("mean {} of {} rating(s)", s(c("engagement").round(2)), s(c("ratings")))
            )
            .when(c("engagement_source") == "judge")
            .then(
                pl.format(
                    "judge's {} stands in (no human rating; --engagement judge)",
                    s(c("engagement").round(2)),
                )
            )
            .otherwise(pl.lit("pending: no rating yet"))
        )

    long = pl.concat(
        [
            scores.select(
                "game_id",
                pl.lit(key).alias("key"),
                pl.lit(spec.metrics[key].name).alias("name"),
                pl.col(key).cast(pl.Float64).alias("score"),
                pl.lit(t(key)).alias("threshold"),
                (pl.col(key) >= t(key)).alias("passed"),
                pl.when(pl.col(key).is_null())
                .then(pl.lit(PENDING if key == "engagement" else NA))
                .when(pl.col(key) >= t(key))
                .then(pl.lit(PASS))
                .otherwise(pl.lit(FAIL))
                .alias("status"),
                detail(key).alias("detail"),
            )
            for key in METRIC_KEYS
        ]
    )
    order = {g: i for i, g in enumerate(game_ids)}
    long = (
        long.with_columns(
            pl.col("game_id").replace_strict(order, return_dtype=pl.Int64).alias("_g"),
            pl.col("key")
            .replace_strict({k: i for i, k in enumerate(METRIC_KEYS)}, return_dtype=pl.Int64)
            .alias("_k"),
        )
        .sort("_g", "_k")
        .drop("_g", "_k")
        .cast(METRIC_SCHEMA)  # type: ignore[arg-type]
    )
    cards = [_card(gid, long, table, discussion, spec, require_cost, judged) for gid in game_ids]
    evidence = DiscussionEvidence(
        messages=ev, references=refs, similarity=sim, phrases=phrases, ratings=rating_rows
    )
    return DiscussionReport(
        scorecards=cards,
        metrics=long,
        evidence=evidence,
        spec=spec,
        judged=judged,
        engagement_source=engagement,
    )


def _card(
    gid: str,
    metrics: pl.DataFrame,
    table: pl.DataFrame,
    discussion: Discussion,
    spec: DiscussionSpec,
    require_cost: bool = False,
    judged: JudgedDiscussion | None = None,
) -> Scorecard:
    rows = metrics.filter(pl.col("game_id") == gid)
    facts: dict[str, Any] = table.filter(pl.col("game_id") == gid).row(0, named=True)
    statuses = {r["key"]: r["status"] for r in rows.iter_rows(named=True)}
    engagement = facts["engagement"]
    by_judge = facts["engagement_source"] == "judge"
    cost = facts["cost_usd"]
    verdict, reasons, passed = decide_verdict(
        statuses, engagement, cost, spec, require_cost=require_cost, engagement_by_judge=by_judge
    )
    if facts["messages"] == 0:
        reasons.insert(0, "no discussion messages: nothing to score")
    dims: list[Dimension] = []
    informational: list[str] = []
    for r in rows.iter_rows(named=True):
        green, red = f">= {_thr(r['threshold'])}", f"< {_thr(r['threshold'])}"
        dims.append(
            Dimension(
                key=r["key"],
                name=r["name"],
                value=r["score"],
                status=r["status"],
                detail=r["detail"],
                green=green,
                red=red,
            )
        )
        reading = judged.reading(gid, r["key"]) if judged is not None else None
        if reading is not None:  # the judge's reading, beside the metric, never deciding
            value = reading["value"]
            status = NA if value is None else PASS if value >= r["threshold"] else FAIL
            informational.append(f"{r['key']}_judge")
            dims.append(
                Dimension(
                    key=f"{r['key']}_judge",
                    name=f"{r['name']} (judge)",
                    value=value,
                    status=status,
                    detail=reading["detail"],
                    green=green,
                    red=red,
                )
            )
    game = discussion.games.filter(pl.col("game_id") == gid).row(0, named=True)
    rounds = discussion.messages.filter(pl.col("game_id") == gid)["round"].n_unique()
    warnings = [w for w in discussion.warnings if gid in w or w.startswith(game["source_file"])]
    if facts["strategic_overridden"] or facts["role_overridden"]:
        warnings.append(
            f"reviewer labels overrode {facts['strategic_overridden']} strategic and "
            f"{facts['role_overridden']} role label(s)"
        )
    if facts["memory_overridden"]:
        warnings.append(f"reviewer labels decided {facts['memory_overridden']} memory reference(s)")
    if facts["diversity_overridden"]:
        warnings.append(
            f"reviewer labels overrode {facts['diversity_overridden']} speaker(s)' "
            "personality diversity"
        )
    if by_judge:
        warnings.append(
            "engagement by the judge (--engagement judge): no person rated this game; the "
            "verdict rests on the judge's 1-5 reading, not on people's"
        )
    cost_text = "cost unknown" if cost is None else f"${cost:.2f}"
    round_word = "round" if rounds == 1 else "rounds"
    stamp = " · engagement: judge" if by_judge else ""
    return Scorecard(
        rubric="discussion",
        rubric_version=spec.version,
        subject=gid,
        title=f"Game {gid} · {facts['messages']} messages, {rounds} {round_word} · "
        f"{cost_text}{stamp}",
        verdict=verdict,
        verdict_reason="; ".join(reasons),
        dimensions=Scorecard.dimensions_frame(gid, dims),
        warnings=tuple(warnings),
        meta={
            "game_id": gid,
            "passed_count": passed,
            "reasons": reasons,
            "cost": cost,
            "cost_required": require_cost,
            "cache_hit_rate": facts["cache_hit_rate"],
            "engagement": engagement,
            "ratings": facts["ratings"],
            "labels_overridden": {
                k: facts[f"{k}_overridden"] for k in ("strategic", "role", "memory", "diversity")
            },
            "signed_off": facts["signed_off"],
            "thresholds": {k: spec.threshold(k) for k in METRIC_KEYS},
            "source_file": game["source_file"],
            **(
                {
                    "informational": informational,
                    "engagement_source": facts["engagement_source"],
                    "judge": judged.judge,
                    "judge_rubric_version": judged.spec.version,
                }
                if judged is not None
                else {}
            ),
        },
    )


def _thr(value: float) -> str:
    return f"{value:.2f}" if value < 1 else f"{value:.1f}"
