"""Persona loaders: chat runs (JSONL and run_messages export), propositions, baselines,
correction logs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import toolkit as tk
from toolkit.frames import CHAT_MESSAGES_SCHEMA, CORRECTION_LOG_SCHEMA, PERSONAS_SCHEMA
from toolkit.load.persona import load_proposition_file


def write_lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


CHAT = [
    {"type": "run", "run": "cafe-1"},
    {"type": "persona", "agent_id": "rosa", "name": "Rosa", "persona": "A baker."},
    {"type": "persona", "agent_id": "tomas", "name": "Tomas"},
    {"type": "message", "step": 2, "channel": "kitchen", "agent_id": "rosa", "text": "Bread!",
     "time": "2026-01-01T10:02:00Z"},
    {"type": "message", "step": 1, "channel": "kitchen", "kind": "stimulus",
     "text": "Facilitator: go", "time": "2026-01-01T10:01:00"},
    {"type": "message", "step": 3, "channel": "kitchen", "agent_id": "tomas", "kind": "action",
     "text": "Coffee.", "recipient": "rosa"},
]  # fmt: skip


# ---------------------------------------------------------------------------
# JSONL chat runs
# ---------------------------------------------------------------------------


def test_jsonl_chat_builds_typed_frames_sorted_by_step(tmp_path: Path) -> None:
    run = tk.load_chat(write_lines(tmp_path / "x.jsonl", CHAT))
    assert run.run == "cafe-1"
    assert run.form == "jsonl"
    assert run.messages.schema == pl.Schema(CHAT_MESSAGES_SCHEMA)
    assert run.personas.schema == pl.Schema(PERSONAS_SCHEMA)
    assert run.messages["step"].to_list() == [1, 2, 3]
    assert run.messages["kind"].to_list() == ["stimulus", "action", "action"]
    assert run.messages["agent_name"].to_list() == [None, "Rosa", "Tomas"]
    assert run.messages["recipient_id"].to_list() == [None, None, "rosa"]
    # naive times are taken as UTC
    assert run.messages["time"][0] == datetime(2026, 1, 1, 10, 1, tzinfo=UTC)
    assert run.persona_of("rosa") == "A baker."
    assert run.persona_of("tomas") is None
    assert any("no persona spec for 'tomas'" in w for w in run.warnings)


def test_jsonl_without_run_line_or_steps_uses_file_name_and_line_order(tmp_path: Path) -> None:
    rows = [
        {"type": "message", "agent_id": "a", "text": "one"},
        {"type": "message", "agent_id": "b", "text": "two"},
    ]
    run = tk.load_chat(write_lines(tmp_path / "night-shift.jsonl", rows))
    assert run.run == "night-shift"
    assert run.messages["step"].to_list() == [1, 2]
    assert run.messages["channel"].to_list() == ["general", "general"]
    # speakers without persona lines still become agents, named by their id
    assert run.agent_ids == ["a", "b"]
    assert run.name_of("b") == "b"
    assert any("'a' speaks but has no persona line" in w for w in run.warnings)


def test_jsonl_unknown_line_types_are_skipped_with_a_warning(tmp_path: Path) -> None:
    rows = [*CHAT, {"type": "reaction", "emoji": "+1"}, {"type": "reaction"}]
    run = tk.load_chat(write_lines(tmp_path / "x.jsonl", rows))
    assert run.messages.height == 3
    assert "skipped lines of unknown type: reaction x2" in run.warnings


def test_jsonl_message_without_text_names_file_line_and_field(tmp_path: Path) -> None:
    rows = [CHAT[0], {"type": "message", "agent_id": "rosa"}]
    path = write_lines(tmp_path / "bad.jsonl", rows)
    with pytest.raises(tk.InputError) as err:
        tk.load_chat(path)
    assert str(err.value).startswith(f"{path}:2: text=")


def test_jsonl_action_without_author_is_an_error(tmp_path: Path) -> None:
    rows = [CHAT[0], {"type": "message", "text": "who said this?"}]
    with pytest.raises(tk.InputError, match=r":2: agent_id=None: an action needs"):
        tk.load_chat(write_lines(tmp_path / "bad.jsonl", rows))


def test_jsonl_bad_kind_names_value(tmp_path: Path) -> None:
    rows = [{"type": "message", "agent_id": "a", "text": "x", "kind": "shout"}]
    with pytest.raises(tk.InputError, match=r"kind='shout'"):
        tk.load_chat(write_lines(tmp_path / "bad.jsonl", rows))


def test_jsonl_duplicate_steps_are_an_error(tmp_path: Path) -> None:
    rows = [
        {"type": "message", "step": 4, "agent_id": "a", "text": "x"},
        {"type": "message", "step": 4, "agent_id": "b", "text": "y"},
    ]
    with pytest.raises(tk.InputError, match=r"step=4: steps must be unique"):
        tk.load_chat(write_lines(tmp_path / "dup.jsonl", rows))


def test_broken_json_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"type": "run", "run": "r"}\n{"type": "message", "text": \n', "utf-8")
    with pytest.raises(tk.InputError, match=r"broken.jsonl:2: not valid JSON"):
        tk.load_chat(path)


def test_empty_and_unrecognised_files_are_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", "utf-8")
    with pytest.raises(tk.InputError, match="empty"):
        tk.load_chat(empty)
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', "utf-8")
    with pytest.raises(tk.InputError, match="not a chat run"):
        tk.load_chat(other)
    with pytest.raises(tk.InputError, match="cannot read"):
        tk.load_chat(tmp_path / "missing.jsonl")


# ---------------------------------------------------------------------------
# run_messages export
# ---------------------------------------------------------------------------


def export_row(agent: str, at: str, text: str | None, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": "r7",
        "agent_id": agent,
        "message_type": "tool_call",
        "tool_name": "send_message",
        "tool_input": {"channel": "ops", "text": text},
        "created_at": at,
    }
    row.update(extra)
    return row


def test_export_keeps_only_send_message_calls_in_time_order(tmp_path: Path) -> None:
    rows = [
        export_row("b", "2026-03-01T10:05:00Z", "second"),
        {"agent_id": "a", "message_type": "thinking", "content": "hmm",
         "created_at": "2026-03-01T10:00:00Z"},
        export_row("a", "2026-03-01T10:01:00Z", "first"),
        export_row("a", "2026-03-01T10:02:00Z", None, message_type="tool_result",
                   tool_input=None),
        export_row("a", "2026-03-01T10:03:00Z", None, tool_name="search",
                   tool_input={"q": "x"}),
    ]  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps(rows), "utf-8")
    run = tk.load_chat(path)
    assert run.form == "run_messages"
    assert run.run == "r7"
    assert run.messages["text"].to_list() == ["first", "second"]
    assert run.messages["step"].to_list() == [1, 2]
    assert run.messages["kind"].to_list() == ["action", "action"]
    assert run.messages["channel"].to_list() == ["ops", "ops"]
    assert (
        "skipped 3 rows that are not send_message calls "
        "(thinking/- x1, tool_call/search x1, tool_result/send_message x1)"
    ) in run.warnings


def test_export_accepts_camel_case_string_tool_input_and_jsonl(tmp_path: Path) -> None:
    rows = [
        {"agentId": "a", "messageType": "tool_call", "toolName": "send_message",
         "toolInput": json.dumps({"channelId": "c1", "text": "hi", "recipientId": "b"}),
         "createdAt": "2026-03-01T10:00:00Z"},
    ]  # fmt: skip
    path = write_lines(tmp_path / "rows.jsonl", rows)
    run = tk.load_chat(path)
    assert run.run == "rows"  # no run_id: the file name
    assert run.messages.row(0, named=True)["channel"] == "c1"
    assert run.messages.row(0, named=True)["recipient_id"] == "b"


def test_export_missing_text_names_the_row(tmp_path: Path) -> None:
    rows = [export_row("a", "2026-03-01T10:00:00Z", "ok"), export_row("a", "2026-03-01T10:01Z", "")]
    rows[1]["tool_input"] = {"channel": "ops"}
    path = tmp_path / "e.json"
    path.write_text(json.dumps(rows), "utf-8")
    with pytest.raises(tk.InputError, match=r"\[1\]\.tool_input=.*needs tool_input.text"):
        tk.load_chat(path)


def test_export_of_several_runs_is_refused(tmp_path: Path) -> None:
    rows = [export_row("a", "2026-03-01T10:00:00Z", "x"), export_row("a", "2026-03-01T10:01Z", "y")]
    rows[1]["run_id"] = "other"
    path = tmp_path / "e.json"
    path.write_text(json.dumps({"run_messages": rows}), "utf-8")
    with pytest.raises(tk.InputError, match="several runs"):
        tk.load_chat(path)


def test_export_with_personas_file_gets_names_and_specs(sample_runs: Path) -> None:
    folder = sample_runs / "persona"
    run = tk.load_chat(folder / "radio-week1.run_messages.json", personas=folder / "personas.yaml")
    jsonl = tk.load_chat(folder / "radio-week1.jsonl")
    acts = jsonl.messages.filter(pl.col("kind") == "action")
    # the two forms of week 1 hold the same agent messages in the same order
    assert run.messages["text"].to_list() == acts["text"].to_list()
    assert run.messages["agent_name"].to_list() == acts["agent_name"].to_list()
    assert run.persona_of("otis") == jsonl.persona_of("otis")
    assert set(run.agent_ids) == {"mags", "otis", "priya", "lenny"}


def test_personas_file_forms(tmp_path: Path) -> None:
    as_map = tmp_path / "p.yaml"
    as_map.write_text("a:\n  name: Ann\n  persona: calm\nb: just a string spec\n", "utf-8")
    frame = tk.load_personas(as_map)
    assert frame.select("agent_id", "name", "persona").rows() == [
        ("a", "Ann", "calm"),
        ("b", "b", "just a string spec"),
    ]
    as_list = tmp_path / "p.json"
    as_list.write_text(json.dumps([{"id": "c", "name": "Cy"}]), "utf-8")
    assert tk.load_personas(as_list)["name"].to_list() == ["Cy"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- name: nobody\n", "utf-8")
    with pytest.raises(tk.InputError, match=r"\[0\]\.agent_id"):
        tk.load_personas(bad)


# ---------------------------------------------------------------------------
# Proposition files
# ---------------------------------------------------------------------------

FULL_FILE = """\
dimension: adherence
agent_id: rosa
include_personas: false
hard: true
target_type: agent
first_n: 3
last_n: 7
propositions:
  - id: p1
    claim: "{{agent_name}} talks about bread in {{channel_name}}"
    weight: 0.4
    inverted: true
    recommendations_for_improvement: "Mention bread."
    precondition: agent_has_messages
  - id: p2
    claim: "{{agent_name}} answers {{recipient_name}} after saying {{action}}"
    weight: 1
"""


def test_proposition_file_reads_every_field(tmp_path: Path) -> None:
    path = tmp_path / "rosa.yaml"
    path.write_text(FULL_FILE, "utf-8")
    parsed, warnings = load_proposition_file(path)
    spec = parsed.spec
    assert warnings == []
    assert (spec.dimension, spec.agent_id, spec.include_personas, spec.hard) == (
        "adherence",
        "rosa",
        False,
        True,
    )
    assert (spec.target_type, spec.first_n, spec.last_n) == ("agent", 3, 7)
    p1, p2 = spec.propositions
    assert (p1.id, p1.weight, p1.inverted, p1.precondition) == (
        "p1",
        0.4,
        True,
        "agent_has_messages",
    )
    assert p1.recommendations_for_improvement == "Mention bread."
    assert (p2.inverted, p2.precondition, p2.recommendations_for_improvement) == (False, None, None)


def test_proposition_file_defaults(tmp_path: Path) -> None:
    path = tmp_path / "_default.yaml"
    path.write_text("dimension: fluency\npropositions:\n  - {id: a, claim: c, weight: 1}\n")
    spec = load_proposition_file(path)[0].spec
    assert (spec.include_personas, spec.hard, spec.target_type) == (True, False, "agent")
    assert (spec.first_n, spec.last_n, spec.agent_id) == (None, None, None)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("weight: 1.5", r"propositions\.0\.weight=1\.5: Input should be less than or equal to 1"),
        ("weight: -0.1", r"propositions\.0\.weight=-0\.1"),
        ("weight: 1\n    wieght: 1", r"propositions\.0\.wieght=1: Extra inputs"),
    ],
)
def test_bad_proposition_fields_name_field_and_value(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = tmp_path / "_default.yaml"
    path.write_text(f"dimension: fluency\npropositions:\n  - id: a\n    claim: c\n    {body}\n")
    with pytest.raises(tk.InputError, match=expected):
        load_proposition_file(path)


def test_unknown_template_variable_is_refused_at_load(tmp_path: Path) -> None:
    path = tmp_path / "_default.yaml"
    path.write_text(
        'dimension: d\npropositions:\n  - {id: a, claim: "{{mood}} rises", weight: 1}\n'
    )
    with pytest.raises(tk.InputError, match=r"propositions\.0\.claim=.*unknown template variable"):
        load_proposition_file(path)


def test_duplicate_ids_and_default_with_agent_are_refused(tmp_path: Path) -> None:
    dup = tmp_path / "_default.yaml"
    dup.write_text("dimension: d\npropositions:\n  - {id: a, claim: c, weight: 1}\n"
                   "  - {id: a, claim: e, weight: 1}\n")  # fmt: skip
    with pytest.raises(tk.InputError, match="'a' appears more than once"):
        load_proposition_file(dup)
    dup.write_text("dimension: d\nagent_id: x\npropositions:\n  - {id: a, claim: c, weight: 1}\n")
    with pytest.raises(tk.InputError, match="agent_id='x': a _default file is for every agent"):
        load_proposition_file(dup)


def test_agent_id_is_taken_from_file_name_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "rosa.yaml"
    path.write_text("dimension: d\npropositions:\n  - {id: a, claim: c, weight: 1}\n")
    parsed, warnings = load_proposition_file(path)
    assert parsed.agent_id == "rosa"
    assert warnings == [f"{path}: no agent_id; taken from the file name ('rosa')"]


def test_folder_with_two_files_for_one_agent_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    body = "dimension: d\nagent_id: rosa\npropositions:\n  - {id: a, claim: c, weight: 1}\n"
    (tmp_path / "a" / "rosa.yaml").write_text(body)
    (tmp_path / "b" / "rosa.yml").write_text(body)
    with pytest.raises(tk.InputError, match="a second file for this dimension and agent"):
        tk.load_propositions(tmp_path)


def test_propositions_merge_default_then_agent_file(sample_runs: Path) -> None:
    props = tk.load_propositions(sample_runs / "persona" / "propositions")
    files = props.files_for("adherence", "lenny")
    assert [f.agent_id for f in files] == [None, "lenny"]
    assert props.files_for("adherence", "nobody")[0].agent_id is None
    assert len(props.files_for("adherence", "nobody")) == 1
    assert props.target_of("convergence") == "environment"
    assert props.dimensions == ["adherence", "consistency", "fluency", "convergence",
                                "ideas_quantity"]  # fmt: skip


def test_render_claim_fills_all_four_variables() -> None:
    claim = "{{agent_name}} in {{channel_name}} said {{action}} to {{ recipient_name }}"
    values = {
        "agent_name": "Rosa",
        "channel_name": "kitchen",
        "action": "hi",
        "recipient_name": "T",
    }
    assert tk.render_claim(claim, values) == "Rosa in kitchen said hi to T"


def test_render_claim_with_a_missing_value_is_a_clear_error() -> None:
    with pytest.raises(tk.InputError) as err:
        tk.render_claim(
            "{{agent_name}} answers {{recipient_name}}",
            {"agent_name": "Rosa", "recipient_name": None},
            path="f.yaml",
            field="propositions.1.claim",
            reasons={"recipient_name": "no message names a recipient"},
        )
    assert str(err.value) == (
        "f.yaml: propositions.1.claim='{{agent_name}} answers {{recipient_name}}': "
        "template variable {{recipient_name}} has no value here (no message names a recipient)"
    )


# ---------------------------------------------------------------------------
# Real proposition files and baselines (../shared/real_runs)
# ---------------------------------------------------------------------------


def test_all_21_real_proposition_files_load(real_runs: Path) -> None:
    props = tk.load_propositions(real_runs / "persona" / "the-office" / "propositions")
    assert len(props.files) == 21
    assert props.warnings == ()
    assert props.dimensions == ["adherence", "consistency", "fluency", "convergence",
                                "ideas_quantity"]  # fmt: skip
    frame = props.frame()
    adherence_agents = {f.agent_id for f in props.files if f.spec.dimension == "adherence"}
    assert len(adherence_agents - {None}) == 16
    michael = frame.filter(pl.col("file_agent_id") == "michael")
    assert michael.height == 10
    assert michael.filter(pl.col("inverted"))["proposition"].to_list() == [
        "michael-dry-corporate-antipattern"
    ]
    default = frame.filter(pl.col("proposition") == "generic-corporate-response").row(0, named=True)
    assert (default["inverted"], default["weight"], default["include_personas"]) == (
        True,
        0.8,
        True,
    )
    assert (default["first_n"], default["last_n"]) == (10, 100)
    assert props.target_of("ideas_quantity") == "environment"
    consistency = frame.filter(pl.col("dimension") == "consistency")
    assert not consistency["include_personas"].any()


def test_real_baselines_load(real_runs: Path) -> None:
    baselines = tk.load_baselines(real_runs / "persona" / "the-office" / "baselines")
    assert sorted(baselines) == ["dwight", "jim", "michael"]
    michael = baselines["michael"]
    assert michael.captured_at == datetime(2026, 2, 15, 19, 30, 34, 283000, tzinfo=UTC)
    assert michael.dimensions["fluency"] == pytest.approx(3.6176470588235294)
    assert michael.proposition_scores["michael-malapropisms"] == 2
    assert baselines["dwight"].dimensions == {"adherence": 7.19}


def test_baseline_round_trips_through_its_file_form(tmp_path: Path) -> None:
    baseline = tk.Baseline(
        agent_id="rosa",
        captured_at=datetime(2026, 5, 1, 12, 0, tzinfo=UTC),
        dimensions={"adherence": 7.25},
        proposition_scores={"p1": 7.0, "p2": 6.4},
    )
    (path,) = tk.write_baselines([baseline], tmp_path / "out")
    assert path.name == "rosa.json"
    data = json.loads(path.read_text())
    assert data == {
        "agentId": "rosa",
        "capturedAt": "2026-05-01T12:00:00.000Z",
        "dimensions": {"adherence": 7.25},
        "propositionScores": {"p1": 7, "p2": 6.4},
    }
    assert tk.load_baseline(path) == baseline


def test_bad_baseline_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"agentId": "x", "capturedAt": "2026-01-01T00:00:00Z",
                                "dimensions": {"adherence": "high"}}))  # fmt: skip
    with pytest.raises(tk.InputError, match=r"dimensions\.adherence='high'"):
        tk.load_baseline(path)


# ---------------------------------------------------------------------------
# Correction logs
# ---------------------------------------------------------------------------


def test_correction_log_is_one_row_per_attempt_and_dimension(tmp_path: Path) -> None:
    rows = [
        {"agent_id": "a", "action_id": 1, "attempt": 1, "outcome": "passed",
         "scores": {"persona_adherence": 8, "fluency": 7}, "similarity": 0.2},
        {"agent_id": "a", "action_id": 2, "attempt": 1, "outcome": "corrected", "scores": {}},
    ]  # fmt: skip
    log = tk.load_correction_log(write_lines(tmp_path / "gate.jsonl", rows))
    assert log.schema == pl.Schema(CORRECTION_LOG_SCHEMA)
    assert log.select("action_id", "dimension", "score", "line").rows() == [
        ("1", "persona_adherence", 8.0, 1),
        ("1", "fluency", 7.0, 1),
        ("2", None, None, 2),
    ]


def test_correction_log_in_the_table_shape_is_read_whole(tmp_path: Path) -> None:
    # Issue 23 item 15: the-office's table shape (dimension_scores with score and
    # reasoning, similarity_score, total_score) was read as an attempt with no scores.
    rows = [
        {"agent_id": "dwight", "attempt_number": 1, "outcome": "regeneration_requested",
         "dimension_scores": [
             {"dimension": "persona_adherence", "score": 4, "reasoning": "too casual",
              "passed": False, "threshold": 7},
             {"dimension": "fluency", "score": 8, "reasoning": "varied", "passed": True},
         ],
         "similarity_score": 0.72, "total_score": 12, "stage": "original"},
        {"agentId": "dwight", "attemptNumber": 2, "outcome": "regeneration_success",
         "dimensionScores": {"persona_adherence": {"score": 8, "reasoning": "beets"},
                             "fluency": 7},
         "similarityScore": 0.3, "totalScore": 15},
    ]  # fmt: skip
    log = tk.load_correction_log(write_lines(tmp_path / "gate.jsonl", rows))
    assert log.schema == pl.Schema(CORRECTION_LOG_SCHEMA)
    assert log.select(
        "attempt", "outcome", "dimension", "score", "reasoning", "passed", "similarity",
        "total_score",
    ).rows() == [
        (1, "regeneration_requested", "persona_adherence", 4.0, "too casual", False, 0.72, 12.0),
        (1, "regeneration_requested", "fluency", 8.0, "varied", True, 0.72, 12.0),
        (2, "regeneration_success", "persona_adherence", 8.0, "beets", None, 0.3, 15.0),
        (2, "regeneration_success", "fluency", 7.0, None, None, 0.3, 15.0),
    ]  # fmt: skip


def test_correction_log_table_shape_out_of_scale_names_the_dimension(tmp_path: Path) -> None:
    rows = [{"agent_id": "a", "attempt": 1, "outcome": "passed",
             "dimension_scores": {"fluency": 12}}]  # fmt: skip
    with pytest.raises(tk.InputError, match=r"gate.jsonl:1: dimension_scores.fluency=12"):
        tk.load_correction_log(write_lines(tmp_path / "gate.jsonl", rows))


def test_correction_log_reads_every_outcome_the_frame_holds_and_no_other(tmp_path: Path) -> None:
    """The file's model and the frame's Enum have one list of outcomes (the Enum is
    derived from the model's type): each loads into the frame, in the Enum's order."""
    from toolkit.frames import CORRECTION_OUTCOME

    outcomes = list(CORRECTION_OUTCOME.categories)
    assert len(outcomes) == 8 and "direct_correction_success" in outcomes
    rows = [{"agent_id": "a", "attempt": 1, "outcome": o} for o in outcomes]
    log = tk.load_correction_log(write_lines(tmp_path / "gate.jsonl", rows))
    assert log.schema["outcome"] == CORRECTION_OUTCOME
    assert log["outcome"].cast(pl.String).to_list() == outcomes
    with pytest.raises(tk.InputError, match=r"or 'direct_correction_success'$"):
        tk.load_correction_log(
            write_lines(tmp_path / "bad.jsonl", [{"attempt": 1, "outcome": "Passed"}])
        )


def test_correction_log_bad_outcome_names_line_and_value(tmp_path: Path) -> None:
    rows = [{"agent_id": "a", "attempt": 1, "outcome": "maybe"}]
    with pytest.raises(tk.InputError, match=r"gate.jsonl:1: outcome='maybe'"):
        tk.load_correction_log(write_lines(tmp_path / "gate.jsonl", rows))
