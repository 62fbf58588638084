"""The outcome signals: a (sub-score, detail) pair of Polars expressions per signal,
evaluated over the inputs (:mod:`toolkit.rubrics.outcome.inputs`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.rubrics.outcome.spec import OutcomeRubric

Signal = tuple[pl.Expr, pl.Expr]


def _num(expr: pl.Expr, places: int = 3) -> pl.Expr:
    return expr.round(places).cast(pl.String)


def _flag(expr: pl.Expr) -> pl.Expr:
    return (
        pl.when(expr.is_null())
        .then(pl.lit("unreported"))
        .when(expr)
        .then(pl.lit("true"))
        .otherwise(pl.lit("false"))
    )


def _when_fmt(condition: pl.Expr, template: str, *args: pl.Expr | str) -> pl.Expr:
    return pl.when(condition).then(pl.format(template, *args)).otherwise(pl.lit(""))


def _landed(rubric: OutcomeRubric) -> Signal:
    sha = pl.col("commit_sha")
    ok = pl.col("on_trunk") & pl.col("reverted_by").is_null()
    # 3.0.0: in an eval-harness run trunk landing does not apply (absent, never 0).
    skip = pl.col("eval_run") & pl.lit(not rubric.landed_in_eval_runs)
    score = pl.when(sha.is_not_null() & ~skip).then(pl.when(ok).then(1.0).otherwise(0.0))
    found = (
        pl.when(pl.col("commit_via") == "summary")
        .then(
            pl.format(
                "logged commit {} not in the repository; {} commit {} has the summary as its "
                "subject:",
                "commit",
                "trunk",
                sha.str.slice(0, 12),
            )
        )
        .otherwise(pl.format("commit {}", sha.str.slice(0, 12)))
    )
    where = (
        pl.when(~pl.col("on_trunk"))
        .then(pl.format("not reachable from {}", "trunk"))
        .when(pl.col("reverted_by").is_not_null())
        .then(pl.format("on {}, reverted by {}", "trunk", pl.col("reverted_by").str.slice(0, 12)))
        .otherwise(pl.format("on {}, not reverted", "trunk"))
    )
    detail = (
        pl.when(skip)
        .then(pl.lit("trunk landing not applicable (an eval-harness run)"))
        .when(sha.is_not_null())
        .then(pl.concat_str([found, where], separator=" "))
        .otherwise(pl.col("git_reason"))
    )
    return score, detail


def _verifier(rubric: OutcomeRubric) -> Signal:
    v2 = pl.col("schema_version") == 2
    total = pl.col("v_total").fill_null(0)
    scored = pl.col("v_scored").fill_null(0)
    v1_flag = pl.col("impl_tests_total_pass")
    score = (
        pl.when(v2)
        .then(pl.when(scored > 0).then(pl.col("v_mean")))
        .otherwise(v1_flag.cast(pl.Float64))
    )
    words = "/".join(rubric.verifier_status_scores)
    overridden = _when_fmt(
        pl.col("v_from_artifact").fill_null(0) > 0,
        "; {} status(es) read from result artifacts",
        "v_from_artifact",
    )
    detail = (
        pl.when(v2 & (scored > 0))
        .then(
            pl.format(
                "mean over {} of {} verifiers ({}){}", scored, total, "v_statuses", overridden
            )
        )
        .when(v2 & (total > 0))
        .then(pl.format("{} verifier(s), none with a {} status", total, pl.lit(words)))
        .when(v2)
        .then(pl.lit("no verifiers recorded"))
        .when(v1_flag.is_not_null())
        .then(pl.format("v1 entry without verifiers: tests_total_pass {}", _flag(v1_flag)))
        .otherwise(pl.lit("v1 entry without verifiers and tests_total_pass unreported"))
    )
    return score, detail


def _tests() -> Signal:
    focused, total = pl.col("impl_focused_tests_pass"), pl.col("impl_tests_total_pass")
    flags_set = (
        focused.is_not_null().cast(pl.Int64)
        + total.is_not_null().cast(pl.Int64)
        + pl.col("v_flags_set").fill_null(0)
    )
    flags_true = (
        focused.fill_null(False).cast(pl.Int64)
        + total.fill_null(False).cast(pl.Int64)
        + pl.col("v_flags_true").fill_null(0)
    )
    score = pl.when(flags_set > 0).then(flags_true / flags_set)
    detail = (
        pl.when(flags_set > 0)
        .then(
            pl.format(
                "{}/{} reported test-pass flags true (impl focused {}, impl total {}, "
                "verifiers {}/{})",
                flags_true,
                flags_set,
                _flag(focused),
                _flag(total),
                pl.col("v_flags_true").fill_null(0),
                pl.col("v_flags_set").fill_null(0),
            )
        )
        .otherwise(pl.lit("no test-pass flag reported"))
    )
    return score, detail


def _correction_pressure(rubric: OutcomeRubric) -> Signal:
    retries_known = pl.col("impl_retries").is_not_null() | pl.col("v_retries_known").fill_null(
        False
    )
    retries = pl.col("impl_retries").fill_null(0) + pl.col("v_retries").fill_null(0)
    corrections_known = pl.col("user_corrections").is_not_null()
    corrections = pl.col("user_corrections").fill_null(0) + pl.col("retries_in_loop").fill_null(0)
    results = pl.col("t_results").fill_null(0)
    errors_known = results > 0
    # errored tool results over tool results (dot-agents' rate; at most 1 by construction)
    error_rate = (
        pl.when(errors_known).then(pl.col("t_errors").fill_null(0) / results).otherwise(0.0)
    )
    # A signal of raw counts: with none recorded it is 1 / (1 + 0) = 1.0, never absent.
    present = pl.lit(True)
    friction = retries + corrections + rubric.tool_error_weight * error_rate
    score = pl.when(present).then(1.0 / (1.0 + friction))
    parts = [
        pl.when(retries_known)
        .then(pl.format("retries {} (impl + verifiers)", retries))
        .otherwise(pl.lit("retries unreported")),
        pl.when(corrections_known)
        .then(
            pl.format(
                "user corrections {} + loop retries {} (review decision)",
                "user_corrections",
                "retries_in_loop",
            )
        )
        .otherwise(pl.format("no user corrections ({})", "decision_artifact_reason")),
        pl.when(errors_known)
        .then(
            pl.format(
                "tool error rate {} ({}/{} tool results errored)",
                _num(error_rate),
                pl.col("t_errors"),
                results,
            )
        )
        .otherwise(pl.lit("no transcript tool results")),
    ]
    nothing = ~(retries_known | corrections_known | errors_known)
    detail = (
        pl.when(nothing)
        .then(pl.lit("no retries, user corrections or tool errors recorded (each counts 0)"))
        .otherwise(pl.concat_str(parts, separator="; "))
    )
    return score, detail


def _human_label() -> Signal:
    score = pl.col("hl_score")
    detail = pl.coalesce(
        pl.col("hl_detail"),
        pl.lit("no reviewers' labels (iter-N.labels.yaml missing, empty or unreadable)"),
    )
    return score, detail


def scope_note_score(rubric: OutcomeRubric) -> pl.Expr:
    note = pl.col("impl_scope_note").str.strip_chars().str.to_lowercase()
    exact = note.replace_strict(rubric.scope_note_scores, default=None, return_dtype=pl.Float64)
    out: Any = pl.when(exact.is_not_null()).then(exact)
    for prefix, value in rubric.scope_note_prefixes.items():
        out = out.when(note.str.starts_with(prefix.lower())).then(pl.lit(value))
    result: pl.Expr = out.otherwise(None).cast(pl.Float64)
    return result


def git_scope_score() -> pl.Expr:
    measured = pl.col("changed_files").is_not_null() & pl.col("write_scope").is_not_null()
    empty = pl.col("changed_files").list.len() == 0
    fraction = pl.col("s_inside").fill_null(0) / pl.col("s_files").fill_null(0)
    return pl.when(measured).then(pl.when(empty).then(1.0).otherwise(fraction))


def _scope(rubric: OutcomeRubric) -> Signal:
    git = git_scope_score()
    note = scope_note_score(rubric)
    why_no_git = pl.coalesce(
        pl.when(pl.col("commit_sha").is_null()).then(pl.col("git_reason")),
        pl.col("write_scope_reason"),
        pl.lit("no changed files"),
    )
    outside = _when_fmt(
        pl.col("s_outside_n").fill_null(0) > 0,
        "; outside: {}{}",
        "s_outside",
        pl.when(pl.col("s_outside_n") > 5).then(pl.lit(", …")).otherwise(pl.lit("")),
    )
    detail = (
        pl.when(git.is_not_null() & (pl.col("changed_files").list.len() == 0))
        .then(pl.format("commit changed no files (task {})", "task_id"))
        .when(git.is_not_null())
        .then(
            pl.format(
                "{}/{} changed files inside the write_scope of task {} (plan {}){}",
                pl.col("s_inside"),
                pl.col("s_files"),
                "task_id",
                "task_plan",
                outside,
            )
        )
        .when(note.is_not_null())
        .then(
            pl.format(
                'scope_note "{}" (no git measure: {})',
                pl.col("impl_scope_note").str.slice(0, 60),
                why_no_git,
            )
        )
        .otherwise(pl.format("no git measure ({}) and no usable scope_note", why_no_git))
    )
    return pl.coalesce(git, note), detail


def _hook_outcomes(rubric: OutcomeRubric) -> Signal:
    present = pl.col("h_collapsed").fill_null(0) > 0
    classes = ", ".join(rubric.hook_intervention_classes)
    score = pl.when(present).then(pl.col("h_score"))
    detail = (
        pl.when(present)
        .then(
            pl.format(
                "{}: {} (gate records {}, {} after collapsing by correlation_id and rule_id)",
                "h_worst",
                "h_rules",
                "h_raw",
                "h_collapsed",
            )
        )
        .when(pl.col("hook_outcomes_problem").is_not_null())
        .then(pl.col("hook_outcomes_problem"))
        .when(pl.col("hook_outcomes_file").is_null())
        .then(pl.lit("no hook-outcome sidecar"))
        .otherwise(
            pl.format(
                "sidecar has {} record(s), none of class {}",
                pl.col("h_records").fill_null(0),
                pl.lit(classes),
            )
        )
    )
    return score, detail


def _token_efficiency(transcripts_given: bool) -> Signal:
    native = pl.col("cache_hit_rate")
    cached = pl.col("t_cache_read").fill_null(0) + pl.col("t_cache_creation").fill_null(0)
    backfill = pl.when(cached > 0).then(pl.col("t_cache_read") / cached)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    start = pl.coalesce(pl.col("window_start").dt.strftime(stamp), pl.lit("the start"))
    score = pl.coalesce(native, backfill)
    no_native = "no session_tokens.cache_hit_rate"
    detail = (
        pl.when(native.is_not_null())
        .then(pl.format("session_tokens.cache_hit_rate {}", _num(native)))
        .when(backfill.is_not_null())
        .then(
            pl.format(
                "backfilled from {} transcript messages in ({}, {}]: {} cache-read / "
                "({} + {} cache-creation) tokens",
                "t_messages",
                start,
                pl.col("commit_time").dt.strftime(stamp),
                "t_cache_read",
                "t_cache_read",
                "t_cache_creation",
            )
        )
        .when(pl.lit(not transcripts_given))
        .then(pl.lit(f"{no_native} and no transcripts given (--transcripts)"))
        .when(pl.col("commit_time").is_null())
        .then(pl.format(no_native + "; no commit time to window transcripts ({})", "git_reason"))
        .otherwise(
            pl.format(
                no_native + " and no transcript cache tokens in ({}, {}]",
                start,
                pl.col("commit_time").dt.strftime(stamp),
            )
        )
    )
    return score, detail


def signal_specs(rubric: OutcomeRubric, transcripts_given: bool) -> dict[str, Signal]:
    return {
        "landed": _landed(rubric),
        "verifier": _verifier(rubric),
        "tests": _tests(),
        "human_label": _human_label(),
        "correction_pressure": _correction_pressure(rubric),
        "scope": _scope(rubric),
        "hook_outcomes": _hook_outcomes(rubric),
        "token_efficiency": _token_efficiency(transcripts_given),
    }
