"""the-office on a real PostgreSQL server: correction and intervention logs read whole and
summarised, experiments as treatment vs control, and bad input as one line (exit 2, the
URI redacted).

Expected counts and means are worked out by hand from the plan in
``sample_runs/make_office_postgres.py`` (its ``corrections``, ``interventions`` and
``EXPERIMENT_SCORES``).
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

ROOT = Path(__file__).resolve().parents[2]
PERSONA = ROOT / "sample_runs" / "persona"
SAMPLE_SQL = PERSONA / "the-office-postgres.sql"
PROPOSITIONS = PERSONA / "propositions"


@pytest.fixture(scope="module")
def office(pg_server: Cluster) -> str:
    return pg_server.make_database("office_logs", [SAMPLE_SQL])


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_correction_logs_every_stage_and_outcome(office: str) -> None:
    logs = tk.load_office_logs(office)
    assert logs.attempts == 9  # 1 + 2 + 3 + 2 + 1 attempts in the plan
    stages = logs.correction.stage_outcomes
    assert stages is not None
    counts = {(r["stage"], r["outcome"]): r["attempts"] for r in stages.to_dicts()}
    assert counts == {
        ("original", "passed"): 1,
        ("original", "regeneration_requested"): 3,
        ("original", "timeout_pass_through"): 1,
        ("regeneration", "regeneration_requested"): 1,
        ("regeneration", "regeneration_success"): 1,
        ("regeneration", "forced_through"): 1,
        ("direct_correction", "direct_correction_success"): 1,
    }
    # the five plans are five actions, each counted once by its last attempt's outcome
    assert logs.correction.outcomes["actions"].sum() == 5
    # the table's every column is kept: the first attempt's text and dimension_scores
    first = logs.corrections.filter(pl.col("line") == 1)
    assert first["final_text"].unique().to_list() == ["Sponsors: 7 of 12 signed. Deadline Friday."]
    assert first.select("dimension", "score").rows() == [
        ("persona_adherence", 9.0), ("self_consistency", 9.0), ("fluency", 8.0),
        ("suitability", 9.0),
    ]  # fmt: skip


def test_intervention_fired_rate_and_preconditions(office: str) -> None:
    logs = tk.load_office_logs(office)
    table = {r["intervention_type"]: r for r in logs.intervention.by_type.to_dicts()}
    assert list(table) == ["anti_convergence", "variety", "custom"]
    assert [(t["evaluated"], t["fired"]) for t in table.values()] == [(3, 1), (2, 1), (2, 1)]
    assert table["anti_convergence"]["fired_rate"] == pytest.approx(1 / 3)
    pre = {
        (r["intervention_type"], r["precondition"]): (r["passed"], r["failed"], r["not_checked"])
        for r in logs.intervention.preconditions.to_dicts()
    }
    assert pre["anti_convergence", "textual"] == (1, 1, 1)
    assert pre["custom", "propositional"][:2] == (1, 1)
    assert pre["custom", "functional"][2] == 2


def test_logs_scoped_by_channel_and_agent(office: str) -> None:
    lenny = tk.load_office_logs(office, agents=["lenny"])
    assert lenny.attempts == 7  # his three plans: 2 + 3 + 2 attempts
    studio = tk.load_office_logs(office, channel="studio")
    assert studio.interventions.height == 4
    assert set(studio.interventions["channel_id"].to_list()) == {"ch-studio"}


def test_persona_cli_prints_the_log_summaries(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        ["persona", office, "--channel", "fundraiser", "--window", "2026-11-09..2026-11-09",
         "--judge", "stored", "--propositions", str(PROPOSITIONS), "--gate", "none"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "correction logs: 5 attempt(s)" in out  # the fundraiser: priya 1, lenny 2 + 2
    assert "anti_convergence  fired 1/2 (50%)" in out


def test_experiment_treatment_vs_control(office: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["experiment", office, "--format", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["experiments"]["lantern-walk-brainstorm"]["metrics"]
    adherence = rows["adherence"]
    assert adherence["t_mean"] == pytest.approx((8 + 7 + 9 + 8) / 4)
    assert adherence["c_mean"] == pytest.approx((5 + 6 + 4 + 6) / 4)
    assert adherence["t_n"] == adherence["c_n"] == 4
    assert rows["fluency"]["t_mean"] == pytest.approx((6 + 7 + 6 + 6) / 4)
    assert set(rows) == {"adherence", "consistency", "fluency", "convergence", "ideas_quantity"}
    loaded = tk.load_office_experiments(office)
    assert loaded.experiments == ["lantern-walk-brainstorm"]
    assert loaded.scores.height == 8 * 5


# -- bad input: one line, exit 2, the URI redacted ------------------------------------


@pytest.fixture(scope="module")
def broken(pg_server: Cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("broken")
    changes = {
        "no_prompt": "ALTER TABLE agents DROP COLUMN system_prompt;",
        "no_logs": "DROP TABLE intervention_logs;",
        "text_score": "ALTER TABLE evaluation_scores ALTER COLUMN score TYPE text;",
        "text_time": "ALTER TABLE messages ALTER COLUMN created_at TYPE text;",
        "odd_stage": "UPDATE correction_logs SET stage = 'rewrite' WHERE attempt_number = 2;",
    }
    out = {}
    for name, change in changes.items():
        file = folder / f"{name}.sql"
        file.write_text(change + "\n")
        out[name] = pg_server.make_database(f"office_{name}", [SAMPLE_SQL, file])
    return out


def _one_line_error(url: str, args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = _cli(args, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert (urlsplit(url).password or "") not in err
    return err


def _persona(url: str, *extra: str) -> list[str]:
    return ["persona", url, "--judge", "stored", "--propositions", str(PROPOSITIONS), *extra]


def test_unknown_channel_suggests_the_closest(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(office, _persona(office, "--channel", "fundraser"), capsys)
    assert "did you mean fundraiser" in err
    assert "'fundraser'" in err


def test_no_channel_is_asked_for(office: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line_error(office, _persona(office), capsys)
    assert "--channel" in err


def test_missing_column_names_the_office_schema(
    broken: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = broken["no_prompt"]
    err = _one_line_error(url, _persona(url, "--channel", "fundraiser"), capsys)
    assert "system_prompt" in err
    assert "the-office (Drizzle schema" in err


def test_missing_table_names_the_office_schema(
    broken: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = broken["no_logs"]
    err = _one_line_error(url, _persona(url, "--channel", "fundraiser"), capsys)
    assert "intervention_logs" in err
    assert "the-office (Drizzle schema" in err


def test_a_score_that_is_not_a_number(
    broken: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = broken["text_score"]
    err = _one_line_error(url, _persona(url, "--channel", "fundraiser"), capsys)
    assert "evaluation_scores.score" in err
    assert "expected a number" in err


def test_a_time_that_is_not_a_timestamp(
    broken: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = broken["text_time"]
    for window in ([], ["--window", "2026-11-09..2026-11-09"]):
        err = _one_line_error(url, _persona(url, "--channel", "fundraiser", *window), capsys)
        assert "messages.created_at" in err
        assert "expected timestamptz" in err


def test_a_stage_the_schema_does_not_list_names_the_table_and_row(
    broken: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = broken["odd_stage"]
    err = _one_line_error(url, _persona(url, "--channel", "fundraiser"), capsys)
    assert "#correction_logs:" in err
    assert ": stage" in err
    assert "'rewrite'" in err


def test_persona_json_has_the_log_reports(office: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        ["persona", office, "--channel", "fundraiser", "--window", "2026-11-09..2026-11-09",
         "--judge", "stored", "--propositions", str(PROPOSITIONS), "--gate", "none",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    logs = json.loads(out)["the_office_logs"]
    assert sum(r["attempts"] for r in logs["corrections"]) == 5  # priya 1, lenny 2 + 2
    anti = next(r for r in logs["interventions"] if r["intervention_type"] == "anti_convergence")
    assert (anti["evaluated"], anti["fired"]) == (2, 1)


def test_agents_by_display_name_scope_the_logs(
    office: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        ["persona", office, "--channel", "fundraiser", "--window", "2026-11-09..2026-11-09",
         "--agents", "Lenny", "--judge", "stored", "--propositions", str(PROPOSITIONS),
         "--gate", "none"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "correction logs: 4 attempt(s)" in out  # lenny in #fundraiser: 2 + 2 attempts
    assert "interventions: 1 logged" in out  # his anti_convergence nudge
