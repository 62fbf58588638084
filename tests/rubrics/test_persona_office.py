"""the-office's evaluation harness document and PR comment from a persona result.

Expected documents are written by hand from the harness's rules (FORMATS.md §5): a
dimension passes at the threshold, overall is the mean of the scored 0-9 dimensions,
ideas_quantity is ``{count}``, a dimension more than the delta below its baseline is a
regression. Number formatting is checked against node (JSON.stringify, toFixed) when
node is on the machine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from toolkit.errors import InputError
from toolkit.io.js_json import js_json, js_number, js_to_fixed
from toolkit.judge import JudgeRequest, JudgeResult
from toolkit.rubrics.persona.office import (
    office_baselines,
    office_dimensions,
    office_harness_report,
    parse_office_window,
    within_window,
)
from toolkit.views.office import office_json, office_pr_comment

NODE = shutil.which("node")
STAMP = datetime(2026, 11, 27, 9, 30, 5, 123000, tzinfo=UTC)


class DictJudge:
    """Answers by (proposition id, subject), else by proposition id."""

    name = "dict-judge"

    def __init__(self, values: dict[Any, int | None]) -> None:
        self.values = values

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        out = []
        for r in requests:
            value = self.values.get(
                (r.proposition_id, r.subject), self.values.get(r.proposition_id)
            )
            out.append(
                JudgeResult(None, "", error="unparseable", raw="?")
                if value is None
                else JudgeResult(value, "ok")
            )
        return out


def _write_run(tmp_path: Path, messages: list[dict[str, Any]]) -> tk.ChatRun:
    lines = [
        {"type": "run", "run": "r1"},
        {"type": "persona", "agent_id": "rosa", "name": "Rosa", "persona": "A baker."},
        {"type": "persona", "agent_id": "tomas", "name": "Tomas", "persona": "A barista."},
        *messages,
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return tk.load_chat(path)


MESSAGES = [
    {"type": "message", "step": 1, "channel": "k", "agent_id": "rosa", "text": "Bread!",
     "time": "2026-11-20T10:00:00Z"},
    {"type": "message", "step": 2, "channel": "k", "agent_id": "tomas", "text": "Brew.",
     "time": "2026-11-20T10:05:00Z"},
]  # fmt: skip


def _props(tmp_path: Path) -> tk.PropositionSet:
    files = {
        "adherence/_default.yaml": "dimension: adherence\npropositions:\n"
        "  - {id: a, claim: '{{agent_name}} a', weight: 1.0}\n"
        "  - {id: b, claim: '{{agent_name}} b', weight: 1.0}\n",
        "fluency/_default.yaml": "dimension: fluency\npropositions:\n"
        "  - {id: f, claim: '{{agent_name}} f', weight: 1.0}\n",
        "ideas_quantity/_default.yaml": "dimension: ideas_quantity\ntarget_type: environment\n"
        "propositions:\n  - {id: ideas, claim: 'How many ideas?', weight: 1.0}\n",
    }
    for rel, body in files.items():
        (tmp_path / "props" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "props" / rel).write_text(body, "utf-8")
    return tk.load_propositions(tmp_path / "props")


ANSWERS: dict[Any, int | None] = {
    ("a", "rosa"): 8, ("b", "rosa"): 6, ("f", "rosa"): 9,
    ("a", "tomas"): 3, ("b", "tomas"): 4, ("f", "tomas"): 5,
    "ideas": 4,
}  # fmt: skip


def _result(tmp_path: Path, answers: dict[Any, int | None] = ANSWERS) -> tk.PersonaResult:
    return tk.score_persona(
        _write_run(tmp_path, MESSAGES), _props(tmp_path), DictJudge(answers), progress=False
    )


def _baseline(agent: str, dims: dict[str, float]) -> tk.Baseline:
    return tk.Baseline(agent_id=agent, captured_at=STAMP, dimensions=dims)


#: By hand: rosa adherence (8 + 6) / 2 = 7, fluency 9, overall (7 + 9) / 2 = 8; tomas
#: adherence (3 + 4) / 2 = 3.5 < 5 fails, fluency 5 passes (at the threshold), overall
#: (3.5 + 5) / 2 = 4.25; ideas 4 for both; rosa's baseline adherence 8.5: delta -1.5 is
#: more than 1.0 below, a regression; fluency 9 against 9: delta 0.
EXPECTED = {
    "timestamp": "2026-11-27T09:30:05.123Z",
    "agents": {
        "rosa": {
            "overall": 8,
            "pass": False,
            "dimensions": {
                "adherence": {"score": 7, "pass": True, "propositionScores": {"a": 8, "b": 6}},
                "fluency": {"score": 9, "pass": True, "propositionScores": {"f": 9}},
                "ideas_quantity": {"count": 4},
            },
            "baselineDelta": {"adherence": -1.5, "fluency": 0},
            "regressions": [
                {"dimension": "adherence", "baseline": 8.5, "current": 7, "delta": -1.5}
            ],
        },
        "tomas": {
            "overall": 4.25,
            "pass": False,
            "dimensions": {
                "adherence": {"score": 3.5, "pass": False, "propositionScores": {"a": 3, "b": 4}},
                "fluency": {"score": 5, "pass": True, "propositionScores": {"f": 5}},
                "ideas_quantity": {"count": 4},
            },
        },
    },
    "summary": {"total": 2, "passed": 0, "failed": 2, "failedAgents": ["rosa", "tomas"]},
}


def _report(tmp_path: Path, **kw: Any) -> Any:
    baselines = {"rosa": _baseline("rosa", {"adherence": 8.5, "fluency": 9.0})}
    return office_harness_report(_result(tmp_path), baselines, timestamp=STAMP, **kw)


def test_document_key_by_key_as_the_harness_builds_it(tmp_path: Path) -> None:
    doc = _report(tmp_path).document
    assert doc == EXPECTED
    # the harness's key order, which JSON.stringify keeps
    assert list(doc) == ["timestamp", "agents", "summary"]
    assert list(doc["agents"]["rosa"]) == [
        "overall", "pass", "dimensions", "baselineDelta", "regressions"
    ]  # fmt: skip
    assert list(doc["agents"]["tomas"]) == ["overall", "pass", "dimensions"]
    assert list(doc["summary"]) == ["total", "passed", "failed", "failedAgents"]


def test_threshold_and_regression_delta_are_the_flags(tmp_path: Path) -> None:
    doc = _report(tmp_path, threshold=3.0, regression_delta=2.0).document
    # 3.5 >= 3 passes; -1.5 is within 2.0 of the baseline: no regression, the key absent
    assert doc["agents"]["tomas"]["pass"] is True
    assert "regressions" not in doc["agents"]["rosa"]
    assert doc["agents"]["rosa"]["baselineDelta"] == {"adherence": -1.5, "fluency": 0}
    assert doc["summary"] == {"total": 2, "passed": 2, "failed": 0, "failedAgents": []}


def test_update_baseline_compares_nothing_and_saves_scored_dimensions(tmp_path: Path) -> None:
    report = _report(tmp_path, update_baseline=True)
    assert "baselineDelta" not in report.document["agents"]["rosa"]
    saved = {b.agent_id: b for b in office_baselines(report)}
    assert saved["rosa"].dimensions == {"adherence": 7.0, "fluency": 9.0}
    assert saved["rosa"].proposition_scores == {"a": 8.0, "b": 6.0, "f": 9.0}
    assert saved["tomas"].captured_at == STAMP


def test_dimensions_keep_the_order_asked(tmp_path: Path) -> None:
    doc = _report(tmp_path, dimensions=["fluency", "adherence"]).document
    assert list(doc["agents"]["tomas"]["dimensions"]) == ["fluency", "adherence"]


def test_an_absent_dimension_is_left_out_and_named(tmp_path: Path) -> None:
    answers = {**ANSWERS, ("f", "tomas"): None}  # an unparseable reply: fluency absent
    report = office_harness_report(_result(tmp_path, answers), timestamp=STAMP)
    tomas = report.document["agents"]["tomas"]
    assert list(tomas["dimensions"]) == ["adherence", "ideas_quantity"]
    assert tomas["overall"] == 3.5  # the mean of what was scored
    assert "tomas: fluency not scored (left out of the report)" in report.absent


def test_an_agent_with_nothing_scored_fails(tmp_path: Path) -> None:
    answers = {**ANSWERS, ("a", "tomas"): None, ("b", "tomas"): None, ("f", "tomas"): None}
    report = office_harness_report(_result(tmp_path, answers), timestamp=STAMP)
    tomas = report.document["agents"]["tomas"]
    assert tomas == {"overall": 0, "pass": False, "dimensions": {"ideas_quantity": {"count": 4}}}
    assert report.failed == 1


def test_json_text_writes_numbers_as_javascript(tmp_path: Path) -> None:
    text = office_json(_report(tmp_path).document)
    assert '"overall": 8,' in text and '"score": 7,' in text and '"fluency": 0' in text
    assert '"overall": 4.25,' in text
    assert "8.0" not in text and "7.0" not in text
    assert text.startswith('{\n  "timestamp": "2026-11-27T09:30:05.123Z",\n  "agents": {\n')
    assert not text.endswith("\n")


@pytest.mark.skipif(NODE is None, reason="node is not on this machine")
def test_node_reads_the_document_and_writes_it_back_byte_for_byte(tmp_path: Path) -> None:
    text = office_json(_report(tmp_path).document)
    source = tmp_path / "eval-result.json"
    source.write_text(text, "utf-8")
    script = (
        "const fs=require('fs');const r=JSON.parse(fs.readFileSync(process.argv[1],'utf8'));"
        "process.stdout.write(JSON.stringify(r,null,2)+'|'+r.summary.failed+'|'"
        "+r.agents.tomas.overall.toFixed(1))"
    )
    out = subprocess.run([NODE, "-e", script, str(source)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    again, failed, overall = out.stdout.split("|")
    assert again == text
    assert failed == "2"
    assert overall == "4.3"  # 4.25 rounds half up in JavaScript (Python's .1f gives 4.2)


def test_pr_comment_as_written_by_hand(tmp_path: Path) -> None:
    comment = office_pr_comment(_report(tmp_path).document)
    assert comment == (
        "<!-- persona-evaluation-report -->\n"
        "## Persona Evaluation Report\n"
        "\n"
        "| Agent | Adherence | Fluency | Ideas_quantity | Overall | Status |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| rosa | 7.0 (-1.5) | 9.0 (=) | 4 | 8.0 | FAIL |\n"
        "| tomas | 3.5 | 5.0 | 4 | 4.3 | FAIL |\n"
        "\n"
        "**Result**: 1 regression detected. Rosa's adherence dropped 1.5 points (8.5 → 7.0).\n"
    )


def test_pr_comment_all_passed_and_failed_without_regression(tmp_path: Path) -> None:
    passed = office_harness_report(_result(tmp_path), timestamp=STAMP, threshold=3.0)
    assert office_pr_comment(passed.document).splitlines()[-1] == (
        "**Result**: All 2 agents passed. No regressions detected."
    )
    failed = office_harness_report(_result(tmp_path), timestamp=STAMP)
    assert office_pr_comment(failed.document).splitlines()[-1] == (
        "**Result**: 1 of 2 agents failed (tomas). No regressions detected."
    )


def test_pr_comment_missing_dimension_is_a_dash(tmp_path: Path) -> None:
    answers = {**ANSWERS, ("f", "tomas"): None}
    doc = office_harness_report(_result(tmp_path, answers), timestamp=STAMP).document
    assert "| tomas | 3.5 | — | 4 | 3.5 | FAIL |" in office_pr_comment(doc).splitlines()


def test_pr_comment_rows_follow_javascripts_key_order() -> None:
    """Object.entries puts array-index keys (an agent id "7") first, ascending, then the
    others in insertion order: the rows and the regression sentences follow it."""
    agent = {"overall": 6.0, "pass": True, "dimensions": {"adherence": {"score": 6.0}}}
    fell = {**agent, "regressions": [
        {"dimension": "adherence", "baseline": 8.0, "current": 6.0, "delta": -2.0}]}  # fmt: skip
    doc = {"agents": {"michael": fell, "12": agent, "7": fell},
           "summary": {"total": 3, "passed": 3, "failed": 0, "failedAgents": []}}  # fmt: skip
    lines = office_pr_comment(doc).splitlines()
    assert [line.split(" | ")[0] for line in lines[5:8]] == ["| 7", "| 12", "| michael"]
    assert lines[-1] == (
        "**Result**: 2 regressions detected. 7's adherence dropped 2.0 points (8.0 → 6.0). "
        "Michael's adherence dropped 2.0 points (8.0 → 6.0)."
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (0.1, "0.1"), (1e-05, "0.00001"), (1e-7, "1e-7"), (1e21, "1e+21"),
     (1e20, "100000000000000000000"), (-0.0, "0"), (6.999999999999999, "6.999999999999999"),
     (2.5e-7, "2.5e-7"), (-3.25, "-3.25")],
)  # fmt: skip
def test_numbers_as_json_stringify_writes_them(value: float, text: str) -> None:
    assert js_number(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.25, "0.3"), (1.25, "1.3"), (2.45, "2.5"), (2.35, "2.4"), (-0.04, "-0.0"),
     (-0.0, "0.0"), (-1.25, "-1.3"), (0.05, "0.1")],
)  # fmt: skip
def test_to_fixed_rounds_the_binary_value_half_up(value: float, text: str) -> None:
    assert js_to_fixed(value, 1) == text


@pytest.mark.skipif(NODE is None, reason="node is not on this machine")
def test_number_formatting_agrees_with_node() -> None:
    values = [1.0, 0.1, 1e-5, 1e-7, 1e21, 1e20, 123.456, 0.000001, 4.35, 8.45, -0.05, 7.521, 1 / 3]
    script = (
        "const v=JSON.parse(process.argv[1]);"
        "process.stdout.write(JSON.stringify([v.map(x=>JSON.stringify(x)),"
        "v.map(x=>x.toFixed(1)),v.map(x=>x.toFixed(2))]))"
    )
    assert NODE is not None
    out = subprocess.run([NODE, "-e", script, js_json(values)], capture_output=True, text=True)
    numbers, one, two = json.loads(out.stdout)
    assert numbers == [js_number(v) for v in values]
    assert one == [js_to_fixed(v, 1) for v in values]
    assert two == [js_to_fixed(v, 2) for v in values]


def test_window_and_dimension_flags() -> None:
    assert parse_office_window("7d") == timedelta(days=7)
    assert parse_office_window("12h") == timedelta(hours=12)
    assert parse_office_window("2w") == timedelta(days=14)
    with pytest.raises(InputError, match="--window"):
        parse_office_window("7 days")
    assert office_dimensions("adherence,ideas_quantity") == ["adherence", "ideas_quantity"]
    with pytest.raises(InputError, match="valid: adherence"):
        office_dimensions("adherence,charm")


def test_window_ends_at_the_latest_message(tmp_path: Path) -> None:
    early = {"type": "message", "step": 0, "channel": "k", "agent_id": "rosa",
             "text": "Old.", "time": "2026-11-01T10:00:00Z"}  # fmt: skip
    run = _write_run(tmp_path, [early, *MESSAGES])
    kept, note = within_window(run, timedelta(days=7))
    assert kept.messages["text"].to_list() == ["Bread!", "Brew."]
    assert note is not None and "1 message(s) before 2026-11-13T10:05:00+00:00" in note
    untimed = _write_run(tmp_path, [{k: v for k, v in m.items() if k != "time"} for m in MESSAGES])
    same, why = within_window(untimed, timedelta(hours=1))
    assert same.messages.height == 2 and why is not None and "no message has a time" in why


def test_the_report_shows_itself(tmp_path: Path) -> None:
    report = _report(tmp_path)
    assert repr(report).splitlines()[0] == (
        "OfficeReport: 0/2 agents passed (the-office harness report, 2026-11-27T09:30:05.123Z)"
    )
    assert "data-summary='OfficeReport'" in report._repr_html_()
