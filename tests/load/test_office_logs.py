"""the-office's correction logs (two stages, six outcomes, rows without an action id) and
intervention logs, from files and from rows in the table shape; and their reports.

Every expected count is worked out by hand from the rows written here or from the sample
files (sample_runs/persona/office-*.json*), following the-office's pipeline: an attempt is
a row; regeneration_requested is the only the-office outcome after which the same action
goes on.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.errors import InputError

CORRECTIONS = SAMPLE_RUNS / "persona" / "office-correction-logs.json"
INTERVENTIONS = SAMPLE_RUNS / "persona" / "office-intervention-logs.jsonl"


def row(agent: str, attempt: int, outcome: str, stage: str, minute: int, **kw: Any) -> dict:
    base = {
        "id": f"id-{agent}-{minute}",
        "agent_id": agent,
        "run_id": kw.pop("run_id", None),
        "channel_id": "general",
        "original_text": kw.pop("original_text", f"{agent} says {minute}"),
        "final_text": kw.pop("final_text", f"{agent} says {minute}"),
        "stage": stage,
        "attempt_number": attempt,
        "outcome": outcome,
        "dimension_scores": [
            {
                "dimension": "persona_adherence",
                "score": 8,
                "reasoning": "ok",
                "passed": True,
                "threshold": 7,
            },
        ],
        "similarity_score": 0.2,
        "total_score": 8,
        "token_usage": {"input_tokens": 100, "output_tokens": 10},
        "duration_ms": None,
        "created_at": f"2026-11-09T18:{minute:02d}:00Z",
    }
    return {**base, **kw}


#: Three actions, two of them Lenny's: (1) regeneration requested twice, then a direct
#: correction; (2) Priya passes at once; (3) Lenny forced through. The regenerated
#: attempt carries its own text as original_text, as the-office logs it.
THREE_ACTIONS = [
    row("lenny", 1, "regeneration_requested", "original", 1, original_text="v1"),
    row("lenny", 2, "regeneration_requested", "regeneration", 2, original_text="v2"),
    row("lenny", 3, "direct_correction_success", "direct_correction", 3,
        original_text="v2", final_text="v3"),
    row("priya", 1, "passed", "original", 4),
    row("lenny", 1, "forced_through", "original", 5),
]  # fmt: skip


def actions(frame: pl.DataFrame) -> list[list[int]]:
    """The attempt numbers of each action, in action order."""
    attempts = frame.unique("line").sort("action", "attempt")
    return [g["attempt"].to_list() for _, g in attempts.group_by("action", maintain_order=True)]


def test_three_actions_read_as_three(tmp_path: Path) -> None:
    log = tk.correction_log_from_rows(THREE_ACTIONS)
    assert actions(log) == [[1, 2, 3], [1], [1]]
    report = tk.correction_report(log)
    assert dict(report.outcomes.select("outcome", "actions").rows()) == {
        "direct_correction_success": 1, "passed": 1, "forced_through": 1
    }  # fmt: skip
    assert report.attempts_per_action == pytest.approx(5 / 3)


def test_rows_in_any_order_give_the_same_actions() -> None:
    shuffled = THREE_ACTIONS[::-1]  # as the-office's query returns them: newest first
    random.Random(3).shuffle(shuffled)
    log = tk.correction_log_from_rows(shuffled)
    outcomes = (
        log.unique("line").sort("created_at").group_by("action", maintain_order=True)
        .agg(pl.col("outcome").cast(pl.String)).get_column("outcome").to_list()
    )  # fmt: skip
    assert outcomes == [
        ["regeneration_requested", "regeneration_requested", "direct_correction_success"],
        ["passed"],
        ["forced_through"],
    ]


def test_runs_keep_actions_apart() -> None:
    # two runs of one agent, attempts interleaved in time: each run's attempts are one action
    rows = [
        row("lenny", 1, "regeneration_requested", "original", 1, run_id="r1"),
        row("lenny", 1, "passed", "original", 2, run_id="r2"),
        row("lenny", 2, "regeneration_success", "regeneration", 3, run_id="r1"),
    ]
    assert sorted(actions(tk.correction_log_from_rows(rows))) == [[1], [1, 2]]


def test_every_field_is_kept() -> None:
    log = tk.correction_log_from_rows(
        [row("lenny", 1, "passed", "original", 7, duration_ms=840, mood="calm")]
    )
    got = log.row(0, named=True)
    assert got["id"] == "id-lenny-7"
    assert got["channel_id"] == "general"
    assert got["original_text"] == got["final_text"] == "lenny says 7"
    assert got["stage"] == "original" and got["attempt"] == 1 and got["outcome"] == "passed"
    assert (got["dimension"], got["score"], got["reasoning"], got["passed"], got["threshold"]) == (
        "persona_adherence", 8.0, "ok", True, 7.0
    )  # fmt: skip
    assert got["similarity"] == 0.2 and got["total_score"] == 8.0
    assert json.loads(got["token_usage"]) == {"input_tokens": 100, "output_tokens": 10}
    assert (got["input_tokens"], got["output_tokens"]) == (100, 10)
    assert got["duration_ms"] == 840
    assert got["created_at"] == datetime(2026, 11, 9, 18, 7, tzinfo=UTC)
    assert json.loads(got["extra"]) == {"mood": "calm"}  # a key no shape names, kept


def test_rows_as_a_postgres_driver_returns_them() -> None:
    # camelCase (Drizzle), uuid objects, datetimes and jsonb as text
    raw = {
        "id": UUID("5b0c9a1e-7d44-4f0e-9a61-0c2f3e8d1a01"),
        "agentId": "lenny",
        "runId": UUID("0f6e2d0b-3c1a-4a9b-8e55-6d1f0a7c2b10"),
        "originalText": "a",
        "finalText": "b",
        "stage": "direct_correction",
        "attemptNumber": 3,
        "outcome": "direct_correction_success",
        "dimensionScores": '[{"dimension": "fluency", "score": 7, "passed": true}]',
        "similarityScore": None,
        "totalScore": 7,
        "tokenUsage": '{"input_tokens": 5, "output_tokens": 6}',
        "durationMs": 12,
        "createdAt": datetime(2026, 11, 9, 18, 0, tzinfo=UTC),
    }
    log = tk.correction_log_from_rows([raw])
    got = log.row(0, named=True)
    assert got["id"] == "5b0c9a1e-7d44-4f0e-9a61-0c2f3e8d1a01"
    assert got["run_id"] == "0f6e2d0b-3c1a-4a9b-8e55-6d1f0a7c2b10"
    assert (got["dimension"], got["score"], got["passed"]) == ("fluency", 7.0, True)
    assert (got["input_tokens"], got["output_tokens"], got["duration_ms"]) == (5, 6, 12)
    assert got["extra"] is None


def test_a_polars_frame_of_rows() -> None:
    frame = pl.DataFrame(
        [{k: v for k, v in r.items() if k not in ("dimension_scores", "token_usage")}
         for r in THREE_ACTIONS]
    )  # fmt: skip
    log = tk.correction_log_from_rows(frame)
    assert actions(log) == [[1, 2, 3], [1], [1]]
    report = tk.correction_report(log)
    assert "token_usage" in report.not_recorded and "dimension" in report.not_recorded


def test_bad_stage_names_the_row_and_field() -> None:
    with pytest.raises(InputError, match=r"\(rows\):2: stage"):
        tk.correction_log_from_rows([THREE_ACTIONS[0], {**THREE_ACTIONS[1], "stage": "retry"}])


def test_sample_file_report() -> None:
    # 5 attempts: Lenny 3 (original, regeneration, direct correction), Priya 1, Lenny 1
    log = tk.load_correction_log(CORRECTIONS)
    report = tk.correction_report(log)
    assert report.outcomes["actions"].sum() == 3
    assert dict(report.stages.rows()) == {"direct_correction": 1, "original": 3, "regeneration": 1}
    assert report.input_tokens == 1840 + 1912 + 2230 + 1702 + 1688
    assert report.output_tokens == 212 + 198 + 305 + 176 + 201
    assert report.mean_duration_ms is None
    assert report.not_recorded == ("action_id", "duration_ms")
    # the gate's own passed flags: adherence failed on attempts 1, 2 and 5
    dims = dict(report.dimensions.select("dimension", "failures").rows())
    assert dims["persona_adherence"] == 3


def test_table_export_object_and_jsonl(tmp_path: Path) -> None:
    wrapped = tmp_path / "export.json"
    wrapped.write_text(json.dumps({"correction_logs": THREE_ACTIONS}, indent=2), "utf-8")
    lines = tmp_path / "log.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in THREE_ACTIONS), "utf-8")
    assert actions(tk.load_correction_log(wrapped)) == actions(tk.load_correction_log(lines))


def test_toolkit_shape_still_groups_by_action_id() -> None:
    log = tk.load_correction_log(SAMPLE_RUNS / "persona" / "gate-corrections.jsonl")
    assert tk.correction_report(log).outcomes["actions"].sum() == 8


# ---------------------------------------------------------------------------
# Intervention logs
# ---------------------------------------------------------------------------


def test_intervention_sample_report() -> None:
    report = tk.intervention_report(tk.load_intervention_log(INTERVENTIONS))
    assert report.by_type.rows() == [("anti_convergence", 3, 1, 1 / 3), ("variety", 2, 2, 1.0)]
    pre = {
        (t, p): (passed, failed, unchecked, stopped)
        for t, p, passed, failed, unchecked, stopped in report.preconditions.rows()
    }
    # anti_convergence: functional true, true, false; textual true, false, (not checked)
    assert pre["anti_convergence", "functional"] == (2, 1, 0, 1)
    assert pre["anti_convergence", "textual"] == (1, 1, 1, 1)
    assert pre["anti_convergence", "propositional"] == (0, 0, 3, 0)
    assert pre["variety", "functional"] == (2, 0, 0, 0)
    assert report.claims.select("evaluated", "held", "did_not_hold", "not_checked").row(0) == (
        3, 1, 1, 1
    )  # fmt: skip
    assert report.inconsistent.height == 0
    assert report.input_tokens == 1320 + 1298


def test_intervention_rows_and_inconsistency() -> None:
    rows = [
        {"agentId": "otis", "interventionType": "custom", "fired": True,
         "functionalPreconditionResult": False, "tokenUsage": None},
        {"agent_id": "mags", "intervention_type": "custom", "fired": False},
    ]  # fmt: skip
    report = tk.intervention_report(tk.intervention_log_from_rows(rows))
    # fired with a failed precondition; not fired with none failed: both contradict
    assert report.inconsistent["line"].to_list() == [1, 2]
    assert report.input_tokens is None


def test_intervention_bad_type_names_the_field() -> None:
    with pytest.raises(InputError, match="intervention_type"):
        tk.intervention_log_from_rows([{"agent_id": "a", "intervention_type": "x", "fired": 1}])


def test_csv_exports_as_psql_writes_them(tmp_path: Path) -> None:
    # \copy correction_logs TO ... CSV HEADER: jsonb as JSON text, null as an empty cell,
    # timestamptz with a two-digit offset
    corrections = tmp_path / "correction_logs.csv"
    corrections.write_text(
        "id,agent_id,run_id,channel_id,original_text,final_text,stage,attempt_number,outcome,"
        "dimension_scores,similarity_score,total_score,token_usage,duration_ms,created_at\n"
        'a1,lenny,,general,"v1, first","v1, first",original,1,regeneration_requested,'
        '"[{""dimension"": ""fluency"", ""score"": 4, ""passed"": false}]",0.3,4,'
        '"{""input_tokens"": 9, ""output_tokens"": 1}",,2026-11-09 18:41:02.118+00\n'
        "a2,lenny,,general,v2,v2,regeneration,2,regeneration_success,"
        '"[{""dimension"": ""fluency"", ""score"": 8, ""passed"": true}]",,8,,,'
        "2026-11-09 18:41:09.5+00\n",
        "utf-8",
    )
    log = tk.load_correction_log(corrections)
    assert actions(log) == [[1, 2]]
    first = log.filter(pl.col("line") == 2).row(0, named=True)
    assert first["original_text"] == "v1, first" and first["passed"] is False
    assert first["created_at"] == datetime(2026, 11, 9, 18, 41, 2, 118000, tzinfo=UTC)
    assert first["input_tokens"] == 9 and first["run_id"] is None
    interventions = tmp_path / "intervention_logs.csv"
    interventions.write_text(
        "id,agent_id,channel_id,intervention_type,textual_precondition,"
        "textual_precondition_result,functional_precondition_result,"
        "propositional_precondition_result,fired,nudge_text,token_usage,created_at\n"
        "i1,otis,general,variety,,,t,,t,Say something new.,,2026-11-09 18:50:00+00\n"
        "i2,mags,general,variety,,,f,,f,,,2026-11-09 18:50:01+00\n",
        "utf-8",
    )
    report = tk.intervention_report(tk.load_intervention_log(interventions))
    assert report.by_type.rows() == [("variety", 2, 1, 0.5)]
    assert report.inconsistent.height == 0
