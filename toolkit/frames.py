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
# Agent iteration logs (dot-agents) and their outcome scores
# ---------------------------------------------------------------------------

ITERATION_SOURCE = pl.Enum(["file", "historical"])

#: One row per iteration: the header, the agent, the session tokens, the implementation
#: role's fields (``impl_*``; v1's flat fields land here too) and the review's fields.
#: Tri-state flags (``*_pass``, ``*_to_outcomes``) are null when unreported, never false.
ITERATIONS_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "schema_version": pl.Int64(),
    "source": ITERATION_SOURCE,
    "source_file": pl.String(),
    "date": pl.Date(),
    "wave": pl.String(),
    "task_id": pl.String(),
    "commit": pl.String(),
    "files_changed": pl.Int64(),
    "lines_added": pl.Int64(),
    "lines_removed": pl.Int64(),
    "first_commit": pl.String(),
    "checkpoint_at": pl.Datetime("us", "UTC"),
    "agent_session_id": pl.String(),
    "agent_harness": pl.String(),
    "agent_model": pl.String(),
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "cache_read_tokens": pl.Int64(),
    "cache_creation_tokens": pl.Int64(),
    "cache_hit_rate": pl.Float64(),
    "impl_summary": pl.String(),
    "impl_scope_note": pl.String(),
    "impl_retries": pl.Int64(),
    "impl_tests_added": pl.Int64(),
    "impl_focused_tests_pass": pl.Boolean(),
    "impl_tests_total_pass": pl.Boolean(),
    "impl_persisted_via_workflow_commands": pl.String(),
    "impl_linked_traces_to_outcomes": pl.Boolean(),
    "review_phase_1_decision": pl.String(),
    "review_phase_2_decision": pl.String(),
    "review_overall_decision": pl.String(),
    "review_failed_gates": pl.List(pl.String()),
    "review_decision_artifact": pl.String(),
    "verifier_count": pl.Int64(),
    "hook_outcomes_file": pl.String(),
}

LINKED_TRACE = pl.Struct({"trace_ref": pl.String(), "outcome_ref": pl.String()})
TEST_BY_KIND = pl.Struct({"name": pl.String(), "kind": pl.String()})

#: One row per verifier of a v2 iteration (``verifier_index`` counts from 0).
VERIFIERS_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "verifier_index": pl.Int64(),
    "type": pl.String(),
    "status": pl.String(),
    "gate_passed": pl.Boolean(),
    "tests_added": pl.Int64(),
    "tests_total_pass": pl.Boolean(),
    "retries": pl.Int64(),
    "result_artifact": pl.String(),
    "linked_traces": pl.List(LINKED_TRACE),
    "tests_added_by_kind": pl.List(TEST_BY_KIND),
    "linked_traces_to_outcomes": pl.Boolean(),
    "source_file": pl.String(),
}

HOOK_RESULT = pl.Enum(["allow", "advise", "remediate"])

#: One row per record of an ``iter-N.hook-outcomes.yaml`` sidecar.
HOOK_OUTCOMES_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "record_index": pl.Int64(),
    "sentinel_id": pl.String(),
    "skill": pl.String(),
    "lifecycle_point": pl.String(),
    "intervention_class": pl.String(),
    "result": HOOK_RESULT,
    "rule_id": pl.String(),
    "platform": pl.String(),
    "ts": pl.Datetime("us", "UTC"),
    "correlation_id": pl.String(),
    "source_file": pl.String(),
}

#: One row per timestamped line of a Claude Code transcript (JSONL). Token counts are
#: counted once per assistant message id (Claude Code repeats a message's usage on each
#: of its lines); ``tool_calls`` counts ``tool_use`` items, ``tool_errors`` counts
#: ``tool_result`` items with ``is_error: true``.
TRANSCRIPT_EVENTS_SCHEMA: dict[str, pl.DataType] = {
    "source_file": pl.String(),
    "line": pl.Int64(),
    "timestamp": pl.Datetime("us", "UTC"),
    "message_id": pl.String(),
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "cache_read_tokens": pl.Int64(),
    "cache_creation_tokens": pl.Int64(),
    "tool_calls": pl.Int64(),
    "tool_errors": pl.Int64(),
}

COMMIT_VIA = pl.Enum(["sha", "summary"])

#: Git and artifact facts per iteration, gathered for the outcome rubric. ``git_reason``
#: says why the git facts are missing (null when the commit was found); ``commit_via``
#: says whether the logged SHA resolved or a trunk commit with the summary as its
#: subject stands in for it.
OUTCOME_EVIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "git_reason": pl.String(),
    "trunk": pl.String(),
    "commit_sha": pl.String(),
    "commit_via": COMMIT_VIA,
    "commit_time": pl.Datetime("us", "UTC"),
    "on_trunk": pl.Boolean(),
    "reverted_by": pl.String(),
    "changed_files": pl.List(pl.String()),
    "task_plan": pl.String(),
    "write_scope": pl.List(pl.String()),
    "write_scope_reason": pl.String(),
    "decision_artifact_path": pl.String(),
    "decision_artifact_reason": pl.String(),
    "user_corrections": pl.Int64(),
    "retries_in_loop": pl.Int64(),
}

#: The status a verifier's readable ``result_artifact`` records (null when unreadable).
VERIFIER_EVIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "verifier_index": pl.Int64(),
    "artifact_path": pl.String(),
    "artifact_status": pl.String(),
    "artifact_reason": pl.String(),
}

#: One row per iteration: the outcome score (null and band ``unscored`` when no signal
#: is present).
OUTCOME_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "session_id": pl.String(),
    "scored": pl.Boolean(),
    "value": pl.Float64(),
    "band": pl.String(),
    "signals_present": pl.Int64(),
}

#: One row per iteration and rubric signal; for each iteration the ``contribution``
#: column sums to the iteration's ``value``.
OUTCOME_BREAKDOWN_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "signal": pl.String(),
    "present": pl.Boolean(),
    "sub_score": pl.Float64(),
    "detail": pl.String(),
    "nominal_weight": pl.Float64(),
    "effective_weight": pl.Float64(),
    "contribution": pl.Float64(),
}

#: Claimed vs observed for the two-way signals; ``delta = observed - claimed`` (negative:
#: an over-claim), null unless both sides exist.
INTEGRITY_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "signal": pl.String(),
    "role": pl.String(),
    "claimed": pl.Float64(),
    "observed": pl.Float64(),
    "delta": pl.Float64(),
}

#: One row per agent session: the mean of its scored iterations.
SESSION_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "session_id": pl.String(),
    "iterations": pl.List(pl.Int64()),
    "scored_iterations": pl.Int64(),
    "scored": pl.Boolean(),
    "value": pl.Float64(),
    "band": pl.String(),
}
