"""The outcome rubric (dot-agents' 2.1.0, the default): data validation, sub-score
mappings, combination, integrity, sessions. Expected numbers are worked out by hand from
the inputs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml

from toolkit import (
    RubricError,
    collect_outcome_evidence,
    load_iteration_log,
    load_outcome_rubric,
    score_outcome,
)
from toolkit.rubrics.outcome import (
    PUBLISHED_FINGERPRINTS,
    OutcomeResult,
    combine,
    default_outcome_rubric,
)
from toolkit.rubrics.outcome.spec import _parse_packaged

RUBRIC = default_outcome_rubric()
SIGNALS = [
    "landed",
    "verifier",
    "tests",
    "correction_pressure",
    "scope",
    "hook_outcomes",
    "token_efficiency",
]


def score_dir(folder: Path, **kwargs: Any) -> OutcomeResult:
    log = load_iteration_log(folder)
    return score_outcome(log, collect_outcome_evidence(log, **kwargs))


def sub(result: OutcomeResult, iteration: int, signal: str) -> tuple[float | None, str]:
    row = result.breakdown.filter(
        (pl.col("iteration") == iteration) & (pl.col("signal") == signal)
    ).row(0, named=True)
    return row["sub_score"], row["detail"]


def write_entry(folder: Path, n: int, entry: dict[str, Any]) -> None:
    (folder / f"iter-{n}.yaml").write_text(yaml.safe_dump({"iteration": n, **entry}))


# --- the rubric as data ------------------------------------------------------------


def test_the_packaged_rubric_is_dot_agents_2_1_0_with_its_weights() -> None:
    # The numbers the toolkit computed as "2.2.0" were dot-agents' 2.1.0 all along.
    assert RUBRIC.version == "2.1.0"
    assert RUBRIC.combination == "weighted_mean_renormalized"  # dot-agents' name for it
    assert RUBRIC.weights() == {
        "landed": 0.20,
        "verifier": 0.18,
        "tests": 0.17,
        "correction_pressure": 0.13,
        "scope": 0.13,
        "hook_outcomes": 0.10,
        "token_efficiency": 0.09,
    }
    assert [(b.band, b.min) for b in RUBRIC.bands] == [
        ("excellent", 0.85),
        ("good", 0.70),
        ("fair", 0.50),
        ("poor", 0.0),
    ]
    assert PUBLISHED_FINGERPRINTS["2.1.0"] == RUBRIC.fingerprint()
    assert "2.2.0" not in PUBLISHED_FINGERPRINTS


@pytest.mark.parametrize(
    ("value", "band"),
    [
        (1.0, "excellent"),
        (0.85, "excellent"),
        (0.8499, "good"),
        (0.70, "good"),
        (0.6999, "fair"),
        (0.50, "fair"),
        (0.4999, "poor"),
        (0.0, "poor"),
        (None, "unscored"),
    ],
)
def test_band_boundaries(value: float | None, band: str) -> None:
    assert RUBRIC.band_of(value) == band
    expr = pl.select(RUBRIC.band_expr(pl.lit(value, dtype=pl.Float64))).item()
    assert expr == band


def signals_with(**weights: float) -> list[dict[str, Any]]:
    base = RUBRIC.model_dump()["signals"]
    return [{**s, "weight": weights.get(s["signal"], s["weight"])} for s in base]


def test_a_changed_weight_without_a_version_bump_is_an_error() -> None:
    changed = signals_with(landed=0.21, token_efficiency=0.08)
    with pytest.raises(RubricError, match="bump its version"):
        load_outcome_rubric({"signals": changed})
    bumped = load_outcome_rubric({"signals": changed, "version": "2.3.0-team"})
    assert bumped.weights()["landed"] == 0.21
    # A file naming 2.1.0 is dot-agents' 2.1.0 (accepted); 2.2.0 was never published.
    assert load_outcome_rubric({"version": "2.1.0"}) == RUBRIC
    with pytest.raises(RubricError, match=r"never published outcome rubric 2\.2\.0"):
        load_outcome_rubric({"version": "2.2.0"})


def test_the_rubric_file_names_its_combination_method() -> None:
    packaged = yaml.safe_load(
        (Path(__file__).parents[2] / "toolkit" / "rubrics" / "outcome.yaml").read_text()
    )
    assert packaged["combination"] == "weighted_mean_renormalized"
    with pytest.raises(RubricError, match="combination"):
        load_outcome_rubric({"version": "2.3.0-team", "combination": "geometric_mean"})


def test_the_packaged_file_is_guarded_by_its_published_fingerprint() -> None:
    text = yaml.safe_dump(
        {**RUBRIC.model_dump(mode="json"), "signals": signals_with(scope=0.12, tests=0.18)}
    )
    with pytest.raises(RubricError, match="needs a new version"):
        _parse_packaged(text, "outcome.yaml")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": " "}, "version must be set"),
        ({"signals": signals_with(landed=0.3)}, "weights sum to 1.1"),
        ({"signals": signals_with(landed=0.0, tests=0.37)}, "must be positive"),
        (
            {"signals": [*signals_with()[:-1], {**signals_with()[0], "weight": 0.09}]},
            "landed listed more than once",
        ),
        (
            {"signals": [*signals_with()[:-1], {"signal": "vibes", "label": "x", "weight": 0.09}]},
            "unknown signal 'vibes'",
        ),
        (
            {"bands": [{"band": "good", "min": 0.5}, {"band": "great", "min": 0.8}]},
            "list bands from the highest",
        ),
        ({"bands": [{"band": "ok", "min": 0.5}, {"band": "low", "min": 0.1}]}, "must start at 0"),
        ({"hook_result_scores": {"allow": 1.0, "advise": 1.5, "remediate": 0}}, r"in \[0, 1\]"),
    ],
)
def test_an_invalid_rubric_is_rejected_on_load(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RubricError, match=message):
        load_outcome_rubric({"version": "9.9.9", **change})


def test_a_rubric_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text("version: 2.1.0-team\ntool_error_weight: 3\n")
    team = load_outcome_rubric(path)
    assert (team.version, team.tool_error_weight) == ("2.1.0-team", 3.0)
    assert team.weights() == RUBRIC.weights()


# --- combination ---------------------------------------------------------------------


def long_frame(scores: dict[str, float | None], iteration: int = 1) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "iteration": [iteration] * len(SIGNALS),
            "signal": SIGNALS,
            "sub_score": [scores.get(s) for s in SIGNALS],
            "detail": ["d"] * len(SIGNALS),
        },
        schema={
            "iteration": pl.Int64,
            "signal": pl.String,
            "sub_score": pl.Float64,
            "detail": pl.String,
        },
    )


def test_all_absent_contributes_nothing() -> None:
    b = combine(long_frame({}), RUBRIC)
    assert b["present"].to_list() == [False] * 7
    assert b["contribution"].to_list() == [0.0] * 7
    assert b["effective_weight"].to_list() == [0.0] * 7


def test_one_present_signal_takes_the_whole_weight() -> None:
    b = combine(long_frame({"scope": 0.5}), RUBRIC)
    row = b.filter(pl.col("signal") == "scope").row(0, named=True)
    assert (row["effective_weight"], row["contribution"]) == (1.0, 0.5)
    assert b["contribution"].sum() == 0.5


def test_contributions_are_rounded_so_they_sum_to_the_value() -> None:
    # Present weights 0.20+0.18+0.17+0.13+0.13+0.10 = 0.91; value = 0.81/0.91 = 0.890109...
    # Exact contributions x 10^4: 2197.80, 1978.02, 1868.13, 1428.57, 1428.57, 0. Rounded
    # one by one they sum to 0.8902; by largest remainder the two missing units go to
    # landed (.80) and correction_pressure (.57, the first of the tie).
    scores = {s: 1.0 for s in SIGNALS[:5]} | {"hook_outcomes": 0.0}
    b = combine(long_frame(scores), RUBRIC)
    assert b["contribution"].to_list() == [0.2198, 0.1978, 0.1868, 0.1429, 0.1428, 0.0, 0.0]
    assert math.isclose(b["contribution"].sum(), 0.8901, abs_tol=1e-12)


def test_combination_is_per_iteration() -> None:
    frame = pl.concat([long_frame({"landed": 1.0}, 1), long_frame({"landed": 0.0}, 2)])
    b = combine(frame, RUBRIC)
    assert b.group_by("iteration").agg(pl.col("contribution").sum()).sort("iteration").rows() == [
        (1, 1.0),
        (2, 0.0),
    ]


# --- the sample log, scored with its repository and transcript ------------------------


@pytest.fixture
def sample(tally_log: Path, tally_repo: Path, tally_transcripts: Path) -> OutcomeResult:
    return score_dir(tally_log, repo=tally_repo, transcripts=[tally_transcripts])


def test_landed(sample: OutcomeResult) -> None:
    assert sub(sample, 1, "landed")[0] == 1.0  # stand-in: a trunk commit with the summary
    assert "has the summary as its subject" in sub(sample, 1, "landed")[1]
    assert sub(sample, 2, "landed") == (
        0.0,
        "commit dcb6f5735cc0 on main, reverted by 699ae9356e26",
    )
    assert sub(sample, 3, "landed") == (None, "no commit recorded in the log")
    assert sub(sample, 4, "landed")[0] == 1.0
    assert sub(sample, 5, "landed") == (0.0, "commit 2cda6b376e28 not reachable from main")


def test_verifier(sample: OutcomeResult) -> None:
    # iter-4: the result artifact's "partial" overrides the inline "pass"; mean(0.5, 1.0).
    assert sub(sample, 4, "verifier")[0] == 0.75
    assert "1 status(es) read from result artifacts" in sub(sample, 4, "verifier")[1]
    assert sub(sample, 5, "verifier")[0] == 0.0
    assert sub(sample, 1, "verifier")[0] == 1.0  # v1: tests_total_pass fallback
    assert sub(sample, 3, "verifier")[0] is None  # v1, flag unreported


def test_tests(sample: OutcomeResult) -> None:
    assert sub(sample, 5, "tests")[0] == 0.5  # focused true, verifier total false
    assert sub(sample, 4, "tests")[0] == 1.0  # 3 of 3
    assert sub(sample, 2, "tests")[0] == 1.0  # the pass count 3
    assert sub(sample, 3, "tests") == (None, "no test-pass flag reported")


def test_correction_pressure(sample: OutcomeResult) -> None:
    # iter-4: retries 1 (impl) + 0 + 1 (verifiers) = 2; 2 user corrections; tool errors
    # 1 of 6 calls in (2026-03-03T10:00, 2026-03-05T14:00] -> 1 / (1 + 2 + 2 + 2/6).
    value, detail = sub(sample, 4, "correction_pressure")
    assert value == pytest.approx(1 / (5 + 1 / 3))
    assert "tool error rate 0.167 (1/6 tool results errored)" in detail
    assert sub(sample, 3, "correction_pressure")[0] == 0.5  # 1 retry
    # iter-5: retries 0 + 2; 1 error in 2 calls -> 1 / (1 + 2 + 1).
    assert sub(sample, 5, "correction_pressure")[0] == 0.25


def test_scope(sample: OutcomeResult) -> None:
    value, detail = sub(sample, 4, "scope")
    assert value == pytest.approx(2 / 3)
    assert detail.endswith("outside: README.md")
    assert sub(sample, 1, "scope")[0] == 1.0  # tests/ is a folder prefix
    # No commit: falls back to scope_note, free text starting with "on-target".
    assert sub(sample, 3, "scope")[0] == 1.0


def test_hook_outcomes(sample: OutcomeResult) -> None:
    # iter-6: advise + remediate sharing (correlation_id, rule_id) collapse to remediate.
    assert sub(sample, 6, "hook_outcomes") == (
        0.0,
        "remediate: iteration-close.R1.1 (gate records 3, 2 after collapsing by "
        "correlation_id and rule_id)",
    )
    assert sub(sample, 5, "hook_outcomes")[0] == 0.6  # continuity_advice not counted
    assert sub(sample, 4, "hook_outcomes") == (None, "no hook-outcome sidecar")


def test_token_efficiency(sample: OutcomeResult) -> None:
    assert sub(sample, 5, "token_efficiency")[0] == 0.72  # native
    # iter-4 backfilled: 45800 cache-read / (45800 + 8000).
    assert sub(sample, 4, "token_efficiency")[0] == pytest.approx(45800 / 53800)
    assert sub(sample, 6, "token_efficiency")[0] is None  # no transcript in its window


def test_scores_bands_and_breakdown_sums(sample: OutcomeResult) -> None:
    # iter-5, all seven present: .17*.5 + .13*.25 + .13*1 + .10*.6 + .09*.72 = 0.3723.
    scores = {r["iteration"]: r for r in sample.scores.to_dicts()}
    assert (scores[5]["value"], scores[5]["band"], scores[5]["signals_present"]) == (
        0.3723,
        "poor",
        7,
    )
    # iter-3: correction 0.5 and scope 1.0, equal weights -> 0.75.
    assert (scores[3]["value"], scores[3]["band"]) == (0.75, "good")
    sums = sample.breakdown.group_by("iteration").agg(pl.col("contribution").sum())
    for iteration, total in sums.rows():
        assert total == pytest.approx(scores[iteration]["value"], abs=1e-12)


def test_without_a_repository_git_signals_are_absent_and_say_why(tally_log: Path) -> None:
    result = score_dir(tally_log)
    assert sub(result, 4, "landed") == (None, "no repository given (--repo)")
    assert sub(result, 2, "scope")[0] == 0.5  # scope_note "partial"
    assert "no repository given" in sub(result, 2, "scope")[1]
    assert sub(result, 4, "token_efficiency")[1] == (
        "no session_tokens.cache_hit_rate and no transcripts given (--transcripts)"
    )


def test_nothing_recorded_scores_correction_pressure_alone(tmp_path: Path) -> None:
    # dot-agents: correction pressure is raw counts (none recorded -> 1 / (1 + 0) = 1.0).
    write_entry(tmp_path, 1, {"schema_version": 2, "agent": {"session_id": "s1"}})
    row = score_dir(tmp_path).scores.row(0, named=True)
    assert (row["scored"], row["value"], row["band"], row["signals_present"]) == (
        True,
        1.0,
        "excellent",
        1,
    )
    assert sub(score_dir(tmp_path), 1, "correction_pressure") == (
        1.0,
        "no retries, user corrections or tool errors recorded (each counts 0)",
    )


def test_nothing_present_is_unscored(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "agent": {"session_id": "s1"}})
    only_verifier = [{"signal": "verifier", "label": "Verifier results", "weight": 1.0}]
    rubric = load_outcome_rubric({"version": "2.1.0-verifier-only", "signals": only_verifier})
    log = load_iteration_log(tmp_path)
    result = score_outcome(log, collect_outcome_evidence(log), rubric)
    row = result.scores.row(0, named=True)
    assert (row["scored"], row["value"], row["band"], row["signals_present"]) == (
        False,
        None,
        "unscored",
        0,
    )
    assert sub(result, 1, "verifier") == (None, "no verifiers recorded")
    session = result.sessions.row(0, named=True)
    assert (session["scored"], session["value"], session["band"]) == (False, None, "unscored")


def test_unknown_verifier_statuses_are_excluded(tmp_path: Path) -> None:
    write_entry(
        tmp_path,
        1,
        {"schema_version": 2, "verifiers": [{"status": "pass"}, {"status": "unknown"}]},
    )
    assert sub(score_dir(tmp_path), 1, "verifier") == (1.0, "mean over 1 of 2 verifiers (pass)")


def test_hook_sidecar_without_gate_records_is_absent(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    (tmp_path / "iter-1.hook-outcomes.yaml").write_text(
        "schema_version: 1\nrecords:\n"
        "  - {intervention_class: observe_tool_result, result: remediate, rule_id: r}\n"
    )
    write_entry(tmp_path, 2, {"schema_version": 2})
    (tmp_path / "iter-2.hook-outcomes.yaml").write_text(
        "schema_version: 1\nrecords:\n"
        "  - {intervention_class: prevent_before_action, result: allow, rule_id: a}\n"
        "  - {intervention_class: remediate_at_stop, result: allow, rule_id: b}\n"
    )
    result = score_dir(tmp_path)
    value, detail = sub(result, 1, "hook_outcomes")
    assert value is None and detail.startswith("sidecar has 1 record(s), none of class")
    assert sub(result, 2, "hook_outcomes")[0] == 1.0


@pytest.mark.parametrize(
    ("sidecar", "why"),
    [
        ("schema_version: 1\nrecords: [\n", "unreadable (line 3): not valid YAML"),
        ("schema_version: 7\nrecords: []\n", "unreadable (line 1): schema_version=7"),
        ("- just\n- a list\n", "unreadable (line 1): a hook-outcome sidecar must be a mapping"),
    ],
)  # fmt: skip
def test_an_unreadable_hook_sidecar_says_why_not_no_sidecar(
    tmp_path: Path, sidecar: str, why: str
) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    (tmp_path / "iter-1.hook-outcomes.yaml").write_text(sidecar)
    value, detail = sub(score_dir(tmp_path), 1, "hook_outcomes")
    assert value is None
    assert detail.startswith(f"iter-1.hook-outcomes.yaml {why}")


def test_an_out_of_range_sub_score_is_clamped_and_reported_not_dropped(tmp_path: Path) -> None:
    # A cache hit rate of 82 (a percentage where a fraction belongs) and one of -0.5.
    write_entry(tmp_path, 1, {"schema_version": 2, "session_tokens": {"cache_hit_rate": 82}})
    write_entry(tmp_path, 2, {"schema_version": 2, "session_tokens": {"cache_hit_rate": -0.5}})
    result = score_dir(tmp_path)
    high, high_detail = sub(result, 1, "token_efficiency")
    low, low_detail = sub(result, 2, "token_efficiency")
    assert (high, low) == (1.0, 0.0)
    assert "sub-score 82.0 is outside [0, 1]: clamped to 1.0" in high_detail
    assert "sub-score -0.5 is outside [0, 1]: clamped to 0.0" in low_detail
    # Beside correction pressure (nothing recorded: 1.0, weight 0.13), the clamped
    # sub-score counts: (0.09 x 1 + 0.13) / 0.22 = 1.0 and (0.09 x 0 + 0.13) / 0.22 = 0.5909.
    assert result.scores["value"].to_list() == [1.0, 0.5909]
    assert [w for w in result.warnings if "clamped" in w] == [
        "iteration 1: the token_efficiency sub-score 82 is outside [0, 1]; clamped to 1",
        "iteration 2: the token_efficiency sub-score -0.5 is outside [0, 1]; clamped to 0",
    ]


def test_breakdown_rows_carry_the_signal_label(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "verifiers": [{"status": "pass"}]})
    rows = score_dir(tmp_path).breakdown.select("signal", "label").rows()
    assert rows == [(s.signal, s.label) for s in RUBRIC.signals]
    assert ("verifier", "Verifier results") in rows


# --- integrity ------------------------------------------------------------------------


def test_integrity_pairs_and_signs(sample: OutcomeResult) -> None:
    pairs = {
        (r["iteration"], r["signal"]): (r["role"], r["claimed"], r["observed"], r["delta"])
        for r in sample.integrity.to_dicts()
    }
    # Persisted "yes" but reverted: an over-claim by the implementation.
    assert pairs[(2, "landed")] == ("impl", 1.0, 0.0, -1.0)
    # Persisted "yes" + review accept (mean 1.0) on an unmerged spike branch.
    assert pairs[(5, "landed")] == ("impl", 1.0, 0.0, -1.0)
    # Focused tests claimed passing; the verifier failed.
    assert pairs[(5, "tests")] == ("impl", 1.0, 0.0, -1.0)
    # Linked traces recorded; the verifier sub-score is 0.75.
    assert pairs[(4, "verifier")] == ("verifier", 1.0, 0.75, -0.25)
    role, claimed, observed, delta = pairs[(4, "scope")]
    assert (role, claimed, observed) == ("impl", 1.0, pytest.approx(2 / 3))
    assert delta == pytest.approx(-1 / 3)
    # "partial" claimed, every file in scope: an under-claim.
    assert pairs[(2, "scope")] == ("impl", 0.5, 1.0, 0.5)
    # No commit: the claim stands alone, no delta.
    assert pairs[(3, "scope")] == ("impl", 1.0, None, None)


def test_review_decisions_as_landing_claims(tmp_path: Path) -> None:
    for n, decision in [(1, "escalate"), (2, "reject")]:
        write_entry(
            tmp_path,
            n,
            {
                "schema_version": 2,
                "impl": {"self_assessment": {"persisted_via_workflow_commands": "yes"}},
                "review": {"overall_decision": decision},
            },
        )
    claims = score_dir(tmp_path).integrity.filter(pl.col("signal") == "landed")
    # mean(1.0 persisted, 0.5 escalate) and mean(1.0, 0.0 reject); nothing observed.
    assert claims.select("iteration", "claimed", "observed", "delta").rows() == [
        (1, 0.75, None, None),
        (2, 0.5, None, None),
    ]


def test_integrity_never_changes_the_score(tmp_path: Path, tally_log: Path) -> None:
    import shutil

    copy = tmp_path / "log"
    shutil.copytree(tally_log, copy)
    path = copy / "iter-5.yaml"
    text = path.read_text().replace("yes, checkpointed", "no").replace("accept", "reject")
    path.write_text(text)
    before, after = score_dir(tally_log), score_dir(copy)
    assert before.scores.equals(after.scores)
    assert not before.integrity.equals(after.integrity)


# --- sessions ---------------------------------------------------------------------------


def test_sessions_are_the_mean_of_their_scored_iterations(sample: OutcomeResult) -> None:
    sessions = {r["session_id"]: r for r in sample.sessions.to_dicts()}
    a = sessions["4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10"]
    assert a["iterations"] == [4, 5] and a["scored_iterations"] == 2
    assert a["value"] == pytest.approx((0.7696 + 0.3723) / 2, abs=1e-4)
    assert a["band"] == "fair"
    b = sessions["9e0b5c37-1a2d-4f6e-8b90-c4d5e6f7a8b9"]
    assert (b["iterations"], b["value"], b["band"]) == ([6], 0.8901, "excellent")
    assert len(sessions) == 2  # v1 iterations have no session id: skipped


def test_unscored_iterations_do_not_vote_in_their_session(tmp_path: Path) -> None:
    # Under a rubric of the verifier alone (correction pressure is never absent).
    write_entry(tmp_path, 1, {"schema_version": 2, "agent": {"session_id": "s"}})
    write_entry(
        tmp_path,
        2,
        {"schema_version": 2, "agent": {"session_id": "s"}, "verifiers": [{"status": "partial"}]},
    )
    write_entry(tmp_path, 3, {"schema_version": 2, "agent": {"session_id": ""}})
    only_verifier = [{"signal": "verifier", "label": "Verifier results", "weight": 1.0}]
    rubric = load_outcome_rubric({"version": "2.1.0-verifier-only", "signals": only_verifier})
    log = load_iteration_log(tmp_path)
    session = score_outcome(log, collect_outcome_evidence(log), rubric).sessions.to_dicts()
    assert session == [
        {
            "session_id": "s",
            "iterations": [1, 2],
            "scored_iterations": 1,
            "scored": True,
            "value": 0.5,
            "band": "fair",
        }
    ]
