"""the-office on a real PostgreSQL server: the channel conversation and personas, run
transcripts from run_messages joined with runs, and ``--judge stored`` (the system's own
evaluation_scores) through ``toolkit persona postgresql://…``.

The database is ``sample_runs/persona/the-office-postgres.sql`` loaded with ``psql -f``;
every expectation comes from the persona sample files it was written from (the JSONL runs,
the personas, the cassette's answers) or is counted by hand from the generator's plan.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import polars as pl
import pytest
from pg_cluster import Cluster

import toolkit as tk
from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.judge import RecordedJudge
from toolkit.rubrics.compare.family_scores import persona_scores

ROOT = Path(__file__).resolve().parents[2]
PERSONA = ROOT / "sample_runs" / "persona"
SAMPLE_SQL = PERSONA / "the-office-postgres.sql"
PROPOSITIONS = PERSONA / "propositions"
WEEK2 = "2026-11-09..2026-11-09"


@pytest.fixture(scope="module")
def office(pg_server: Cluster) -> str:
    return pg_server.make_database("office_chat", [SAMPLE_SQL])


def _password(url: str) -> str:
    return urlsplit(url).password or ""


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _file_week(n: int) -> tk.ChatRun:
    return tk.load_chat(PERSONA / f"radio-week{n}.jsonl", personas=PERSONA / "personas.yaml")


def test_channel_conversation_matches_the_sample_run(office: str) -> None:
    chat = tk.load_chat(office, channel="fundraiser", window=WEEK2)
    expected = _file_week(2).messages.filter(pl.col("channel") == "fundraiser")
    assert chat.form == "the-office"
    assert chat.messages.height == expected.height
    assert chat.messages["agent_id"].to_list() == expected["agent_id"].to_list()
    said = chat.messages.filter(pl.col("kind") == "action")["text"].to_list()
    assert said == expected.filter(pl.col("kind") == "action")["text"].to_list()
    # a person's message is a stimulus '<user_id>: <text>' (the file wrote 'Facilitator: ')
    prompts = chat.messages.filter(pl.col("kind") == "stimulus")["text"].to_list()
    assert prompts == [
        "facilitator: " + t.removeprefix("Facilitator: ")
        for t in expected.filter(pl.col("kind") == "stimulus")["text"].to_list()
    ]
    assert chat.messages["channel"].unique().to_list() == ["fundraiser"]
    assert _password(office) not in chat.source


def test_personas_come_from_agents_system_prompt(office: str) -> None:
    chat = tk.load_chat(office, channel="ch-studio", window=WEEK2)
    sample = _file_week(2)
    for agent in chat.agent_ids:
        assert chat.persona_of(agent) == sample.persona_of(agent)
        assert chat.name_of(agent) == sample.name_of(agent)


def test_window_and_channel_select_rows(office: str) -> None:
    week1 = tk.load_chat(office, channel="fundraiser,studio", window="2026-11-02..2026-11-02")
    assert week1.messages.height == _file_week(1).messages.height
    everything = tk.load_chat(office, channel="fundraiser,studio")
    assert everything.messages.height == (
        _file_week(1).messages.height + _file_week(2).messages.height
    )
    times = everything.messages["time"].to_list()
    assert times == sorted(times)


def test_transcripts_keep_thinking_and_tools_apart_from_what_was_said(office: str) -> None:
    frame = tk.load_office_transcripts(office, channel="fundraiser", window=WEEK2)
    expected = _file_week(2).messages.filter(
        (pl.col("channel") == "fundraiser") & (pl.col("kind") == "action")
    )
    said = frame.filter(pl.col("part") == "said")
    # one run per message an agent posted, in the order they were posted
    assert said["text"].to_list() == expected["text"].to_list()
    assert said["agent_id"].to_list() == expected["agent_id"].to_list()
    assert said["run_id"].n_unique() == expected.height
    # the generator's plan per run: system + user prompt, thinking, send_message call and
    # return, an assistant line; every 4th step a memory lookup (call + return) as well
    per_run = frame.group_by("run_id").agg(pl.len().alias("n"))["n"].to_list()
    assert set(per_run) <= {6, 8}
    thinking = frame.filter(pl.col("part") == "thinking")["text"].to_list()
    assert len(thinking) == expected.height
    assert not set(thinking) & set(said["text"].to_list())
    assert set(frame["part"].unique().to_list()) == {
        "said",
        "thinking",
        "tool",
        "assistant",
        "prompt",
    }
    assert frame["channel_id"].unique().to_list() == ["ch-fundraiser"]


def test_transcripts_of_some_agents_only(office: str) -> None:
    frame = tk.load_office_transcripts(office, agents=["lenny"], window=WEEK2)
    lenny = _file_week(2).messages.filter(pl.col("agent_id") == "lenny")
    assert frame["agent_id"].unique().to_list() == ["lenny"]
    assert frame.filter(pl.col("part") == "said").height == lenny.height


def test_stored_judge_reproduces_the_cassette_scores(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stored evaluation_scores are the cassette's answers for week 2, so --judge stored
    on the database gives the dimension scores the cassette gives on the sample file."""
    code, out, err = _cli(
        ["persona", office, "--channel", "fundraiser,studio", "--window", WEEK2,
         "--judge", "stored", "--propositions", str(PROPOSITIONS), "--gate", "none",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    got = {(r["agent_id"], r["dimension"]): r["score"] for r in doc["table"]}
    reference = tk.score_persona(
        _file_week(2), tk.load_propositions(PROPOSITIONS), RecordedJudge(PERSONA / "cassette.json")
    )
    want = reference.dimensions.filter(pl.col("window") == 0)
    assert len(got) == want.height
    for row in want.iter_rows(named=True):
        key = (row["agent_id"] or "environment", row["dimension"])
        assert got[key] == pytest.approx(row["score"]), key
    # lenny's week-2 adherence, as tests/cli/test_persona_cli.py pins it by hand
    assert got[("lenny", "adherence")] == pytest.approx(1.042857, abs=1e-6)
    assert doc["judge"].startswith("stored:")
    assert _password(office) not in out + err


def test_stored_judge_gates_week2_against_week1_baselines(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _cli(
        ["persona", office, "--channel", "fundraiser,studio", "--window", WEEK2,
         "--judge", "stored", "--propositions", str(PROPOSITIONS),
         "--baseline", str(PERSONA / "baselines")],
        capsys,
    )  # fmt: skip
    assert code == 1  # lenny regressed in week 2
    assert "lenny" in out


def test_stored_judge_names_evaluation_runs(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = tk.load_stored_scores(office, agents=["otis"])
    week1 = scores.filter(pl.col("is_baseline"))["evaluation_run_id"].unique().to_list()
    assert len(week1) == 5  # the-office runs one evaluation per dimension
    code, out, err = _cli(
        ["persona", office, "--channel", "fundraiser,studio", "--window", WEEK2, "--agents",
         "otis", "--judge", "stored:" + ",".join(week1), "--propositions", str(PROPOSITIONS),
         "--gate", "none", "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert "5 evaluation run(s)" in doc["judge"]
    # the named run is otis's week-1 evaluation: his scores are week 1's
    reference = tk.score_persona(
        _file_week(1), tk.load_propositions(PROPOSITIONS), RecordedJudge(PERSONA / "cassette.json")
    )
    want = reference.dimensions.filter(pl.col("agent_id") == "otis", pl.col("window") == 0)
    got = {(r["agent_id"], r["dimension"]): r["score"] for r in doc["table"]}
    for row in want.iter_rows(named=True):
        assert got[("otis", row["dimension"])] == pytest.approx(row["score"])


def test_stored_needs_a_database(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        ["persona", str(PERSONA / "radio-week2.jsonl"), "--judge", "stored",
         "--propositions", str(PROPOSITIONS)],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "postgresql://" in err


def test_no_messages_in_the_window_is_one_line(office: str) -> None:
    with pytest.raises(InputError, match="no messages in #fundraiser"):
        tk.load_chat(office, channel="fundraiser", window="2025-01-01..2025-01-02")


def test_stored_scores_of_runs_overlapping_the_window(office: str) -> None:
    # week 2's evaluation windows are [11-09, 11-10): they overlap a window that starts
    # mid-day; week 1's [11-02, 11-03) do not; the experiment's runs are never included
    scores = tk.load_stored_scores(office, window="2026-11-09T12:00..2026-11-20")
    assert scores["evaluation_run_id"].n_unique() == 4 * 5  # four agents, five dimensions
    assert not scores["is_baseline"].any()
    assert scores["experiment_id"].null_count() == scores.height


def test_stored_week1_writes_the_committed_baselines(
    office: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Week 1's stored scores are the cassette's: baselines written from them are the
    sample baselines (recorded from the files with the cassette)."""
    out = tmp_path / "baselines"
    code, _, err = _cli(
        ["persona", office, "--channel", "fundraiser,studio", "--window",
         "2026-11-02..2026-11-02", "--judge", "stored", "--propositions", str(PROPOSITIONS),
         "--write-baseline", str(out), "--gate", "none"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    for agent in ("mags", "otis", "priya", "lenny"):
        got = json.loads((out / f"{agent}.json").read_text())
        want = json.loads((PERSONA / "baselines" / f"{agent}.json").read_text())
        assert got["dimensions"] == want["dimensions"], agent
        assert got["propositionScores"] == want["propositionScores"], agent


def test_two_windows_compared(office: str) -> None:
    """Week 1 against week 2, both judged by the stored scores, through tk.compare: the
    group's adherence fell (lenny's slide), as the sample was written."""
    propositions = tk.load_propositions(PROPOSITIONS)
    settings = tk.proposition_settings(propositions)

    def arm(window: str) -> pl.DataFrame:
        chat = tk.load_chat(office, channel="fundraiser,studio", window=window)
        judge = tk.StoredJudge(tk.load_stored_scores(office, window=window), office, settings)
        return persona_scores(tk.score_persona(chat, propositions, judge, progress=False))

    result = tk.compare(arm("2026-11-02..2026-11-02"), arm(WEEK2))
    adherence = result.dimensions.filter(pl.col("dimension") == "adherence").row(0, named=True)
    assert adherence["outcome"] == "worse"
    assert adherence["diff"] < 0
