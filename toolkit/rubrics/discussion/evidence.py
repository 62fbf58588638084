"""The evidence of a scored discussion: why each metric scored as it did.

:func:`gather_evidence` runs every metric's reading over the loaded games (per message,
per reference, per speaker pair, per phrase), lays a reviewer's labels over the
automatic ones and keeps the ratings used, in one :class:`DiscussionEvidence`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.frames import DISCUSSION_RATINGS_SCHEMA, typed
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion.coherence import coherence_evidence
from toolkit.rubrics.discussion.diversity import speaker_similarity
from toolkit.rubrics.discussion.labels import apply_labels
from toolkit.rubrics.discussion.memory import memory_references
from toolkit.rubrics.discussion.repetition import phrase_uses
from toolkit.rubrics.discussion.role import role_evidence
from toolkit.rubrics.discussion.schemas import MESSAGE_EVIDENCE_SCHEMA
from toolkit.rubrics.discussion.strategic import strategic_evidence

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    # (and the ratings files' reader, ~1.5 ms of CPU and csv: only --ratings imports it)
    from toolkit.load.ratings import RatingSource
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["DiscussionEvidence", "gather_evidence", "ratings_frame"]


@record  # eq, hash, repr: toolkit._record
class DiscussionEvidence(FieldsEqual, FieldsRepr):
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


def gather_evidence(
    discussion: Discussion,
    spec: DiscussionSpec,
    labels: pl.DataFrame | None,
    ratings: RatingSource | pl.DataFrame | None,
    game_ids: Sequence[str],
) -> tuple[DiscussionEvidence, pl.DataFrame, list[pl.DataFrame | pl.LazyFrame]]:
    """Every metric's evidence over the games of ``discussion``.

    Returns:
        ``(evidence, phrase_counts, overridden)``: the evidence; per game the counted
        phrases and repeats (:func:`phrase_uses`); per game the strategic, role and
        memory readings a reviewer's label changed (``<kind>_overridden``), one frame each
        (the memory one, with labels, a lazy frame run in :func:`~.tallies.game_tallies`'
        query; without, an empty frame, as :func:`~.labels.apply_labels` gives).
    """
    msgs = discussion.messages
    ev, overridden = _message_evidence(msgs, discussion.players, spec, labels)
    refs = memory_references(msgs, discussion.players, discussion.votes, spec, labels)
    mem_over: pl.DataFrame | pl.LazyFrame
    if labels is None or labels.height == 0:  # no reviewer: nothing overridden, no join
        mem_over = pl.DataFrame(schema={"game_id": pl.String(), "memory_overridden": pl.UInt32()})
    else:  # lazy: run in the tallies' query (issue 38)
        mem_over = (
            refs.lazy()
            .filter(pl.col("reason").str.starts_with("labelled by a reviewer"))
            .group_by("game_id")
            .agg(pl.len().alias("memory_overridden"))
        )
    sim = speaker_similarity(msgs)
    phrases, phrase_counts = phrase_uses(msgs, discussion.players, spec)
    rating_rows = ratings_frame(ratings, game_ids)
    evidence = DiscussionEvidence(
        messages=ev, references=refs, similarity=sim, phrases=phrases, ratings=rating_rows
    )
    return evidence, phrase_counts, [*overridden, mem_over]


def _message_evidence(
    messages: pl.DataFrame, players: pl.DataFrame, spec: DiscussionSpec, labels: pl.DataFrame | None
) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """Metrics 2-4 per message (:data:`MESSAGE_EVIDENCE_SCHEMA`), a reviewer's strategic
    and role labels laid over them; and the per-game counts of each they changed."""
    ev = role_evidence(coherence_evidence(strategic_evidence(messages, spec), spec), players, spec)
    ev, strat_over = apply_labels(ev, labels, "strategic", "strategic", invert=False)
    ev, role_over = apply_labels(ev, labels, "role", "role_break", invert=True)
    # the schema's columns picked (no query where their types are the schema's already)
    return typed(ev, MESSAGE_EVIDENCE_SCHEMA), [strat_over, role_over]


def ratings_frame(
    ratings: RatingSource | pl.DataFrame | None, game_ids: Sequence[str]
) -> pl.DataFrame:
    """The engagement ratings of ``game_ids`` the scoring uses, in
    :data:`~toolkit.frames.DISCUSSION_RATINGS_SCHEMA` (empty without ratings)."""
    if ratings is None:
        return pl.DataFrame(schema=DISCUSSION_RATINGS_SCHEMA)
    frame = ratings if isinstance(ratings, pl.DataFrame) else ratings.ratings(game_ids)
    return typed(frame, DISCUSSION_RATINGS_SCHEMA)
