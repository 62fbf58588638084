"""The discussion rubric's words and frames: statuses, memory verdicts, evidence schemas.

Every module of the rubric reads its statuses and the schemas of the frames it returns
from here, so a metric, the scorecard assembly and the evidence agree on one spelling.
"""

from __future__ import annotations

import polars as pl

__all__ = [
    "ACCURATE",
    "FAIL",
    "INACCURATE",
    "MESSAGE_EVIDENCE_SCHEMA",
    "METRIC_SCHEMA",
    "NEEDS_REVIEW",
    "PASS",
    "PENDING",
    "PENDING_RATING",
    "PHRASE_SCHEMA",
    "REFERENCE_SCHEMA",
    "SIMILARITY_SCHEMA",
]

PASS, FAIL, PENDING, PENDING_RATING = "PASS", "FAIL", "PENDING", "PENDING_RATING"

#: Memory reference verdicts.
ACCURATE, INACCURATE, NEEDS_REVIEW = "accurate", "inaccurate", "needs review"

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
