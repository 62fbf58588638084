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
# Treatment-vs-control experiments
# ---------------------------------------------------------------------------

EXPERIMENT_GROUP = pl.Enum(["treatment", "control"])

#: One row per score (long form): which experiment, which arm, which metric, which scored
#: unit (an agent id, or the position in a TinyTroupe results list), the score (null when
#: the file held no usable number) and the file it came from.
EXPERIMENT_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "group": EXPERIMENT_GROUP,
    "metric": pl.String(),
    "unit": pl.String(),
    "score": pl.Float64(),
    "source_file": pl.String(),
}

#: One row per experiment x metric: per-group summaries (``t_`` treatment, ``c_`` control),
#: Welch's t-test of treatment - control, and why anything is absent.
EXPERIMENT_STATS_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "t_n": pl.Int64(),
    "t_nulls": pl.Int64(),
    "t_mean": pl.Float64(),
    "t_sd": pl.Float64(),
    "c_n": pl.Int64(),
    "c_nulls": pl.Int64(),
    "c_mean": pl.Float64(),
    "c_sd": pl.Float64(),
    "delta": pl.Float64(),
    "se": pl.Float64(),
    "t_stat": pl.Float64(),
    "df": pl.Float64(),
    "p_value": pl.Float64(),
    "cohens_d": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "alpha": pl.Float64(),
    "significant": pl.Boolean(),
    "absent_reason": pl.String(),
}

#: A reference table (e.g. a paper's published Table 1): one row per experiment x metric.
#: ``p_value`` is the stated p (``p_below`` true when only "< p_value" was stated).
EXPERIMENT_REFERENCE_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "t_mean": pl.Float64(),
    "t_sd": pl.Float64(),
    "c_mean": pl.Float64(),
    "c_sd": pl.Float64(),
    "delta": pl.Float64(),
    "p_value": pl.Float64(),
    "p_below": pl.Boolean(),
    "source_file": pl.String(),
}


#: What the authors of a results file reported about their own test of treatment vs
#: control (TinyTroupe's ``statistical_test_results_vs_others``), one row per metric.
#: ``reported_t`` keeps their sign convention (control - treatment).
EXPERIMENT_REPORTED_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "metric": pl.String(),
    "test_type": pl.String(),
    "t_n": pl.Int64(),
    "c_n": pl.Int64(),
    "t_mean": pl.Float64(),
    "c_mean": pl.Float64(),
    "t_sd": pl.Float64(),
    "c_sd": pl.Float64(),
    "delta": pl.Float64(),
    "reported_t": pl.Float64(),
    "df": pl.Float64(),
    "p_value": pl.Float64(),
    "effect_size": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "confidence_level": pl.Float64(),
    "significant": pl.Boolean(),
    "source_file": pl.String(),
}
