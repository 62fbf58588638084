"""the-office's rows into the toolkit's frames, on plain Polars frames (no database):
the window flag, the conversation, transcripts, log summaries and experiment scores.
Expected values are written out by hand from the rows given."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.load.persona.office_db import Window, chat_from_office_rows, parse_window
from toolkit.load.persona.office_summaries import (
    correction_summary,
    experiment_scores,
    intervention_summary,
)
from toolkit.load.persona.office_tables import transcripts_from_rows

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


def test_correction_summary_counts_unknown_values() -> None:
    logs = pl.DataFrame(
        {
            "agent_id": ["a", "a", "b", "b"],
            "stage": ["original", "regeneration", "original", None],
            "outcome": ["regeneration_requested", "regeneration_success", "corrected", "passed"],
            "total_score": [10.0, 30.0, 20.0, 36.0],
        }
    )
    table, warnings = correction_summary(logs)
    assert table.select("stage", "outcome", "attempts").rows() == [
        ("original", "regeneration_requested", 1),
        ("original", "corrected", 1),
        ("regeneration", "regeneration_success", 1),
        ("(none)", "passed", 1),
    ]
    assert sum(table["attempts"]) == logs.height
    assert len(warnings) == 2  # the null stage and the outcome 'corrected'


def test_intervention_summary_null_fired() -> None:
    logs = pl.DataFrame(
        {
            "intervention_type": ["variety", "variety", "variety"],
            "fired": [True, False, None],
            "textual_precondition_result": [True, False, None],
            "functional_precondition_result": [None, None, None],
            "propositional_precondition_result": [True, True, False],
        },
        schema_overrides={"functional_precondition_result": pl.Boolean},
    )
    table, warnings = intervention_summary(logs)
    row = table.row(0, named=True)
    assert (row["logged"], row["fired"], row["fired_null"]) == (3, 1, 1)
    assert row["fired_rate"] == pytest.approx(1 / 2)  # the null left out of the rate
    assert (row["functional_true"], row["functional_false"], row["functional_null"]) == (0, 0, 3)
    assert (row["propositional_true"], row["propositional_false"]) == (2, 1)
    assert warnings == []


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
