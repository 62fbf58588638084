"""Objectives: what each iteration did, checked from transcripts and its diff; reported
beside the score, never in it.
"""

from __future__ import annotations

import polars as pl

from toolkit.frames import OUTCOME_OBJECTIVES_SCHEMA
from toolkit.load.iterlog import IterationLog
from toolkit.load.outcome_evidence import OutcomeEvidence
from toolkit.rubrics.outcome.inputs import EPOCH, signal_inputs
from toolkit.rubrics.outcome.spec import OutcomeRubric, load_outcome_rubric

#: The objectives reported per iteration, in order, with what 1 means.
OBJECTIVES: dict[str, str] = {
    "ran_cli_command": "a shell command was run in the iteration's window",
    "ran_tests_before_commit": "a test command ran in the window, before the commit",
    "read_loop_state": "the loop-state file was read in the window",
    "tests_added_by_kind_in_diff": "every test named in tests_added_by_kind is in the diff",
}

_STAMP = "%Y-%m-%dT%H:%M:%SZ"


def _transcript_counts(
    inputs: pl.DataFrame, ev: OutcomeEvidence, rubric: OutcomeRubric
) -> pl.DataFrame:
    """Per iteration, its transcript window and what happened in it: the transcript
    lines covered (``t_lines``), the shell commands, test commands and loop-state reads
    (``n_*``), each with the first one (``first_*``)."""
    spans = inputs.select(
        "iteration",
        "git_reason",
        pl.col("window_start").fill_null(EPOCH).alias("w_start"),
        pl.col("commit_time").alias("w_end"),
        pl.format(
            "({}, {}]",
            pl.coalesce(pl.col("window_start").dt.strftime(_STAMP), pl.lit("the start")),
            pl.col("commit_time").dt.strftime(_STAMP),
        ).alias("window"),
    )
    timed = spans.filter(pl.col("w_end").is_not_null())
    inside = [pl.col("timestamp") > pl.col("w_start"), pl.col("timestamp") <= pl.col("w_end")]
    covered = (
        timed.join_where(ev.transcript_turns, *inside)
        .group_by("iteration")
        .agg(pl.len().alias("t_lines"))
    )
    command = pl.col("command")
    is_test = pl.any_horizontal(
        [command.str.contains(p, literal=True) for p in rubric.test_command_patterns]
    ).fill_null(False)
    name = rubric.loop_state_file
    is_read = pl.col("path").str.ends_with(name).fill_null(False) | (
        (pl.col("harness") == "codex") & command.str.contains(name, literal=True).fill_null(False)
    )
    used = (
        timed.join_where(ev.tool_uses, *inside)
        .sort("timestamp")
        .group_by("iteration")
        .agg(
            command.is_not_null().sum().alias("n_cmd"),
            command.drop_nulls().first().alias("first_cmd"),
            is_test.sum().alias("n_test"),
            command.filter(is_test).first().alias("first_test"),
            is_read.sum().alias("n_read"),
            pl.coalesce("path", "command").filter(is_read).first().alias("first_read"),
        )
    )
    return spans.join(covered, on="iteration", how="left").join(used, on="iteration", how="left")


def _transcript_check(
    x: pl.DataFrame, reason: pl.Expr, key: str, n: str, first: str, what: str, no: str
) -> pl.DataFrame:
    """One transcript objective ``key`` from the counts ``x``: 1 when count ``n`` is above
    0, else 0, or null with ``reason`` when the transcripts cannot tell."""
    done = pl.col(n).fill_null(0) > 0
    detail = (
        pl.when(reason.is_not_null())
        .then(reason)
        .when(done)
        .then(pl.format("{} " + what + " in {}; the first: {}", n, "window", first))
        .otherwise(pl.format(no + " in {} ({} transcript lines)", "window", "t_lines"))
    )
    return x.select(
        "iteration",
        pl.lit(key).alias("objective"),
        pl.when(reason.is_null()).then(done.cast(pl.Int64)).alias("value"),
        detail.alias("detail"),
    )


def _transcript_objectives(
    inputs: pl.DataFrame, ev: OutcomeEvidence, rubric: OutcomeRubric
) -> pl.DataFrame:
    """The three transcript checks, one row per iteration and objective."""
    x = _transcript_counts(inputs, ev, rubric)
    name = rubric.loop_state_file
    given = ev.transcripts_given
    reason = (
        pl.when(pl.lit(not given))
        .then(pl.lit("no transcripts given (--transcripts)"))
        .when(pl.col("w_end").is_null())
        .then(pl.format("no commit time to window transcripts ({})", "git_reason"))
        .when(pl.col("t_lines").fill_null(0) == 0)
        .then(pl.format("no transcript coverage in {}", "window"))
    )

    def check(key: str, n: str, first: str, what: str, no: str) -> pl.DataFrame:
        return _transcript_check(x, reason, key, n, first, what, no)

    return pl.concat(
        [
            check("ran_cli_command", "n_cmd", "first_cmd", "shell command(s)", "no shell command"),
            check(
                "ran_tests_before_commit",
                "n_test",
                "first_test",
                "test command(s) before the commit",
                "no test command",
            ),
            check(
                "read_loop_state",
                "n_read",
                "first_read",
                f"read(s) of {name}",
                f"no read of {name}",
            ),
        ]
    )


def _tests_in_diff(log: IterationLog, inputs: pl.DataFrame, ev: OutcomeEvidence) -> pl.DataFrame:
    """``tests_added_by_kind_in_diff``: each named test must appear in the lines the
    commit added (a ``file::test`` name also by its last part)."""
    names = (
        log.verifiers.select("iteration", pl.col("tests_added_by_kind").alias("t"))
        .explode("t")
        .drop_nulls("t")
        .select("iteration", pl.col("t").struct.field("name").alias("name"))
        .drop_nulls("name")
        .unique(maintain_order=True)
    )
    added = pl.DataFrame(
        {"iteration": list(ev.added_lines), "added": list(ev.added_lines.values())},
        schema={"iteration": pl.Int64(), "added": pl.String()},
    )
    short = pl.col("name").str.split("::").list.last()
    checked = (
        names.join(added, on="iteration", how="left")
        .with_columns(
            (
                pl.col("added").str.contains(pl.col("name"), literal=True)
                | pl.col("added").str.contains(short, literal=True)
            ).alias("found")
        )
        .group_by("iteration", maintain_order=True)
        .agg(
            pl.len().alias("named"),
            pl.col("found").sum().alias("found"),
            pl.col("added").is_not_null().any().alias("has_diff"),
            pl.col("name").filter(~pl.col("found").fill_null(False)).str.join(", ").alias("miss"),
        )
    )
    x = inputs.select("iteration", "git_reason", "commit_sha").join(
        checked, on="iteration", how="left"
    )
    sha = pl.col("commit_sha").str.slice(0, 12)
    reason = (
        pl.when(pl.col("named").is_null())
        .then(pl.lit("no tests_added_by_kind named by a verifier"))
        .when(pl.col("commit_sha").is_null())
        .then(pl.format("no commit to check the names against ({})", "git_reason"))
        .when(~pl.col("has_diff"))
        .then(pl.format("the diff of {} could not be read", sha))
    )
    all_found = pl.col("found") == pl.col("named")
    detail = (
        pl.when(reason.is_not_null())
        .then(reason)
        .when(all_found)
        .then(pl.format("{}/{} named tests found in the diff of {}", "found", "named", sha))
        .otherwise(
            pl.format(
                "{}/{} named tests found in the diff of {}; missing: {}",
                "found",
                "named",
                sha,
                "miss",
            )
        )
    )
    return x.select(
        "iteration",
        pl.lit("tests_added_by_kind_in_diff").alias("objective"),
        pl.when(reason.is_null()).then(all_found.cast(pl.Int64)).alias("value"),
        detail.alias("detail"),
    )


def objectives(
    log: IterationLog,
    evidence: OutcomeEvidence,
    rubric: OutcomeRubric | None = None,
    inputs: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """What each iteration did, checked rather than claimed (:data:`OBJECTIVES`).

    Reported beside the score, never in it: ``ran_cli_command``,
    ``ran_tests_before_commit`` and ``read_loop_state`` from the Claude Code transcripts
    and Codex session logs in the iteration's window (the same window as token backfill:
    after the previous resolved commit, up to this commit's time), and
    ``tests_added_by_kind_in_diff`` from the commit's diff.

    Returns:
        :data:`toolkit.frames.OUTCOME_OBJECTIVES_SCHEMA`: value 1 or 0, or null with the
        reason in ``detail`` (no transcripts, no commit time, no transcript line in the
        window, no test names, no commit).
    """
    rubric = rubric or load_outcome_rubric()
    if inputs is None:
        inputs = signal_inputs(log, evidence, rubric)
    order = {key: i for i, key in enumerate(OBJECTIVES)}
    return (
        pl.concat(
            [
                _transcript_objectives(inputs, evidence, rubric),
                _tests_in_diff(log, inputs, evidence),
            ]
        )
        .sort("iteration", pl.col("objective").replace_strict(order, return_dtype=pl.Int64))
        .select(list(OUTCOME_OBJECTIVES_SCHEMA))
        .cast(OUTCOME_OBJECTIVES_SCHEMA)  # type: ignore[arg-type]
    )
