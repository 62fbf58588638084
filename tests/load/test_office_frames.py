"""the-office's rows into the toolkit's frames, on plain Polars frames (no database):
the window flag, the conversation, transcripts, the logs' reports and experiment scores.
Expected values are written out by hand from the rows given."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.load.persona.office_db import Window, chat_from_office_rows, parse_window
from toolkit.load.persona.office_summaries import experiment_scores
from toolkit.load.persona.office_tables import transcripts_from_rows
from toolkit.rubrics.persona.office_logs import office_logs

T0 = datetime(2026, 11, 9, 18, 0, tzinfo=UTC)
URL = "postgresql://guest@db/office"


def test_window_forms() -> None:
    now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    assert parse_window("7d", now=now) == Window(now - timedelta(days=7), now)
    assert parse_window("12h", now=now).start == now - timedelta(hours=12)
    assert parse_window("2w", now=now).start == now - timedelta(days=14)
    day = parse_window("2026-11-09..2026-11-09")
    assert day == Window(datetime(2026, 11, 9, tzinfo=UTC), datetime(2026, 11, 10, tzinfo=UTC))
    assert parse_window("2026-11-09T18:00+01:00..") == Window(
        datetime(2026, 11, 9, 17, tzinfo=UTC), None
    )
    assert parse_window(None) == Window()


@pytest.mark.parametrize("text", ["7 days", "2026-13-01..", "2026-11-10..2026-11-09T00:00"])
def test_bad_windows_are_one_line(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_window(text)
    assert "--window" in str(caught.value)
    assert "\n" not in str(caught.value)


def _messages(rows: list[tuple[str, str, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"id": f"m{i}", "channel_id": ch, "user_id": user, "text": text,
             "created_at": T0 + timedelta(minutes=i)}
            for i, (ch, user, text) in enumerate(rows)
        ],
        schema={"id": pl.String, "channel_id": pl.String, "user_id": pl.String,
                "text": pl.String, "created_at": pl.Datetime("us", "UTC")},
    )  # fmt: skip


AGENTS = pl.DataFrame(
    {"id": ["mags"], "display_name": ["Mags"], "system_prompt": ["A grande dame."]}
)
CHANNELS = pl.DataFrame({"id": ["c1"], "name": ["fundraiser"]})


def test_agents_act_and_people_prompt() -> None:
    chat = chat_from_office_rows(
        URL,
        _messages([("c1", "pat", "Ideas?"), ("c1", "mags", "A gala, darling!")]),
        AGENTS,
        CHANNELS,
    )
    rows = chat.messages.select("step", "channel", "agent_id", "kind", "text").rows()
    assert rows == [
        (1, "fundraiser", None, "stimulus", "pat: Ideas?"),
        (2, "fundraiser", "mags", "action", "A gala, darling!"),
    ]
    assert chat.persona_of("mags") == "A grande dame."
    assert chat.name_of("mags") == "Mags"
    assert chat.run == "#fundraiser"
    assert any("1 message(s) by authors who are not agents" in w for w in chat.warnings)


def test_a_number_where_text_belongs_is_refused() -> None:
    messages = _messages([("c1", "mags", "hi")]).with_columns(pl.lit(7).alias("text"))
    with pytest.raises(InputError, match=r"messages\.text"):
        chat_from_office_rows(URL, messages, AGENTS, CHANNELS)


def test_transcript_parts() -> None:
    runs = pl.DataFrame(
        {"id": ["r1"], "agent_id": ["mags"], "channel_id": ["c1"], "created_at": [T0]}
    )
    kinds = [
        ("thinking_message", "hmm", None, None),
        ("tool_call_message", "send_message", "send_message", '{"text": "Hello!"}'),
        ("tool_return_message", "Sent.", "send_message", None),
        ("tool_call_message", "search", "search_memory", {"q": "x"}),
        ("heartbeat", "tick", None, None),
    ]
    rows = pl.DataFrame(
        [
            {"id": f"x{i}", "run_id": "r1", "step_id": None, "message_type": k,
             "content": c, "tool_name": t, "tool_input": json.dumps(ti) if isinstance(ti, dict)
             else ti, "created_at": T0 + timedelta(seconds=i)}
            for i, (k, c, t, ti) in enumerate(kinds)
        ]
    )  # fmt: skip
    frame, warnings = transcripts_from_rows(runs, rows)
    assert frame.select("part", "text").rows() == [
        ("thinking", "hmm"),
        ("said", "Hello!"),
        ("tool", "Sent."),
        ("tool", "search"),
        ("other", "tick"),
    ]
    assert frame["agent_id"].to_list() == ["mags"] * 5
    assert warnings == [
        "1 run message(s) of type 'heartbeat' (not in the schema) kept as part 'other'"
    ]


def _corrections(rows: list[tuple[str, str | None, int, str, float]]) -> pl.DataFrame:
    """``correction_logs`` rows (the table shape) one minute apart."""
    return pl.DataFrame(
        [
            {"id": f"c{i}", "agent_id": agent, "stage": stage, "attempt_number": attempt,
             "outcome": outcome, "total_score": total, "created_at": T0 + timedelta(minutes=i)}
            for i, (agent, stage, attempt, outcome, total) in enumerate(rows)
        ]
    )  # fmt: skip


NO_INTERVENTIONS = pl.DataFrame()


def test_corrections_by_stage_and_outcome_in_the_schemas_order() -> None:
    rows = _corrections(
        [
            ("a", "original", 1, "regeneration_requested", 10.0),
            ("a", "regeneration", 2, "regeneration_success", 30.0),
            ("b", "original", 1, "corrected", 20.0),
            ("b", None, 1, "passed", 36.0),
            ("c", "original", 1, "regeneration_requested", 14.0),
        ]
    )
    logs = office_logs(rows, NO_INTERVENTIONS, URL)
    table = logs.correction.stage_outcomes
    assert table is not None
    # stages original, regeneration, direct_correction, then none; outcomes in the
    # frame's order (passed, corrected, ..., regeneration_requested, ...)
    assert table.rows() == [
        ("original", "corrected", 1, 1, 20.0),
        ("original", "regeneration_requested", 2, 2, 12.0),
        ("regeneration", "regeneration_success", 1, 1, 30.0),
        (None, "passed", 1, 1, 36.0),
    ]
    assert sum(table["attempts"]) == rows.height == logs.attempts
    assert logs.interventions.height == 0


def test_a_stage_the_schema_does_not_list_is_refused_naming_the_row() -> None:
    rows = _corrections([("a", "original", 1, "passed", 30.0), ("a", "rewrite", 1, "passed", 30.0)])
    with pytest.raises(InputError) as caught:
        office_logs(rows, NO_INTERVENTIONS, URL)
    message = str(caught.value)
    assert message.startswith(f"{URL}#correction_logs:2: stage")
    assert "'rewrite'" in message
    assert "\n" not in message


def _interventions(**columns: list[object]) -> pl.DataFrame:
    return pl.DataFrame(
        {"agent_id": ["a"] * 3, "intervention_type": ["variety"] * 3, **columns},
        schema_overrides={"functional_precondition_result": pl.Boolean},
    )


def test_interventions_fired_rate_and_what_each_precondition_said() -> None:
    rows = _interventions(
        fired=[True, False, False],
        textual_precondition_result=[True, False, None],
        functional_precondition_result=[None, None, None],
        propositional_precondition_result=[True, True, False],
    )
    logs = office_logs(pl.DataFrame(), rows, URL)
    assert logs.intervention.by_type.rows() == [("variety", 3, 1, pytest.approx(1 / 3))]
    pre = {p: (held, failed, unrun) for _, p, held, failed, unrun, _ in
           logs.intervention.preconditions.rows()}  # fmt: skip
    assert pre == {"functional": (0, 0, 3), "textual": (1, 1, 1), "propositional": (2, 1, 0)}
    assert logs.intervention.inconsistent.height == 0
    assert logs.to_dict()["interventions"][0]["fired"] == 1


def test_a_null_fired_is_refused_naming_the_field() -> None:
    # the-office's schema: fired boolean NOT NULL
    rows = _interventions(fired=[True, False, None])
    with pytest.raises(InputError) as caught:
        office_logs(pl.DataFrame(), rows, URL)
    assert str(caught.value).startswith(f"{URL}#intervention_logs:3: fired")


def test_experiment_scores_groups_from_environments() -> None:
    exps = pl.DataFrame({"id": ["e1"], "scenario_id": ["walk"], "status": ["completed"]})
    envs = pl.DataFrame(
        {"experiment_id": ["e1", "e1"], "environment_index": [0, 1],
         "group": ["treatment", "control"], "channel_id": ["c1", "c2"],
         "agent_ids": [["a"], ["b"]]}
    )  # fmt: skip
    scores = pl.DataFrame(
        {"experiment_id": ["e1"] * 4, "agent_id": ["a", "b", "z", "a"],
         "proposition_id": ["experiment-e1-adherence"] * 3 + ["in-character"],
         "score": [8.0, 5.0, 1.0, 9.0]}
    )  # fmt: skip
    loaded = experiment_scores(exps, envs, scores, URL)
    assert loaded.scores.select("experiment", "group", "metric", "unit", "score").rows() == [
        ("walk", "treatment", "adherence", "a", 8.0),
        ("walk", "control", "adherence", "b", 5.0),
    ]
    assert sorted(loaded.warnings) == [
        "1 experiment score(s) skipped: agent in no environment of its experiment (group None)",
        "1 experiment score(s) skipped: not an experiment-<id>-<dimension> proposition",
    ]


def test_window_label_reads_back_as_the_same_window() -> None:
    for text in ("2026-11-09..2026-11-09", "2026-11-02..2026-11-08", "..2026-11-09"):
        window = parse_window(text)
        assert window.label() == text
        assert parse_window(window.label()) == window
    assert parse_window("2026-11-09T18:30..").label() == "2026-11-09T18:30+00:00.."
