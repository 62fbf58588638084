"""Algorithmic persona evidence (no LLM): repetition, self-similarity, vocabulary.

Everything here is Polars expressions over the messages frame: words are lower-cased
runs of letters, digits and apostrophes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from toolkit.frames import (
    PERSONA_AGENT_EVIDENCE_SCHEMA,
    PERSONA_MESSAGE_EVIDENCE_SCHEMA,
    PERSONA_VOCAB_OVERLAP_SCHEMA,
)
from toolkit.summary import Shows, Summary, plural

_WORD = r"[a-z0-9']+"


@dataclass(frozen=True, repr=False)
class PersonaEvidence(Shows):
    """Supplementary evidence shown beside the judge's scores.

    Attributes:
        messages: schema :data:`toolkit.frames.PERSONA_MESSAGE_EVIDENCE_SCHEMA` (run,
            agent_id, step, text, tokens, max_jaccard_prev5, similar_flag); the Jaccard
            value is null for an agent's first message (nothing to compare with).
        agents: schema :data:`toolkit.frames.PERSONA_AGENT_EVIDENCE_SCHEMA` (run,
            agent_id, messages, tokens, distinct_tokens, type_token_ratio,
            mean_tokens_per_message, repeated_ngram_share_last5,
            flagged_similar_messages, mean_vocab_overlap).
        overlap: schema :data:`toolkit.frames.PERSONA_VOCAB_OVERLAP_SCHEMA` (run,
            agent_a, agent_b, shared, union, jaccard), one row per pair of agents.
    """

    messages: pl.DataFrame
    agents: pl.DataFrame
    overlap: pl.DataFrame

    def only(self, agents: Sequence[str]) -> PersonaEvidence:
        """The evidence of ``agents`` only (pairs where both are among them)."""
        keep = list(agents)
        return PersonaEvidence(
            messages=self.messages.filter(pl.col("agent_id").is_in(keep)),
            agents=self.agents.filter(pl.col("agent_id").is_in(keep)),
            overlap=self.overlap.filter(
                pl.col("agent_a").is_in(keep) & pl.col("agent_b").is_in(keep)
            ),
        )

    def _summary(self) -> Summary:
        flagged = self.messages["similar_flag"].fill_null(False).sum()
        return Summary(
            "PersonaEvidence",
            plural(self.agents.height, "agent"),
            (("messages", self.messages.height), ("flagged similar", flagged)),
        )


def _actions(messages: pl.DataFrame) -> pl.DataFrame:
    return (
        messages.filter(pl.col("kind") == "action")
        .sort("step")
        .select("run", "agent_id", "step", "text")
        .with_columns(
            pl.col("text").str.to_lowercase().str.extract_all(_WORD).alias("words"),
            pl.int_range(pl.len()).over("agent_id").alias("i"),
        )
    )


def persona_evidence(
    messages: pl.DataFrame,
    *,
    last_messages: int = 5,
    ngram: int = 3,
    similarity_window: int = 5,
    flag_above: float = 0.6,
) -> PersonaEvidence:
    """Compute repetition, self-similarity and vocabulary evidence per agent.

    Args:
        messages: a chat messages frame (:data:`toolkit.frames.CHAT_MESSAGES_SCHEMA`);
            only actions count.
        last_messages: how many of an agent's last messages the n-gram repetition uses.
        ngram: the n of the n-grams (word n-grams within one message).
        similarity_window: each message is compared with this many previous messages of
            the same agent.
        flag_above: a message whose highest Jaccard similarity exceeds this is flagged.

    Returns:
        :class:`PersonaEvidence`. ``repeated_ngram_share_last5`` is ``1 - distinct /
        total`` n-grams over the agent's last messages (0: no n-gram repeats); null when
        those messages hold no n-gram.
    """
    acts = _actions(messages)
    run = acts["run"][0] if acts.height else None
    words = (
        acts.select("agent_id", "i", "words")
        .explode("words")
        .drop_nulls("words")
        .unique(["agent_id", "i", "words"])
    )
    message_evidence = _message_evidence(acts, words, similarity_window, flag_above)
    grams = _repeated_ngrams(acts, last_messages, ngram)
    overlap, vocab_sizes = _vocabulary_overlap(acts, words, run)
    agents = _agent_evidence(message_evidence, vocab_sizes, grams, overlap)
    return PersonaEvidence(messages=message_evidence, agents=agents, overlap=overlap)


def _message_evidence(
    acts: pl.DataFrame, words: pl.DataFrame, similarity_window: int, flag_above: float
) -> pl.DataFrame:
    """Each message's tokens and its highest Jaccard similarity with the agent's previous
    ``similarity_window`` messages, flagged above ``flag_above``."""
    sizes = words.group_by("agent_id", "i").agg(pl.len().alias("size"))
    # each message paired with the agent's previous ``similarity_window`` messages: a
    # linear number of pairs, whatever the vocabulary
    window = (
        acts.select("agent_id", "i")
        .with_columns(pl.int_ranges(pl.col("i") - similarity_window, pl.col("i")).alias("i_prev"))
        .explode("i_prev")
        .filter(pl.col("i_prev") >= 0)
    )
    shared_words = (
        window.join(words, on=["agent_id", "i"])
        .join(
            words.rename({"i": "i_prev"}),
            on=["agent_id", "i_prev", "words"],
            how="semi",
        )
        .group_by("agent_id", "i", "i_prev")
        .agg(pl.len().alias("shared"))
    )
    pairs = (
        window.join(shared_words, on=["agent_id", "i", "i_prev"], how="left")
        .join(sizes, on=["agent_id", "i"], how="left")
        .join(
            sizes.rename({"i": "i_prev", "size": "size_prev"}),
            on=["agent_id", "i_prev"],
            how="left",
        )
        .with_columns(pl.col("shared", "size", "size_prev").fill_null(0))
        .with_columns((pl.col("size") + pl.col("size_prev") - pl.col("shared")).alias("union"))
        .with_columns(
            pl.when(pl.col("union") > 0)
            .then(pl.col("shared") / pl.col("union"))
            .otherwise(0.0)
            .alias("jaccard")
        )
        .group_by("agent_id", "i")
        .agg(pl.col("jaccard").max().alias("max_jaccard_prev5"))
    )
    message_evidence = (
        acts.join(pairs, on=["agent_id", "i"], how="left")
        .with_columns(
            pl.col("words").list.len().cast(pl.Int64).alias("tokens"),
            pl.when(pl.col("i") > 0).then(pl.col("max_jaccard_prev5")).alias("max_jaccard_prev5"),
        )
        .with_columns((pl.col("max_jaccard_prev5") > flag_above).alias("similar_flag"))
        .select(list(PERSONA_MESSAGE_EVIDENCE_SCHEMA))
        .cast(PERSONA_MESSAGE_EVIDENCE_SCHEMA)  # type: ignore[arg-type]
    )
    return message_evidence


def _repeated_ngrams(acts: pl.DataFrame, last_messages: int, ngram: int) -> pl.DataFrame:
    """Per agent, the share of repeated word n-grams over its last messages."""
    last = acts.filter(pl.col("i") >= pl.col("i").max().over("agent_id") - (last_messages - 1))
    grams = (
        last.select("agent_id", "i", "words")
        .explode("words")
        .drop_nulls("words")
        .with_columns(
            pl.concat_str(
                [pl.col("words").shift(-k).over("agent_id", "i") for k in range(ngram)],
                separator=" ",
            ).alias("gram")
        )
        .drop_nulls("gram")
        .group_by("agent_id")
        .agg(
            pl.len().alias("grams"),
            pl.col("gram").n_unique().alias("distinct_grams"),
        )
        .with_columns(
            (1.0 - pl.col("distinct_grams") / pl.col("grams")).alias("repeated_ngram_share_last5")
        )
        .select("agent_id", "repeated_ngram_share_last5")
    )
    return grams


def _vocabulary_overlap(
    acts: pl.DataFrame, words: pl.DataFrame, run: str | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The vocabulary shared by each pair of agents, and each agent's vocabulary size."""
    vocab = words.select("agent_id", "words").unique()
    vocab_sizes = vocab.group_by("agent_id").agg(pl.len().alias("distinct_tokens"))
    agents_list = acts.select("agent_id").unique()
    all_pairs = agents_list.join(agents_list, how="cross", suffix="_b").filter(
        pl.col("agent_id") < pl.col("agent_id_b")
    )
    shared = (
        vocab.join(vocab, on="words", suffix="_b")
        .filter(pl.col("agent_id") < pl.col("agent_id_b"))
        .group_by("agent_id", "agent_id_b")
        .agg(pl.len().alias("shared"))
    )
    overlap = (
        all_pairs.join(shared, on=["agent_id", "agent_id_b"], how="left")
        .with_columns(pl.col("shared").fill_null(0))
        .join(vocab_sizes, on="agent_id", how="left")
        .join(
            vocab_sizes.rename({"agent_id": "agent_id_b", "distinct_tokens": "size_b"}),
            on="agent_id_b",
            how="left",
        )
        .with_columns(
            (
                pl.col("distinct_tokens").fill_null(0)
                + pl.col("size_b").fill_null(0)
                - pl.col("shared")
            ).alias("union")
        )
        .with_columns(
            pl.when(pl.col("union") > 0).then(pl.col("shared") / pl.col("union")).alias("jaccard"),
            pl.lit(run, pl.String()).alias("run"),
        )
        .rename({"agent_id": "agent_a", "agent_id_b": "agent_b"})
        .select(list(PERSONA_VOCAB_OVERLAP_SCHEMA))
        .cast(PERSONA_VOCAB_OVERLAP_SCHEMA)  # type: ignore[arg-type]
        .sort("agent_a", "agent_b")
    )
    return overlap, vocab_sizes


def _agent_evidence(
    message_evidence: pl.DataFrame,
    vocab_sizes: pl.DataFrame,
    grams: pl.DataFrame,
    overlap: pl.DataFrame,
) -> pl.DataFrame:
    """One row per agent: its messages, tokens, vocabulary, repetition and overlap."""
    mean_overlap = (
        pl.concat(
            [
                overlap.select(pl.col("agent_a").alias("agent_id"), "jaccard"),
                overlap.select(pl.col("agent_b").alias("agent_id"), "jaccard"),
            ]
        )
        .group_by("agent_id")
        .agg(pl.col("jaccard").mean().alias("mean_vocab_overlap"))
    )
    agents = (
        message_evidence.group_by("run", "agent_id", maintain_order=True)
        .agg(
            pl.len().alias("messages"),
            pl.col("tokens").sum().alias("tokens"),
            pl.col("similar_flag").fill_null(False).sum().alias("flagged_similar_messages"),
        )
        .join(vocab_sizes, on="agent_id", how="left")
        .join(grams, on="agent_id", how="left")
        .join(mean_overlap, on="agent_id", how="left")
        .with_columns(
            pl.col("distinct_tokens").fill_null(0),
            pl.when(pl.col("tokens") > 0)
            .then(pl.col("distinct_tokens").fill_null(0) / pl.col("tokens"))
            .alias("type_token_ratio"),
            (pl.col("tokens") / pl.col("messages")).alias("mean_tokens_per_message"),
        )
        .select(list(PERSONA_AGENT_EVIDENCE_SCHEMA))
        .cast(PERSONA_AGENT_EVIDENCE_SCHEMA)  # type: ignore[arg-type]
        .sort("agent_id")
    )
    return agents


# ---------------------------------------------------------------------------
# Supplementary evidence sent to the judge (the-office's fluency and convergence
# scorers) and consistency's pairs of earlier and recent messages
# ---------------------------------------------------------------------------


def ngram_repetition(texts: pl.Series, n: int) -> float | None:
    """The share of word n-grams (within one message) that repeat an earlier one:
    ``1 - distinct / total`` over ``texts``; None when the texts hold no n-gram."""
    frame = (
        pl.DataFrame({"text": texts.cast(pl.String)})
        .with_row_index("m")
        .with_columns(pl.col("text").str.to_lowercase().str.extract_all(_WORD).alias("w"))
        .explode("w")
        .drop_nulls("w")
        .with_columns(
            pl.concat_str([pl.col("w").shift(-k).over("m") for k in range(n)], separator=" ").alias(
                "gram"
            )
        )
        .drop_nulls("gram")
    )
    if frame.height == 0:
        return None
    return 1.0 - frame["gram"].n_unique() / frame.height


def ngram_evidence(actions: pl.DataFrame, agent_name: str, ns: tuple[int, ...] = (3, 5)) -> str:
    """The fluency judge's supplementary evidence: n-gram repetition of one agent's
    messages (``actions``: the agent's action rows in the window)."""
    parts = []
    for n in ns:
        share = ngram_repetition(actions["text"], n)
        parts.append(f"{n}-gram repetition {'-' if share is None else f'{share:.2f}'}")
    return (
        f"N-gram repetition over {agent_name}'s {actions.height} message(s) in this window "
        f"(share of word n-grams that repeat an earlier one; 0 = none repeats): "
        + ", ".join(parts)
        + "."
    )


def vocabulary_evidence(actions: pl.DataFrame) -> str:
    """The convergence judge's supplementary evidence: each agent's vocabulary and the
    vocabulary shared between agents (``actions``: every action row in the window)."""
    ev = persona_evidence(actions)
    names = dict(
        actions.select("agent_id", "agent_name").unique("agent_id", keep="first").iter_rows()
    )
    lines = ["Vocabulary per agent in this window:"]
    for row in ev.agents.iter_rows(named=True):
        ttr, per = row["type_token_ratio"], row["mean_tokens_per_message"]
        lines.append(
            f"{names.get(row['agent_id']) or row['agent_id']}: {row['tokens']} words, "
            f"{row['distinct_tokens']} distinct (type-token ratio "
            f"{'-' if ttr is None else f'{ttr:.2f}'}), "
            f"{'-' if per is None else f'{per:.1f}'} words per message"
        )
    if ev.overlap.height:
        lines.append("Vocabulary shared between agents (Jaccard of distinct words, 1 = same):")
        lines.extend(
            f"{names.get(a) or a} / {names.get(b) or b}: {'-' if j is None else f'{j:.2f}'}"
            for a, b, j in ev.overlap.select("agent_a", "agent_b", "jaccard").iter_rows()
        )
    return "\n".join(lines)


def message_pairs(actions: pl.DataFrame, agent_name: str, max_pairs: int) -> str | None:
    """Consistency's trajectory: pairs of an earlier and a recent message of one agent.

    The agent's messages in the window (``actions``, in order) are split in half: the
    earlier half is history, the later half current (the middle message of an odd count
    is in neither); the k-th historical message is paired with the k-th current one, so
    every pair spans the same distance, and the last ``max_pairs`` pairs are kept. None
    with fewer than two messages (nothing earlier to compare with).
    """
    texts = actions.sort("step")["text"].to_list()
    half = len(texts) // 2
    if half == 0:
        return None
    pairs = list(zip(texts[:half], texts[len(texts) - half :], strict=True))[-max_pairs:]
    lines: list[str] = []
    for k, (earlier, recent) in enumerate(pairs, start=1):
        lines += [
            f"Pair {k} of {len(pairs)}:",
            f"[Earlier message] {agent_name} acts: {earlier}",
            f"[Recent message] {agent_name} acts: {recent}",
        ]
    return "\n".join(lines)
