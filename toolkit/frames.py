"""The Polars schema of every frame the toolkit builds, named once.

Loaders build frames with these schemas (never inferred dtypes); rubrics and views
rely on them. Each schema is a ``dict`` usable as ``pl.DataFrame(rows, schema=...)``.
"""

from __future__ import annotations

import polars as pl

# ---------------------------------------------------------------------------
# Shared
# ---------------------------------------------------------------------------

#: Problems found while loading: one row per file (or entry) that could not be used.
LOAD_ISSUES_SCHEMA: dict[str, pl.DataType] = {
    "path": pl.String(),
    "line": pl.Int64(),
    "reason": pl.String(),
}

#: The one scorecard shape every rubric returns (see :class:`toolkit.Scorecard`).
SCORECARD_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(),
    "dimension": pl.String(),
    "name": pl.String(),
    "value": pl.Float64(),
    "status": pl.String(),
    "detail": pl.String(),
    "green": pl.String(),
    "red": pl.String(),
}

# ---------------------------------------------------------------------------
# Simulation runs (token-world universes)
# ---------------------------------------------------------------------------

TICK_STATUS = pl.Enum(["executed", "yielded", "refused", "unmatched"])
GROUNDED_SOURCE = pl.Enum(["observer", "proxy"])

#: One row per tick file.
TICKS_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "tick": pl.Int64(),
    "schema_version": pl.Int64(),
    "timestamp": pl.Datetime("us", "UTC"),
    "actor": pl.String(),
    "action_text": pl.String(),
    "verb": pl.String(),
    "target": pl.String(),
    "mechanic": pl.String(),
    "status": TICK_STATUS,
    "refusal_reason": pl.String(),
    "rollback": pl.Boolean(),
    "continuation": pl.Boolean(),
    "mutation_count": pl.Int64(),
    "claimed_count": pl.Int64(),
    "unsupported_claims": pl.String(),
    "grounded": pl.Boolean(),
    "grounded_source": GROUNDED_SOURCE,
    "observation_text": pl.String(),
    "cost_usd": pl.Float64(),
    "tokens_in": pl.Int64(),
    "tokens_out": pl.Int64(),
    "duration_ms": pl.Int64(),
    "source_file": pl.String(),
}

#: One row per compressed record (``batch_<n>.json`` or ``epoch_<n>.json``).
BATCHES_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "kind": pl.String(),
    "batch_id": pl.String(),
    "first_tick": pl.Int64(),
    "last_tick": pl.Int64(),
    "tick_count": pl.Int64(),
    "total_mutations": pl.Int64(),
    "agent_id": pl.String(),
    "mechanic_ids_used": pl.List(pl.String()),
    "key_events": pl.List(pl.String()),
    "source_file": pl.String(),
}

#: One row per graph snapshot in ``universe.db``.
CHECKPOINTS_SCHEMA: dict[str, pl.DataType] = {
    "slug": pl.String(),
    "tick": pl.Int64(),
    "node_count": pl.Int64(),
    "edge_count": pl.Int64(),
}


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with ``schema``."""
    return pl.DataFrame(schema=schema)


# ---------------------------------------------------------------------------
# Discussion transcripts (LLM Mafia games)
# ---------------------------------------------------------------------------

#: One row per game.
DISCUSSION_GAMES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "source_kind": pl.String(),  # transcript | export | sqlite
    "source_file": pl.String(),
    "status": pl.String(),
    "round_number": pl.Int64(),
    "player_count": pl.Int64(),
    "created_at": pl.Datetime("us", "UTC"),
    "total_turns": pl.Int64(),
    "duration_seconds": pl.Float64(),
    "cost_usd": pl.Float64(),
    "input_tokens": pl.Int64(),
    "cached_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "cache_hit_rate": pl.Float64(),  # a fraction 0..1
}

#: One row per player of a game.
DISCUSSION_PLAYERS_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "player_id": pl.String(),
    "name": pl.String(),
    "role": pl.String(),  # MAFIA | VILLAGER (upper-cased as written)
    "personality": pl.String(),
    "alive": pl.Boolean(),
    "position": pl.Int64(),
}

#: One row per discussion message, in turn order within a game.
DISCUSSION_MESSAGES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "message_id": pl.String(),
    "turn": pl.Int64(),
    "round": pl.Int64(),
    "speaker": pl.String(),
    "text": pl.String(),
    "in_reply_to": pl.String(),
    "in_reply_to_player": pl.String(),
    "timestamp": pl.Datetime("us", "UTC"),
}

#: One row per vote cast.
DISCUSSION_VOTES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "round": pl.Int64(),
    "voter": pl.String(),
    "target": pl.String(),
    "justification": pl.String(),
    "timestamp": pl.Datetime("us", "UTC"),
}

#: Human engagement ratings (1-5), one row per rater and game.
DISCUSSION_RATINGS_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "rater": pl.String(),
    "score": pl.Float64(),
}

#: Reviewer labels that override the rubric's automatic labels for one item.
#: ``kind`` is ``memory`` (item = reference id), ``strategic`` or ``role`` (item = message id).
DISCUSSION_LABELS_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "kind": pl.String(),
    "item_id": pl.String(),
    "label": pl.Boolean(),
}
