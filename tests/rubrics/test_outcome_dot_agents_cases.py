"""The cases of dot-agents' own scoring tests, as this project's tests: rubric validation,
bands, renormalisation, signals, hook outcomes, human labels (3.0.0), integrity, sessions,
backfill, objective checks and the sidecars ``da score`` writes.

Written from FORMATS.md (sections 2 and 5) and the rubric text; every expected number is
worked out by hand in the comment beside it. Where the toolkit differs from dot-agents on
purpose, the difference is on docs/rubrics/outcome.md ("Coming from dot-agents' scorer").
"""

from __future__ import annotations

import json
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
from toolkit.cli import main
from toolkit.load.labels import label_rating_events
from toolkit.load.transcripts import load_transcripts
from toolkit.rubrics.outcome import OutcomeResult, OutcomeRubric
from toolkit.rubrics.outcome.signals import signal_specs
from toolkit.sidecars import iteration_sidecar, session_sidecar, write_score_sidecars

V21 = load_outcome_rubric("dot-agents-2.1.0")
V30 = load_outcome_rubric("dot-agents-3.0.0")
SAMPLE = Path(__file__).parents[2] / "sample_runs" / "iteration_logs" / "tally-loop"


def write_entry(folder: Path, n: int, entry: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"iter-{n}.yaml").write_text(yaml.safe_dump({"iteration": n, **entry}))


def score(folder: Path, rubric: OutcomeRubric = V21, **kwargs: Any) -> OutcomeResult:
    log = load_iteration_log(folder)
    return score_outcome(log, collect_outcome_evidence(log, **kwargs), rubric)


def sub(result: OutcomeResult, iteration: int, signal: str) -> tuple[float | None, str]:
    row = result.breakdown.filter(
        (pl.col("iteration") == iteration) & (pl.col("signal") == signal)
    ).row(0, named=True)
    return row["sub_score"], row["detail"]


def value(result: OutcomeResult, iteration: int) -> float | None:
    return result.scores.filter(pl.col("iteration") == iteration)["value"].item()


def label(actor: str, when: str, structured: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": "0" * 32,
        "iteration": 1,
        "actor": actor,
        "role": extra.pop("role", "reviewer"),
        "schema_version": "1.0",
        "created_at": when,
        "updated_at": when,
        "history": [{"actor": actor, "timestamp": when, "structured": structured}],
        **extra,
    }


def write_labels(folder: Path, n: int, labels: list[dict[str, Any]], version: str = "1.0") -> None:
    doc = {"iteration": n, "schema_version": version, "labels": labels}
    (folder / f"iter-{n}.labels.yaml").write_text(yaml.safe_dump(doc))


GOOD = {"correctness": 3, "scope_judgement": "on-target", "hallucination": "none"}
BAD = {"correctness": 0, "scope_judgement": "breach", "hallucination": "major"}


# --- rubric validation ----------------------------------------------------------------


def test_both_published_rubrics_by_name_with_their_weights_in_the_published_order() -> None:
    assert (V21.version, V30.version) == ("2.1.0", "3.0.0")
    assert V21.weights() == {
        "landed": 0.20,
        "verifier": 0.18,
        "tests": 0.17,
        "correction_pressure": 0.13,
        "scope": 0.13,
        "hook_outcomes": 0.10,
        "token_efficiency": 0.09,
    }
    assert list(V30.weights().items()) == [
        ("landed", 0.17),
        ("verifier", 0.15),
        ("tests", 0.14),
        ("human_label", 0.15),
        ("correction_pressure", 0.11),
        ("scope", 0.11),
        ("hook_outcomes", 0.09),
        ("token_efficiency", 0.08),
    ]
    assert load_outcome_rubric() == V21  # the default


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"signals": [{"signal": "landed", "label": "L", "weight": 0.9}]}, "sum to 0.9"),
        ({"signals": [{"signal": "vibes", "label": "V", "weight": 1.0}]}, "unknown signal"),
        (
            {
                "signals": [
                    {"signal": "tests", "label": "T", "weight": 0.5},
                    {"signal": "tests", "label": "T", "weight": 0.5},
                ]
            },
            "listed more than once",
        ),
        (
            {
                "signals": [
                    {"signal": "tests", "label": "T", "weight": 1.0},
                    {"signal": "scope", "label": "S", "weight": 0.0},
                ]
            },
            "must be positive",
        ),
        ({"bands": [{"band": "a", "min": 0.5}, {"band": "b", "min": 0.6}]}, "must be below"),
        ({"bands": [{"band": "a", "min": 0.9}, {"band": "b", "min": 0.1}]}, "must start at 0"),
        ({"label_scope_scores": {"on-target": 1.5}}, "must be in [0, 1]"),
        ({"combination": "weighted_sum"}, "weighted_mean_renormalized"),
    ],
)
def test_an_invalid_rubric_is_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RubricError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_outcome_rubric({"version": "9.0.0-test", **change})


def test_a_file_naming_a_published_version_is_that_version_and_cannot_change_it() -> None:
    assert load_outcome_rubric({"version": "3.0.0"}) == V30
    assert load_outcome_rubric({"version": "2.1.0"}) == V21
    with pytest.raises(RubricError, match="bump its version"):
        load_outcome_rubric({"version": "3.0.0", "tool_error_weight": 3})
    with pytest.raises(RubricError, match=r"never published outcome rubric 2\.2\.0"):
        load_outcome_rubric({"version": "2.2.0"})


# --- bands and renormalisation ----------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "band"),
    [(0.85, "excellent"), (0.8499, "good"), (0.70, "good"), (0.6999, "fair"), (0.5, "fair"),
     (0.4999, "poor"), (0.0, "poor"), (None, "unscored")],
)  # fmt: skip
def test_both_versions_share_the_bands(x: float | None, band: str) -> None:
    assert V21.band_of(x) == V30.band_of(x) == band


def test_a_partial_verifier_alone_is_good_not_fair(tmp_path: Path) -> None:
    # The case: verifier partial 0.5 and correction pressure 1.0 (none recorded).
    # 2.1.0: (0.18 x 0.5 + 0.13 x 1) / 0.31 = 0.22 / 0.31 = 0.709677 -> 0.7097, good.
    # 3.0.0: (0.15 x 0.5 + 0.11 x 1) / 0.26 = 0.185 / 0.26 = 0.711538 -> 0.7115, good.
    write_entry(tmp_path, 1, {"schema_version": 2, "verifiers": [{"status": "partial"}]})
    for rubric, expected in ((V21, 0.7097), (V30, 0.7115)):
        result = score(tmp_path, rubric)
        assert (value(result, 1), result.scores["band"][0]) == (expected, "good")
        effective = dict(result.breakdown.select("signal", "effective_weight").rows())
        total = 0.31 if rubric is V21 else 0.26
        assert effective["verifier"] == pytest.approx(rubric.weights()["verifier"] / total)
        assert effective["landed"] == 0.0


def test_contributions_sum_to_the_value(tmp_path: Path) -> None:
    # verifier 1/3 (pass, fail, fail), tests 1/2, correction 1/(1+1) = 0.5:
    # (0.18/3 + 0.17/2 + 0.13/2) / 0.48 = (0.06 + 0.085 + 0.065) / 0.48 = 0.4375.
    entry = {
        "schema_version": 2,
        "impl": {"retries": 1, "focused_tests_pass": True},
        "verifiers": [
            {"status": "pass", "tests_total_pass": False},
            {"status": "fail"},
            {"status": "FAIL"},
        ],
    }
    write_entry(tmp_path, 1, entry)
    result = score(tmp_path)
    assert value(result, 1) == 0.4375
    assert result.breakdown["contribution"].sum() == pytest.approx(0.4375, abs=1e-12)


# --- signals ---------------------------------------------------------------------------


def pressure(**columns: Any) -> tuple[float, str]:
    base: dict[str, Any] = {
        "impl_retries": None,
        "v_retries_known": None,
        "v_retries": None,
        "user_corrections": None,
        "retries_in_loop": None,
        "t_results": None,
        "t_errors": None,
        "decision_artifact_reason": "no review decision_artifact in the log",
    }
    schema = {k: pl.Int64() for k in base} | {
        "v_retries_known": pl.Boolean(),
        "decision_artifact_reason": pl.String(),
    }
    frame = pl.DataFrame([base | columns], schema=schema)
    expr, detail = signal_specs(V21, True)["correction_pressure"]
    row = frame.select(expr.alias("s"), detail.alias("d")).row(0)
    return row[0], row[1]


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({}, 1.0),  # none recorded: 1 / (1 + 0)
        ({"impl_retries": 2}, 1 / 3),
        ({"impl_retries": 1, "user_corrections": 2, "retries_in_loop": 1}, 1 / 5),
        # errored tool results / tool results: 1 / 4 -> 1 / (1 + 2 x 0.25) = 2 / 3
        ({"t_results": 4, "t_errors": 1}, 2 / 3),
        ({"t_results": 2, "t_errors": 2, "impl_retries": 1}, 1 / 4),  # 1 / (1 + 1 + 2)
    ],
)
def test_correction_pressure_from_raw_counts(columns: dict[str, Any], expected: float) -> None:
    assert pressure(**columns)[0] == pytest.approx(expected)


def test_the_tool_error_rate_counts_tool_results_once_each(tmp_path: Path) -> None:
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {}} for i in range(5)]
    results = [
        {"type": "tool_result", "tool_use_id": "t0", "is_error": True},
        {"type": "tool_result", "tool_use_id": "t1", "is_error": False},
        {"type": "tool_result", "tool_use_id": "t2"},
    ]
    lines = [
        {"type": "assistant", "timestamp": "2026-03-01T10:00:00Z",
         "message": {"id": "m1", "role": "assistant", "content": uses}},
        {"type": "user", "timestamp": "2026-03-01T10:00:01Z",
         "message": {"role": "user", "content": results}},
        # Claude Code repeats a line: the same result is not counted twice.
        {"type": "user", "timestamp": "2026-03-01T10:00:01Z",
         "message": {"role": "user", "content": results[:1]}},
    ]  # fmt: skip
    (tmp_path / "s.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    events = load_transcripts([tmp_path]).events
    # 5 calls, 3 results of which 1 errored: the rate is 1/3, not 1/5.
    assert (events["tool_calls"].sum(), events["tool_results"].sum()) == (5, 3)
    assert events["tool_errors"].sum() == 1


@pytest.mark.parametrize(
    ("note", "expected"),
    [("on-target", 1.0), ("Partial", 0.5), ("scope-breach", 0.0),
     ("on-target (reader only)", 1.0), ("mostly fine", None)],
)  # fmt: skip
def test_scope_note_mapping(tmp_path: Path, note: str, expected: float | None) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "impl": {"scope_note": note}})
    assert sub(score(tmp_path), 1, "scope")[0] == expected


def test_tests_is_the_fraction_of_reported_flags(tmp_path: Path) -> None:
    # focused true, total unreported (""), verifier totals true and 0 (false): 2 of 3.
    entry = {
        "schema_version": 2,
        "impl": {"focused_tests_pass": True, "tests_total_pass": ""},
        "verifiers": [{"tests_total_pass": "yes"}, {"tests_total_pass": 0}],
    }
    write_entry(tmp_path, 1, entry)
    assert sub(score(tmp_path), 1, "tests")[0] == pytest.approx(2 / 3)


def test_token_efficiency_native_rate(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "session_tokens": {"cache_hit_rate": 0.8}})
    assert sub(score(tmp_path), 1, "token_efficiency")[0] == 0.8


# --- hook outcomes -----------------------------------------------------------------------


def hooks(folder: Path, records: list[dict[str, Any]]) -> None:
    doc = {"schema_version": 1, "records": records}
    (folder / "iter-1.hook-outcomes.yaml").write_text(yaml.safe_dump(doc))


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([("prevent_before_action", "allow", "c1", "r1")], 1.0),
        ([("prevent_before_action", "allow", "c1", "r1"),
          ("remediate_at_stop", "advise", "c2", "r2")], 0.6),
        # one (correlation, rule) pair: its most severe result, remediate -> 0
        ([("remediate_at_stop", "advise", "c1", "r1"),
          ("remediate_at_stop", "remediate", "c1", "r1")], 0.0),
        ([("continuity_advice", "remediate", "c1", "r1")], None),  # observational only
    ],
)  # fmt: skip
def test_hook_outcomes(tmp_path: Path, records: list[tuple[str, ...]], expected: float) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    hooks(
        tmp_path,
        [
            {"intervention_class": c, "result": r, "correlation_id": k, "rule_id": rule}
            for c, r, k, rule in records
        ],
    )
    assert sub(score(tmp_path), 1, "hook_outcomes")[0] == expected


# --- human labels (3.0.0) --------------------------------------------------------------


def test_human_label_reads_the_sample_as_dot_agents_does() -> None:
    result = score(SAMPLE, V30)
    got = {n: sub(result, n, "human_label")[0] for n in (2, 3, 4, 5, 6)}
    # iter-2: (1/3 + 1 + 1) / 3 = 0.7778 and (2/3 + 1 + 1) / 3 = 0.8889 -> 0.8333
    # iter-4: lee's latest edit (2, partial, minor) (2/3 + 0.5 + 0.5) / 3 = 0.5556, not his
    #         first (3, on-target, none); maya (2/3 + 0.5 + 1) / 3 = 0.7222 -> 0.6389
    # iter-5: (1/3 + 1 + 0.5) / 3 = 0.6111 and (0 + 1 + 0) / 3 = 0.3333 -> 0.4722
    # iter-6: the admin override alone: (2/3 + 1 + 1) / 3 = 0.8889
    expected = {2: 5 / 6, 3: None, 4: 23 / 36, 5: 17 / 36, 6: 8 / 9}
    for n, want in expected.items():
        assert got[n] == (None if want is None else pytest.approx(want)), n
    # 3.0.0, iter-2 without a repository: verifier 1, tests 1, human 5/6, correction 1,
    # scope note "partial" 0.5: (0.15 + 0.14 + 0.125 + 0.11 + 0.055) / 0.66 = 0.878788.
    assert value(result, 2) == 0.8788
    # 2.1.0 does not score them (and the output says so).
    assert "human_label" not in score(SAMPLE).breakdown["signal"].to_list()


def test_latest_label_per_actor_and_admin_override(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    write_labels(
        tmp_path,
        1,
        [
            label("ana", "2026-05-01T10:00:00Z", BAD),
            label("ana", "2026-05-02T10:00:00Z", GOOD),  # ana's latest: 1.0
            label("ben", "2026-05-01T11:00:00Z", {"correctness": 1}),  # 1/3
        ],
    )
    assert sub(score(tmp_path, V30), 1, "human_label")[0] == pytest.approx((1 + 1 / 3) / 2)
    write_labels(
        tmp_path,
        1,
        [
            label("ana", "2026-05-02T10:00:00Z", GOOD),
            label("root", "2026-05-03T10:00:00Z", BAD, role="admin", admin_override=True),
        ],
    )
    value_, detail = sub(score(tmp_path, V30), 1, "human_label")
    assert value_ == 0.0 and "admin override" in detail


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        (None, None),  # no file
        ("", None),  # empty
        ("iteration: 1\nschema_version: '1.0'\nlabels: []\n", None),
        ("iteration: 1\nschema_version: '2.0'\nlabels: []\n", "schema_version='2.0'"),
        ("iteration: 1\nlabels: [unclosed\n", "not valid YAML"),
    ],
)
def test_human_label_is_absent_when_missing_empty_unreadable_or_another_major(
    tmp_path: Path, text: str | None, warned: str | None
) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    if text is not None:
        (tmp_path / "iter-1.labels.yaml").write_text(text)
    result = score(tmp_path, V30)
    assert sub(result, 1, "human_label")[0] is None
    named = [w for w in result.warnings if "iter-1.labels.yaml" in w]
    assert (named[0] if named else None) is None if warned is None else warned in named[0]


def test_a_label_with_an_answer_out_of_range_is_skipped_and_named(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    write_labels(tmp_path, 1, [label("ana", "2026-05-01T10:00:00Z", {"correctness": 5})])
    result = score(tmp_path, V30)
    assert sub(result, 1, "human_label")[0] is None
    assert any("structured.correctness=5: must be 0 to 3" in w for w in result.warnings)


def test_labels_are_rating_events_with_the_actor_as_rater() -> None:
    events = label_rating_events(load_iteration_log(SAMPLE).labels)
    assert events.height == 9
    first = events.row(0, named=True)
    assert (first["rater"], first["transcript_id"], first["score"]) == ("maya.okafor", "iter-2", 1)
    assert json.loads(first["answers"])["scope_judgement"] == "on-target"


# --- landed in eval-harness runs (3.0.0) ------------------------------------------------


def test_landed_is_absent_in_an_eval_harness_run_under_3_0_0(tmp_path: Path) -> None:
    log = tmp_path / ".agents" / "eval" / "runs" / "run-1" / "iteration-log"
    write_entry(log, 1, {"schema_version": 2, "commit": "abc1234", "wave": "run-1"})
    value_, detail = sub(score(log, V30), 1, "landed")
    assert (value_, detail) == (None, "trunk landing not applicable (an eval-harness run)")
    assert "not applicable" not in sub(score(log, V21), 1, "landed")[1]


# --- integrity --------------------------------------------------------------------------


def test_a_self_assessment_block_without_the_flag_claims_zero(tmp_path: Path) -> None:
    sa = {"persisted_via_workflow_commands": "yes"}
    base = {"schema_version": 2, "verifiers": [{"status": "pass"}]}
    write_entry(tmp_path, 1, {**base, "impl": {"self_assessment": sa}})
    write_entry(tmp_path, 2, base)  # no block: no claim
    linked = {"status": "pass", "linked_traces": [{"trace_ref": "t", "outcome_ref": "o"}]}
    write_entry(tmp_path, 3, {"schema_version": 2, "verifiers": [linked]})
    rows = {
        r["iteration"]: (r["claimed"], r["observed"], r["delta"])
        for r in score(tmp_path).integrity.filter(pl.col("signal") == "verifier").to_dicts()
    }
    assert rows == {1: (0.0, 1.0, 1.0), 2: (None, 1.0, None), 3: (1.0, 1.0, 0.0)}


# --- sessions -----------------------------------------------------------------------------


def test_session_is_the_mean_of_its_iterations_under_3_0_0(tmp_path: Path) -> None:
    # iter-1 and 3: verifier pass 1.0 and correction 1.0 -> 1.0; iter-2: verifier fail 0
    # (0.15) and correction 1.0 (0.11) -> 0.11 / 0.26 = 0.4231; the session is the mean of
    # the iterations' values: (1 + 0.4231 + 1) / 3 = 0.8077.
    for n, status in ((1, "pass"), (2, "fail"), (3, "pass")):
        entry = {
            "schema_version": 2,
            "agent": {"session_id": "s"},
            "verifiers": [{"status": status}],
        }
        write_entry(tmp_path, n, entry)
    session = score(tmp_path, V30).sessions.row(0, named=True)
    assert (session["value"], session["band"]) == (0.8077, "good")


# --- sidecars as da score writes them ---------------------------------------------------------


def test_sidecars_stamp_the_version_and_write_zero_where_dot_agents_does(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "agent": {"session_id": "s"}})
    only_verifier = [{"signal": "verifier", "label": "Verifier results", "weight": 1.0}]
    rubric = load_outcome_rubric({"version": "2.1.0-verifier-only", "signals": only_verifier})
    result = score(tmp_path, rubric)
    side = iteration_sidecar(result, 1)
    assert (side["scored"], side["value"], side["band"]) == (False, 0.0, "unscored")
    # dot-agents' PersistedContribution (internal/scoring/persist.go), in its field order:
    # signal, label, present, sub_score, detail (omitted when empty), the weights
    assert list(side["breakdown"][0]) == [
        "signal", "label", "present", "sub_score", "detail",
        "nominal_weight", "effective_weight", "contribution",
    ]  # fmt: skip
    assert side["breakdown"][0] | {"detail": ""} == {
        "signal": "verifier",
        "label": "Verifier results",
        "present": False,
        "sub_score": 0.0,
        "detail": "",
        "nominal_weight": 1.0,
        "effective_weight": 0.0,
        "contribution": 0.0,
    }
    assert {o["present"] for o in side["objectives"]} == {False}
    assert {o["value"] for o in side["objectives"]} == {0}
    assert set(side["toolkit"]) == {"labels", "integrity", "clamped", "epoch", "input_digest"}
    assert session_sidecar(result, "s")["value"] == 0.0
    # The JSON output keeps null: the toolkit's own reading of the same iteration.
    assert result.iteration_dict(1)["value"] is None


def test_sidecars_under_3_0_0_are_stamped_3_0_0_and_named_on_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "verifiers": [{"status": "pass"}]})
    write_score_sidecars(score(tmp_path, V30), tmp_path)
    written = yaml.safe_load((tmp_path / "iter-1.score.yaml").read_text())
    assert written["rubric_version"] == "3.0.0"
    assert [b["signal"] for b in written["breakdown"]][3] == "human_label"
    # Scored again with the default: the output says how to score it the same way.
    assert main(["outcome", str(tmp_path), "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any("written under rubric 3.0.0" in w and "--rubric dot-agents-3.0.0" in w
               for w in warnings)  # fmt: skip


# --- objective checks ---------------------------------------------------------------------


def test_objectives_are_absent_without_transcripts_and_never_in_the_score(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2, "verifiers": [{"status": "pass"}]})
    result = score(tmp_path)
    assert set(result.objectives["value"].to_list()) == {None}
    assert value(result, 1) == 1.0  # verifier 1.0 and correction 1.0 only


# --- calibrate against the reviewers ------------------------------------------------------------


def test_calibrate_outcome_holds_the_score_against_the_reviewers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["calibrate", "--outcome", str(SAMPLE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["humans"] == ["lee.brandt", "maya.okafor", "priya.nand"]
    assert doc["items"] == 4  # iterations 2, 4, 5, 6 carry labels
    values = dict(score(SAMPLE).scores.select("iteration", "value").rows())
    diffs = {d["item"]: d["diff"] for d in doc["disagreements"]}
    # iter-4: the reviewers' mean (0.5556 + 0.7222) / 2 = 0.6389 (4-decimal scores).
    assert diffs["iter-4"] == pytest.approx(values[4] - (0.5556 + 0.7222) / 2, abs=1e-9)
    # iter-6: every reviewer is a rater here (1, 1, 0.8889), not only the override.
    assert diffs["iter-6"] == pytest.approx(values[6] - (1 + 1 + 0.8889) / 3, abs=1e-9)


# --- the labels file, read as its rules say ---------------------------------------------------


def test_the_latest_edit_is_the_last_in_history_and_a_wrong_iteration_is_named(
    tmp_path: Path,
) -> None:
    """dot-agents' ``Label.Latest`` is ``History[len(History)-1]`` (internal/review/labels):
    history is append-only, so the last entry is the effective judgement even when a
    clock wrote it an earlier timestamp."""
    write_entry(tmp_path, 1, {"schema_version": 2})
    edited = label("ana", "2026-05-01T10:00:00Z", GOOD)
    # appended last, stamped earlier (a skewed clock): still the effective edit, 0.0
    edited["history"] = [
        {"timestamp": "2026-05-03T10:00:00Z", "structured": GOOD},
        {"timestamp": "2026-05-02T10:00:00Z", "structured": BAD},
    ]
    doc = {"iteration": 9, "schema_version": "1.4", "labels": [edited]}
    (tmp_path / "iter-1.labels.yaml").write_text(yaml.safe_dump(doc))
    result = score(tmp_path, V30)
    assert sub(result, 1, "human_label")[0] == 0.0
    row = result.labels.row(0, named=True)
    assert (row["actor"], row["correctness"], row["scope_judgement"]) == ("ana", 0, "breach")
    assert any("iteration=9: differs from the file name's 1" in w for w in result.warnings)


def test_labels_are_shown_per_iteration_in_the_text_and_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["outcome", str(SAMPLE), "--rubric", "dot-agents-3.0.0", "--iteration", "6"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    block = text.split("Reviewers' labels (* = counted in human_label)\n")[1].splitlines()
    assert block[0].split()[:5] == ["iter", "6", "maya.okafor", "(reviewer)", "1.00"]
    assert "(not counted: an admin override label counts instead)" in block[0]
    assert block[2].split()[:6] == ["iter", "6", "*", "priya.nand", "(admin", "override)"]
    assert main(["outcome", str(SAMPLE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    said = {i["iteration"]: [x["actor"] for x in i["labels"]] for i in doc["iterations"]}
    assert said[6] == ["maya.okafor", "lee.brandt", "priya.nand"] and said[3] == []


# --- backfill from transcripts -----------------------------------------------------------------


def test_token_backfill_from_the_transcript_window(
    tally_repo: Path, tally_transcripts: Path
) -> None:
    result = score(SAMPLE, V21, repo=tally_repo, transcripts=[tally_transcripts])
    # iter-4 has no native rate: the transcript's messages in its window hold 45800
    # cache-read and 8000 cache-creation tokens (each message counted once):
    # 45800 / 53800 = 0.851301.
    value_, detail = sub(result, 4, "token_efficiency")
    assert value_ == pytest.approx(45800 / 53800)
    assert "45800 cache-read / (45800 + 8000 cache-creation) tokens" in detail
    # iter-5 reports its own rate: no backfill.
    assert sub(result, 5, "token_efficiency")[1].startswith("session_tokens.cache_hit_rate")


def test_sidecars_stamped_2_2_0_by_an_earlier_toolkit_are_named_as_2_1_0s(tmp_path: Path) -> None:
    write_entry(tmp_path, 1, {"schema_version": 2})
    (tmp_path / "iter-1.score.yaml").write_text("schema_version: 1\nrubric: outcome\n"
                                                "rubric_version: 2.2.0\nvalue: 1.0\n")  # fmt: skip
    hints = [w for w in score(tmp_path, V30).warnings if "2.2.0" in w]
    assert len(hints) == 1 and "--rubric dot-agents-2.1.0 scores it the same way" in hints[0]
    # Under 2.1.0 the numbers are the same, but the stamp still differs: said once.
    assert any("were written under rubric 2.2.0" in w for w in score(tmp_path).warnings)


def test_one_label_of_another_major_version_makes_the_whole_file_absent(tmp_path: Path) -> None:
    """dot-agents' ``labelSchemaSupported`` checks the file and every label: one label of
    schema 2.x and the human_label signal is absent for the iteration, not scored from
    the other labels (internal/scoring/signal_human_label.go)."""
    write_entry(tmp_path, 1, {"schema_version": 2})
    write_labels(
        tmp_path,
        1,
        [
            label("ana", "2026-05-01T10:00:00Z", GOOD),
            label("ben", "2026-05-01T11:00:00Z", BAD, schema_version="2.0.0"),
        ],
    )
    result = score(tmp_path, V30)
    assert sub(result, 1, "human_label")[0] is None
    assert result.labels.height == 0
    assert any("labels.1.schema_version='2.0.0'" in w and "iter-1.labels.yaml" in w
               for w in result.warnings)  # fmt: skip


def test_rules_that_do_not_touch_the_answers_are_warned_and_the_label_still_counts(
    tmp_path: Path,
) -> None:
    """dot-agents' ``Sidecar.Validate`` refuses a file over these (internal/review/labels);
    the toolkit reads the label and names each broken rule in a warning."""
    write_entry(tmp_path, 1, {"schema_version": 2})
    odd = label("ana", "2026-05-01T10:00:00Z", GOOD, role="owner", iteration=7)
    odd["history"][0]["free_text"] = "x" * 4001
    twin = label("ben", "2026-05-01T11:00:00Z", GOOD)  # the same id as ana's
    twin["history"][0]["actor"] = ""
    write_labels(tmp_path, 1, [odd, twin])
    result = score(tmp_path, V30)
    assert sub(result, 1, "human_label")[0] == 1.0
    warned = " | ".join(w for w in result.warnings if "iter-1.labels.yaml" in w)
    for needle in (
        "labels.0.role='owner'",
        "labels.0.iteration=7",
        "labels.0.history.0.free_text",
        "labels.1.id=",
        "labels.1.history.0.actor=''",
    ):
        assert needle in warned, needle
