"""The outcome rubric's inputs: one row per iteration with every fact the signals read
(the iteration log joined with the verifier, hook, transcript and scope facts).
"""

from __future__ import annotations

import polars as pl

from toolkit.load.iterlog import IterationLog
from toolkit.load.outcome_evidence import OutcomeEvidence
from toolkit.rubrics.outcome.labels import human_label_facts, label_view
from toolkit.rubrics.outcome.spec import OutcomeRubric

EPOCH = pl.lit(0).cast(pl.Datetime("us", "UTC"))


def _verifier_facts(log: IterationLog, ev: OutcomeEvidence, rubric: OutcomeRubric) -> pl.DataFrame:
    artifacts = ev.verifier_artifacts.select("iteration", "verifier_index", "artifact_status")
    status = pl.coalesce("artifact_status", "status").str.strip_chars().str.to_lowercase()
    scored = pl.col("v_score").is_not_null()
    has_traces = pl.col("linked_traces").list.len() > 0
    return (
        log.verifiers.join(artifacts, on=["iteration", "verifier_index"], how="left")
        .with_columns(status.alias("v_status"))
        .with_columns(
            pl.col("v_status")
            .replace_strict(rubric.verifier_status_scores, default=None, return_dtype=pl.Float64)
            .alias("v_score")
        )
        .group_by("iteration")
        .agg(
            pl.len().alias("v_total"),
            scored.sum().alias("v_scored"),
            pl.col("v_score").mean().alias("v_mean"),
            pl.col("v_status").filter(scored).str.join(", ").alias("v_statuses"),
            (pl.col("artifact_status").is_not_null() & scored).sum().alias("v_from_artifact"),
            pl.col("retries").sum().alias("v_retries"),
            pl.col("retries").is_not_null().any().alias("v_retries_known"),
            pl.col("tests_total_pass").is_not_null().sum().alias("v_flags_set"),
            pl.col("tests_total_pass").fill_null(False).sum().alias("v_flags_true"),
            (has_traces | pl.col("linked_traces_to_outcomes").fill_null(False))
            .any()
            .alias("v_linked"),
            (has_traces | pl.col("linked_traces_to_outcomes").is_not_null())
            .any()
            .alias("v_linked_reported"),
            has_traces.any().alias("v_traces"),
            pl.col("self_assessment").fill_null(False).any().alias("v_self_assessment"),
        )
    )


def _hook_facts(log: IterationLog, rubric: OutcomeRubric) -> pl.DataFrame:
    hooks = log.hook_outcomes
    every = hooks.group_by("iteration").agg(pl.len().alias("h_records"))
    in_scope = hooks.filter(
        pl.col("intervention_class").is_in(list(rubric.hook_intervention_classes))
    ).with_columns(
        pl.col("result")
        .cast(pl.String)
        .replace_strict(rubric.hook_result_scores, return_dtype=pl.Float64)
        .alias("h_score"),
        pl.coalesce("correlation_id", pl.format("record-{}", "record_index")).alias("h_corr"),
    )
    raw = in_scope.group_by("iteration").agg(pl.len().alias("h_raw"))
    collapsed = in_scope.group_by("iteration", "h_corr", "rule_id").agg(
        pl.col("h_score").min(),
        pl.col("result").cast(pl.String).sort_by("h_score").first().alias("h_result"),
    )
    worst = pl.col("h_score") == pl.col("h_score").min()
    summary = collapsed.group_by("iteration").agg(
        pl.len().alias("h_collapsed"),
        pl.col("h_score").min().alias("h_score"),
        pl.col("h_result").sort_by("h_score").first().alias("h_worst"),
        pl.col("rule_id")
        .filter(worst)
        .drop_nulls()
        .unique()
        .sort()
        .str.join(", ")
        .alias("h_rules"),
    )
    return every.join(raw, on="iteration", how="left").join(summary, on="iteration", how="left")


def _transcript_facts(windows: pl.DataFrame, ev: OutcomeEvidence) -> pl.DataFrame:
    tokens = pl.sum_horizontal(
        "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"
    )
    spans = windows.filter(pl.col("commit_time").is_not_null()).select(
        "iteration",
        pl.col("window_start").fill_null(EPOCH).alias("w_start"),
        pl.col("commit_time").alias("w_end"),
    )
    inside = spans.join_where(
        ev.transcript_events,
        pl.col("timestamp") > pl.col("w_start"),
        pl.col("timestamp") <= pl.col("w_end"),
    )
    return inside.group_by("iteration").agg(
        (tokens > 0).sum().alias("t_messages"),
        pl.col("cache_read_tokens").sum().alias("t_cache_read"),
        pl.col("cache_creation_tokens").sum().alias("t_cache_creation"),
        pl.col("tool_calls").sum().alias("t_calls"),
        pl.col("tool_errors").sum().alias("t_errors"),
        pl.col("tool_results").sum().alias("t_results"),
    )


def _scope_facts(facts: pl.DataFrame) -> pl.DataFrame:
    measured = facts.filter(
        pl.col("changed_files").is_not_null() & pl.col("write_scope").is_not_null()
    ).select("iteration", pl.col("changed_files").alias("file"), "write_scope")
    pairs = (
        measured.explode("file")
        .filter(pl.col("file").is_not_null())
        .explode("write_scope")
        .with_columns(pl.col("write_scope").str.strip_prefix("./").alias("entry"))
    )
    prefix = pl.col("entry").str.ends_with("/")
    inside = (prefix & pl.col("file").str.starts_with(pl.col("entry"))) | (
        ~prefix & (pl.col("file") == pl.col("entry"))
    )
    per_file = pairs.group_by("iteration", "file").agg(inside.any().alias("inside"))
    return per_file.group_by("iteration").agg(
        pl.len().alias("s_files"),
        pl.col("inside").sum().alias("s_inside"),
        pl.col("file").filter(~pl.col("inside")).sort().head(5).str.join(", ").alias("s_outside"),
        (~pl.col("inside")).sum().alias("s_outside_n"),
    )


def is_eval_run(log: IterationLog) -> bool:
    """Whether the log is an eval-harness run's (``.agents/eval/runs/<run-id>/iteration-log``),
    where trunk landing does not apply."""
    parts = log.root.parts
    return len(parts) >= 4 and parts[-4:-2] == ("eval", "runs") and parts[-1] == "iteration-log"


def signal_inputs(log: IterationLog, ev: OutcomeEvidence, rubric: OutcomeRubric) -> pl.DataFrame:
    facts = (
        log.iterations.join(ev.commits, on="iteration", how="left")
        .sort("iteration")
        .with_columns(pl.col("commit_time").forward_fill().shift(1).alias("window_start"))
    )
    return (
        facts.join(_verifier_facts(log, ev, rubric), on="iteration", how="left")
        .join(_hook_facts(log, rubric), on="iteration", how="left")
        .join(_transcript_facts(facts, ev), on="iteration", how="left")
        .join(_scope_facts(facts), on="iteration", how="left")
        .join(human_label_facts(label_view(log.labels, rubric)), on="iteration", how="left")
        .with_columns(pl.lit(is_eval_run(log)).alias("eval_run"))
        .sort("iteration")
    )
