"""The integrity track: what a role claimed beside what was observed, per two-way
signal. It never changes the score.
"""

from __future__ import annotations

import polars as pl

from toolkit.frames import INTEGRITY_SCHEMA
from toolkit.rubrics.outcome.signals import git_scope_score, scope_note_score
from toolkit.rubrics.outcome.spec import SIGNAL_ORDER, TWO_WAY_ROLES, OutcomeRubric


def integrity_rows(inputs: pl.DataFrame, long: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    observed = long.pivot(on="signal", index="iteration", values="sub_score")
    observed = observed.rename(lambda c: c if c == "iteration" else f"obs_{c}")
    x = inputs.join(observed, on="iteration")
    persisted = pl.col("impl_persisted_via_workflow_commands").str.to_lowercase()
    persisted_claim = pl.when(persisted.is_not_null()).then(
        pl.when(persisted.str.contains("yes", literal=True)).then(1.0).otherwise(0.0)
    )
    decision_claim = (
        pl.col("review_overall_decision")
        .str.strip_chars()
        .str.to_lowercase()
        .replace_strict(rubric.review_decision_claims, default=None, return_dtype=pl.Float64)
    )
    impl_linked = pl.col("impl_linked_traces_to_outcomes")
    linked = pl.col("v_linked").fill_null(False) | impl_linked.fill_null(False)
    # A self-assessment block without the linked-traces flag is a claim of 0 (not none).
    reported = (
        pl.col("v_linked_reported").fill_null(False)
        | impl_linked.is_not_null()
        | pl.col("impl_self_assessment").fill_null(False)
        | pl.col("v_self_assessment").fill_null(False)
    )
    v1 = pl.col("schema_version") == 1
    pairs: dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]] = {
        "landed": (
            pl.lit(TWO_WAY_ROLES["landed"]),
            pl.mean_horizontal(persisted_claim, decision_claim),
            pl.col("obs_landed") if "obs_landed" in x.columns else pl.lit(None),
        ),
        "verifier": (
            pl.when(v1).then(pl.lit("impl")).otherwise(pl.lit(TWO_WAY_ROLES["verifier"])),
            pl.when(linked).then(1.0).when(reported).then(0.0),
            pl.col("obs_verifier") if "obs_verifier" in x.columns else pl.lit(None),
        ),
        "tests": (
            pl.lit(TWO_WAY_ROLES["tests"]),
            pl.mean_horizontal(
                pl.col("impl_focused_tests_pass").cast(pl.Float64),
                pl.col("impl_tests_total_pass").cast(pl.Float64),
            ),
            pl.col("obs_verifier") if "obs_verifier" in x.columns else pl.lit(None),
        ),
        "scope": (
            pl.lit(TWO_WAY_ROLES["scope"]),
            scope_note_score(rubric),
            git_scope_score(),
        ),
    }
    frames = [
        x.select(
            "iteration",
            pl.lit(signal).alias("signal"),
            role.alias("role"),
            claimed.cast(pl.Float64).alias("claimed"),
            obs.cast(pl.Float64).alias("observed"),
        )
        for signal, (role, claimed, obs) in pairs.items()
        if signal in rubric.weights()
    ]
    if not frames:
        return pl.DataFrame(schema=INTEGRITY_SCHEMA)
    return (
        pl.concat(frames)
        .filter(pl.col("claimed").is_not_null() | pl.col("observed").is_not_null())
        .with_columns((pl.col("observed") - pl.col("claimed")).alias("delta"))
        .sort("iteration", pl.col("signal").replace_strict(SIGNAL_ORDER))
        .cast(INTEGRITY_SCHEMA)  # type: ignore[arg-type]
    )
