"""The Polars schema of every frame the toolkit builds, named once.

Loaders build frames with these schemas (never inferred dtypes); rubrics and views
rely on them. Each schema is a ``dict`` usable as ``pl.DataFrame(rows, schema=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, get_args

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

#: A scorecard's secondary measures (:attr:`toolkit.scorecard.Scorecard.measures`): one
#: row per number a dimension reports beside its value (e.g. action coherence's
#: ``refuse_rate_10tick``, vocabulary growth's ``stagnant``); null when not measured.
MEASURES_SCHEMA: dict[str, pl.DataType] = {
    "subject": pl.String(),
    "dimension": pl.String(),
    "measure": pl.String(),
    "value": pl.Float64(),
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
    "subtypes": pl.List(pl.String()),  # values written to a `subtype` property
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


#: The engine the toolkit's lazy queries run on: Polars' in-memory one, the engine its
#: eager steps use, not Polars 2's default (the streaming engine). On the small frames of
#: one run or one chunk of runs it costs a fifth to a half of the streaming engine's CPU (a
#: trivial query 0.04 ms against 0.2 ms; 34 runs' window scores 6 ms against 13; issue
#: 38), and its results do not depend on the number of threads (the streaming engine cuts
#: a frame of fewer rows than threads into one-row parts, and divides a one-row column by
#: a constant exactly, a longer one by multiplying by its reciprocal).
ENGINE: Final = "in-memory"


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with ``schema``."""
    return pl.DataFrame(schema=schema)


def typed(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` as ``schema``'s columns, in its order and types: the frame itself when it
    is so already (no query: a Polars step costs 0.1-0.4 ms on a small frame, issue 38),
    its columns picked by name where they are of the schema's types (no query either),
    else selected and cast in one query."""
    have = frame.schema
    if list(have.items()) == list(schema.items()):
        return frame
    if all(have.get(name) == dtype for name, dtype in schema.items()):
        return frame[list(schema)]
    return frame.lazy().select(list(schema)).cast(schema).collect(engine=ENGINE)  # type: ignore[arg-type]


def slices(frame: pl.DataFrame, counts: Iterable[int]) -> list[pl.DataFrame]:
    """``frame`` cut into consecutive zero-copy slices of ``counts`` rows each (the frames
    of many runs or cards read, built or scored as one, handed back one each)."""
    out: list[pl.DataFrame] = []
    start = 0
    for count in counts:
        out.append(frame.slice(start, count))
        start += count
    return out


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


# ---------------------------------------------------------------------------
# Persona-drift evaluation (chat runs, propositions, judge scores)
# ---------------------------------------------------------------------------

MESSAGE_KIND = pl.Enum(["action", "stimulus"])

#: One row per chat message. ``agent_id`` is the author of an action, or the agent a
#: stimulus is addressed to (null: everyone in the channel).
CHAT_MESSAGES_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "step": pl.Int64(),
    "channel": pl.String(),
    "agent_id": pl.String(),
    "agent_name": pl.String(),
    "kind": MESSAGE_KIND,
    "text": pl.String(),
    "time": pl.Datetime("us", "UTC"),
    "recipient_id": pl.String(),
}

#: One row per agent of a chat run.
PERSONAS_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "agent_id": pl.String(),
    "name": pl.String(),
    "persona": pl.String(),
}

#: One row per proposition of a proposition file (claims still templates).
PROPOSITIONS_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "file_agent_id": pl.String(),
    "proposition": pl.String(),
    "claim": pl.String(),
    "weight": pl.Float64(),
    "inverted": pl.Boolean(),
    "hard": pl.Boolean(),
    "include_personas": pl.Boolean(),
    "target_type": pl.String(),
    "first_n": pl.Int64(),
    "last_n": pl.Int64(),
    "precondition": pl.String(),
    "recommendation": pl.String(),
    "source_file": pl.String(),
}

#: The tidy per-proposition scores of a persona evaluation: one row per (run, window,
#: agent, dimension, proposition). ``agent_id`` is null for environment dimensions.
#: ``raw`` is the judge's integer (a count for ideas_quantity); ``score`` is after
#: inversion and hard mode; ``source`` is ``judge``, ``precondition`` (not met: 9) or
#: ``absent`` (no score; ``absent_reason`` says why); ``contribution`` is
#: ``score * weight / sum(weights)`` over the judged propositions of the dimension, so
#: contributions sum to the dimension score.
PERSONA_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "window": pl.Int64(),
    "target_type": pl.String(),
    "agent_id": pl.String(),
    "agent_name": pl.String(),
    "dimension": pl.String(),
    "proposition": pl.String(),
    "claim": pl.String(),
    "weight": pl.Float64(),
    "inverted": pl.Boolean(),
    "hard": pl.Boolean(),
    "raw": pl.Int64(),
    "score": pl.Float64(),
    "contribution": pl.Float64(),
    "source": pl.String(),
    "absent_reason": pl.String(),
    "reasoning": pl.String(),
    "recommendation": pl.String(),
}

#: One row per (run, window, agent, dimension): the weighted mean of its propositions.
PERSONA_DIMENSIONS_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "window": pl.Int64(),
    "target_type": pl.String(),
    "agent_id": pl.String(),
    "agent_name": pl.String(),
    "dimension": pl.String(),
    "score": pl.Float64(),
    "judged": pl.Int64(),
    "absent": pl.Int64(),
    "lowest_proposition": pl.String(),
    "lowest_score": pl.Float64(),
}

#: Baseline comparison: one row per (agent, dimension) present in a score or a baseline.
PERSONA_BASELINE_SCHEMA: dict[str, pl.DataType] = {
    "agent_id": pl.String(),
    "dimension": pl.String(),
    "baseline": pl.Float64(),
    "score": pl.Float64(),
    "delta": pl.Float64(),
    "regression": pl.Boolean(),
    "note": pl.String(),
}

#: Algorithmic (no LLM) evidence per message of an agent.
PERSONA_MESSAGE_EVIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "agent_id": pl.String(),
    "step": pl.Int64(),
    "text": pl.String(),
    "tokens": pl.Int64(),
    "max_jaccard_prev5": pl.Float64(),
    "similar_flag": pl.Boolean(),
}

#: Algorithmic (no LLM) evidence per agent.
PERSONA_AGENT_EVIDENCE_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "agent_id": pl.String(),
    "messages": pl.Int64(),
    "tokens": pl.Int64(),
    "distinct_tokens": pl.Int64(),
    "type_token_ratio": pl.Float64(),
    "mean_tokens_per_message": pl.Float64(),
    "repeated_ngram_share_last5": pl.Float64(),
    "flagged_similar_messages": pl.Int64(),
    "mean_vocab_overlap": pl.Float64(),
}

#: Cross-agent vocabulary overlap (Jaccard of distinct-token sets), one row per pair.
PERSONA_VOCAB_OVERLAP_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.String(),
    "agent_a": pl.String(),
    "agent_b": pl.String(),
    "shared": pl.Int64(),
    "union": pl.Int64(),
    "jaccard": pl.Float64(),
}

#: The outcome of one attempt in an action-gate correction log: the type the file's
#: model checks (``toolkit.load.persona``) and, derived from it, the frame's Enum.
CorrectionOutcome = Literal[
    "passed",
    "corrected",
    "passed_after_retry",
    "forced_through",
    "timeout_pass_through",
    # the-office's correction pipeline
    "regeneration_requested",
    "regeneration_success",
    "direct_correction_success",
]
CORRECTION_OUTCOME = pl.Enum(get_args(CorrectionOutcome))

#: Action-gate correction log: one row per (action, attempt, dimension).
CORRECTION_LOG_SCHEMA: dict[str, pl.DataType] = {
    "agent_id": pl.String(),
    "action_id": pl.String(),
    "attempt": pl.Int64(),
    "outcome": CORRECTION_OUTCOME,
    "dimension": pl.String(),
    "score": pl.Float64(),
    "reasoning": pl.String(),
    "passed": pl.Boolean(),
    "similarity": pl.Float64(),
    "total_score": pl.Float64(),
    "line": pl.Int64(),
    # the-office's correction_logs table: every column kept (issue 37)
    "action": pl.Int64(),
    "id": pl.String(),
    "run_id": pl.String(),
    "channel_id": pl.String(),
    "original_text": pl.String(),
    "final_text": pl.String(),
    "stage": pl.Enum(["original", "regeneration", "direct_correction"]),
    "threshold": pl.Float64(),
    "token_usage": pl.String(),
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "duration_ms": pl.Int64(),
    "created_at": pl.Datetime("us", "UTC"),
    "extra": pl.String(),
}

#: the-office's intervention log (``intervention_logs``): one row per evaluation of an
#: intervention for an agent.
INTERVENTION_LOG_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.String(),
    "agent_id": pl.String(),
    "channel_id": pl.String(),
    "intervention_type": pl.Enum(["anti_convergence", "variety", "custom"]),
    "textual_precondition": pl.String(),
    "textual_precondition_result": pl.Boolean(),
    "functional_precondition_result": pl.Boolean(),
    "propositional_precondition_result": pl.Boolean(),
    "fired": pl.Boolean(),
    "nudge_text": pl.String(),
    "token_usage": pl.String(),
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "created_at": pl.Datetime("us", "UTC"),
    "extra": pl.String(),
    "line": pl.Int64(),
}


# ---------------------------------------------------------------------------
# Treatment-vs-control experiments
# ---------------------------------------------------------------------------

EXPERIMENT_GROUP = pl.Enum(["treatment", "control"])

#: One row per score (long form): which experiment, which arm, which metric, which scored
#: unit (an agent id, or the position in a TinyTroupe results list), the score (null when
#: the file held no usable number), the file it came from, and the experiment's family
#: (experiments that share one control: several treatment arms of one file; null = the
#: experiment is its own family).
EXPERIMENT_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String(),
    "group": EXPERIMENT_GROUP,
    "metric": pl.String(),
    "unit": pl.String(),
    "score": pl.Float64(),
    "source_file": pl.String(),
    "family": pl.String(),
}

#: One row per experiment x metric: per-group summaries (``t_`` treatment, ``c_`` control),
#: the difference and its percent of the control mean, the chosen test of treatment vs
#: control (Welch's t by default; ``test`` names it, ``statistic`` is its statistic) and
#: why anything is absent.
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
    "percent_change": pl.Float64(),
    "se": pl.Float64(),
    "t_stat": pl.Float64(),
    "df": pl.Float64(),
    "test": pl.String(),
    "statistic": pl.Float64(),
    "p_value": pl.Float64(),
    "cohens_d": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "median_delta": pl.Float64(),
    "prob_superiority": pl.Float64(),
    "cramers_v": pl.Float64(),
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
    "percent_change": pl.Float64(),
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
    "hook_outcomes_problem": pl.String(),
    # Whether the implementation wrote a self_assessment block at all (a block without
    # the linked-traces flag is a claim of 0 in the integrity track).
    "impl_self_assessment": pl.Boolean(),
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
    "self_assessment": pl.Boolean(),
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
    # ``tool_result`` items (the denominator of the tool-error rate).
    "tool_results": pl.Int64(),
}

#: One row per tool call an agent made, from Claude Code transcripts (``tool_use`` items)
#: and Codex session logs (``function_call`` / ``local_shell_call`` response items):
#: ``harness`` ``claude-code`` or ``codex``; ``tool`` the tool's name; ``command`` the
#: shell command it ran (Claude Code's ``Bash``, Codex's shell tools; null for other
#: tools); ``path`` the file a Claude Code ``Read`` named (null otherwise).
TOOL_USES_SCHEMA: dict[str, pl.DataType] = {
    "source_file": pl.String(),
    "line": pl.Int64(),
    "timestamp": pl.Datetime("us", "UTC"),
    "harness": pl.String(),
    "tool": pl.String(),
    "command": pl.String(),
    "path": pl.String(),
}

#: Every timestamped line of a transcript or session log: the times it covers (a window
#: with none of them was not observed, which is not the same as nothing happening).
TRANSCRIPT_TURNS_SCHEMA: dict[str, pl.DataType] = {
    "source_file": pl.String(),
    "timestamp": pl.Datetime("us", "UTC"),
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
#: is present). ``linked_traces_to_outcomes`` is dot-agents' derived marker: true when a
#: verifier lists at least one ``linked_traces`` pair.
OUTCOME_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "session_id": pl.String(),
    "scored": pl.Boolean(),
    "value": pl.Float64(),
    "band": pl.String(),
    "signals_present": pl.Int64(),
    "linked_traces_to_outcomes": pl.Boolean(),
}

#: Objectives per iteration, checked from transcripts and the commit's diff and reported
#: beside the score (never in it): ``value`` 1 (done) or 0 (not done), null when it could
#: not be checked, ``detail`` the evidence or the reason.
OUTCOME_OBJECTIVES_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "objective": pl.String(),
    "value": pl.Int64(),
    "detail": pl.String(),
}

#: One row per iteration and rubric signal; for each iteration the ``contribution``
#: column sums to the iteration's ``value``.
OUTCOME_BREAKDOWN_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "signal": pl.String(),
    "label": pl.String(),
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


# ---------------------------------------------------------------------------
# Human rating sessions (the SQLite ratings store, rater agreement)
# ---------------------------------------------------------------------------

#: One row per saved rating (append-only; the latest per rater and transcript counts).
#: ``answers`` is JSON text: evaluation-question key -> true/false (unanswered left out);
#: ``instrument`` is the version of the engagement instrument the rater saw ("" for a
#: rating saved before instruments were versioned).
RATING_EVENTS_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(),
    "uid": pl.String(),
    "rater": pl.String(),
    "transcript_id": pl.String(),
    "score": pl.Int64(),
    "answers": pl.String(),
    "notes": pl.String(),
    "created_at": pl.Datetime("us", "UTC"),
    "instrument": pl.String(),
}

#: One row per reviewer's label of an iteration (dot-agents 3.0.0's ``iter-N.labels.yaml``),
#: with its latest edit's three structured answers (null when not answered), its free text,
#: its ``position`` in the file and the file it came from.
LABELS_SCHEMA: dict[str, pl.DataType] = {
    "iteration": pl.Int64(),
    "label_id": pl.String(),
    "actor": pl.String(),
    "role": pl.String(),
    "admin_override": pl.Boolean(),
    "created_at": pl.Datetime("us", "UTC"),
    "updated_at": pl.Datetime("us", "UTC"),
    "edited_by": pl.String(),
    "edited_role": pl.String(),
    "edited_at": pl.Datetime("us", "UTC"),
    "edits": pl.Int64(),
    "correctness": pl.Int64(),
    "scope_judgement": pl.String(),
    "hallucination": pl.String(),
    "free_text": pl.String(),
    "position": pl.Int64(),
    "source_file": pl.String(),
}

#: One row per saved rating of a persona item (0-9; append-only, the latest per rater and
#: item counts), with the hash of the text the rater saw.
ITEM_RATING_EVENTS_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(),
    "uid": pl.String(),
    "rater": pl.String(),
    "item_id": pl.String(),
    "score": pl.Int64(),
    "notes": pl.String(),
    "text_sha256": pl.String(),
    "created_at": pl.Datetime("us", "UTC"),
}

#: One row per draft a rater has on a form (a game's or a persona item's), as a store's
#: ``drafts`` export holds them: ``kind`` is ``game`` (answers JSON, score 1-5 or null,
#: text_sha256 null) or ``item`` (answers ``{}``, score 0-9 or null, the hash of the text).
DRAFT_EXPORT_SCHEMA: dict[str, pl.DataType] = {
    "kind": pl.String(),
    "rater": pl.String(),
    "id": pl.String(),
    "score": pl.Int64(),
    "answers": pl.String(),
    "notes": pl.String(),
    "text_sha256": pl.String(),
    "updated_at": pl.String(),
}

#: One row per saved reviewer label (append-only; the latest per game, kind, item counts).
LABEL_EVENTS_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(),
    "uid": pl.String(),
    "reviewer": pl.String(),
    "game_id": pl.String(),
    "kind": pl.String(),
    "item_id": pl.String(),
    "label": pl.Boolean(),
    "created_at": pl.Datetime("us", "UTC"),
}

#: Per transcript: how many raters, their mean, and how far apart they are.
#: ``spread`` is max - min; ``std`` the sample standard deviation (null under 2 raters).
TRANSCRIPT_AGREEMENT_SCHEMA: dict[str, pl.DataType] = {
    "transcript_id": pl.String(),
    "n": pl.Int64(),
    "mean": pl.Float64(),
    "min": pl.Float64(),
    "max": pl.Float64(),
    "spread": pl.Float64(),
    "std": pl.Float64(),
}

#: One row per pair of raters who rated at least one transcript in common.
#: ``exact`` / ``within_one``: share of shared transcripts scored the same / at most 1 apart.
PAIRWISE_AGREEMENT_SCHEMA: dict[str, pl.DataType] = {
    "rater_a": pl.String(),
    "rater_b": pl.String(),
    "shared": pl.Int64(),
    "exact": pl.Float64(),
    "within_one": pl.Float64(),
    "mean_abs_diff": pl.Float64(),
}

# ---------------------------------------------------------------------------
# compare: two sets of runs, paired by unit
# ---------------------------------------------------------------------------

#: What ``compare`` reads from each arm: one row per run and dimension. ``unit`` is the
#: pairing key (a scenario, a task, a game, proposition x agent); several rows of one
#: unit and dimension are repeated runs. ``passed`` is set on pass/fail outcomes (a
#: verdict) and null on numeric dimensions. Further String columns (``seed``,
#: ``scenario``, ``slug``...) are keys ``--pair-by`` can choose instead of ``unit``.
COMPARE_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "family": pl.String(),
    "unit": pl.String(),
    "run": pl.String(),
    "dimension": pl.String(),
    "value": pl.Float64(),
    "passed": pl.Boolean(),
}

#: One row per dimension of a comparison (see docs/rubrics/compare.md for each column).
COMPARE_DIMENSIONS_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "kind": pl.String(),  # numeric | pass/fail
    "direction": pl.Int64(),  # +1 higher is better, -1 lower is better, 0 neither
    "n": pl.Int64(),  # pairs (paired) or units in A + B (unpaired)
    "mean_a": pl.Float64(),
    "mean_b": pl.Float64(),
    "diff": pl.Float64(),  # B - A
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
    "test": pl.String(),
    "statistic": pl.Float64(),
    "p": pl.Float64(),
    "p_adj": pl.Float64(),
    "effect": pl.Float64(),  # d_z (paired) / Cohen's d (unpaired); risk difference for pass/fail
    "rank_biserial": pl.Float64(),
    "noise_floor": pl.Float64(),
    "outcome": pl.String(),  # better | worse | changed | within noise | no difference | n/a
    "note": pl.String(),
    # ci_low/ci_high are adjusted like p_adj (CompareResult.ci_level); these are at --level
    "ci_low_raw": pl.Float64(),
    "ci_high_raw": pl.Float64(),
}

#: Pass/fail outcomes of paired units: the flip table and McNemar's exact test.
COMPARE_FLIPS_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "both_pass": pl.Int64(),
    "pass_to_fail": pl.Int64(),
    "fail_to_pass": pl.Int64(),
    "both_fail": pl.Int64(),
    "p": pl.Float64(),
}

#: pass^k (tau-bench): per unit C(c, k) / C(n, k), averaged over units, per arm and k.
COMPARE_PASS_K_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "arm": pl.String(),
    "k": pl.Int64(),
    "units": pl.Int64(),
    "pass_k": pl.Float64(),
    "ci_low": pl.Float64(),  # percentile bootstrap over the units (null: fewer than 2)
    "ci_high": pl.Float64(),
}

#: How far two single runs of the same unit land apart by chance, from A's repeats.
COMPARE_NOISE_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "units": pl.Int64(),  # units of A with at least two runs
    "df": pl.Int64(),  # sum over those units of (runs - 1)
    "within_sd": pl.Float64(),
    "run_spread": pl.Float64(),  # z * sqrt(2) * within_sd: two single runs
    "floor": pl.Float64(),  # the same for this comparison's mean difference
}

#: ``--plan``: pairs per arm for the wanted power at a minimum detectable effect.
COMPARE_PLAN_SCHEMA: dict[str, pl.DataType] = {
    "dimension": pl.String(),
    "mde": pl.Float64(),
    "sd_diff": pl.Float64(),
    "source": pl.String(),
    "pairs": pl.Int64(),
    "note": pl.String(),
}

# ---------------------------------------------------------------------------
# calibrate: the judge held against human raters (issue 27)
# ---------------------------------------------------------------------------

#: The columns every calibration scores frame has, one row per item and rater; any other
#: column that is not in :data:`CALIBRATION_TEXT_SCHEMA` is a group (agent, dimension...).
CALIBRATION_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "item": pl.String(),
    "rater": pl.String(),
    "score": pl.Float64(),
}

#: The optional text columns of a calibration scores frame (never groups): ``notes`` on
#: a human's row (the rater's note), ``reasoning`` on the judge's row, and per item (the
#: same on every row of it, or on one row only) ``evidence`` (the text judged, or an
#: excerpt), ``source`` (the run/chat/game file it comes from), ``anchor`` (where in it:
#: ``m12-m40``, a game's day) and ``text_sha256`` (of the exact text the judge received).
CALIBRATION_TEXT_SCHEMA: dict[str, pl.DataType] = {
    "notes": pl.String(),
    "reasoning": pl.String(),
    "evidence": pl.String(),
    "source": pl.String(),
    "anchor": pl.String(),
    "text_sha256": pl.String(),
}

# ---------------------------------------------------------------------------
# dot-agents eval-harness runs and pass^k over per-trial results (issues 36, 37)
# ---------------------------------------------------------------------------

#: One row per eval-harness run (``.agents/eval/runs/<run-id>/``): the task it ran, the
#: agent, the verifier's verdict, the score dot-agents recorded and (when scored) the
#: toolkit's own score of its one-iteration log.
EVAL_RUNS_SCHEMA: dict[str, pl.DataType] = {
    "run_id": pl.String(),
    "task_id": pl.String(),
    "language": pl.String(),
    "difficulty": pl.String(),
    "template_id": pl.String(),
    "base_commit": pl.String(),
    "harness": pl.String(),
    "model": pl.String(),
    "session_id": pl.String(),
    "retries": pl.Int64(),
    "exit_code": pl.Int64(),
    "duration_s": pl.Float64(),
    "passed": pl.Boolean(),  # verify.passed
    "verify_phase": pl.String(),
    "verify_exit_code": pl.Int64(),
    "verify_duration_s": pl.Float64(),
    "recorded_value": pl.Float64(),  # score.value as eval-run.yaml holds it
    "recorded_band": pl.String(),
    "recorded_scored": pl.Boolean(),
    "recorded_version": pl.String(),
    "path": pl.String(),
}

#: The per-trial frame pass^k is computed from (a public input: ``toolkit compare
#: --pass-k FILE``): one row per trial of a task; ``passed`` is the verdict (from
#: ``reward`` by tau-bench's rule when only a reward is given).
PASS_K_TRIALS_SCHEMA: dict[str, pl.DataType] = {
    "task": pl.String(),
    "trial": pl.String(),
    "passed": pl.Boolean(),
    "reward": pl.Float64(),
}

#: pass^k of one set of trials, k = 1 .. the most trials of a task.
PASS_K_SCHEMA: dict[str, pl.DataType] = {
    "k": pl.Int64(),
    "tasks": pl.Int64(),  # tasks with at least k trials (those counted)
    "pass_k": pl.Float64(),
    "ci_low": pl.Float64(),
    "ci_high": pl.Float64(),
}

#: A comparison split by a task property (eval-harness runs: difficulty, language): per
#: value, the paired tasks' pass rates, pass^k and mean score in each arm, and B - A.
COMPARE_STRATA_SCHEMA: dict[str, pl.DataType] = {
    "by": pl.String(),  # difficulty | language | all
    "value": pl.String(),
    "tasks": pl.Int64(),  # paired tasks of this value
    "pass_a": pl.Float64(),  # mean over tasks of each task's pass rate
    "pass_b": pl.Float64(),
    "diff": pl.Float64(),  # pass_b - pass_a
    "ci_low": pl.Float64(),  # percentile bootstrap over tasks (null: fewer than 2)
    "ci_high": pl.Float64(),
    "k": pl.Int64(),  # the largest k every paired task reaches in both arms
    "pass_k_a": pl.Float64(),
    "pass_k_b": pl.Float64(),
    "score_a": pl.Float64(),  # mean toolkit score (null without one)
    "score_b": pl.Float64(),
    "ahead": pl.String(),  # A | B | even
}
