"""Every scoring command gates with one vocabulary and writes the same CI outputs:
``--gate`` anywhere, a stderr line per failing subject, ``--junit FILE``, ``--format
markdown`` and ``$GITHUB_STEP_SUMMARY``; plus the flag hints and token-world's spellings."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS, tick_v1, write_run

from toolkit.cli import main

HEALTHY = SAMPLE_RUNS / "universes" / "willowbrook"
FAILED = SAMPLE_RUNS / "universes" / "ashfall"
GAMES = SAMPLE_RUNS / "discussions"
PERSONA = SAMPLE_RUNS / "persona"
LOG = SAMPLE_RUNS / "iteration_logs" / "tally-loop"
EXPERIMENTS = SAMPLE_RUNS / "experiments"
PERSONA_ARGS = [
    str(PERSONA / "radio-week2.jsonl"),
    "--propositions",
    str(PERSONA / "propositions"),
    "--judge",
    f"recorded:{PERSONA / 'cassette.json'}",
    "--baseline",
    str(PERSONA / "baselines"),
]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def nodb(tmp_path: Path) -> Path:
    """A run without universe.db: every dimension OK but graph fan-out N/A (a new verb
    every 5th tick keeps vocabulary growth at 2 per 10 ticks)."""
    ticks = [
        tick_v1(n, classified_action={"verb": f"verb{n - (n - 1) % 5}", "actor": "mara"})
        for n in range(1, 41)
    ]
    return write_run(tmp_path / "nodb", ticks)


# --- a failed gate says why ------------------------------------------------------------


def test_failed_quality_gate_names_each_failing_dimension_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(["quality", str(FAILED), "--gate"], capsys)
    assert code == 1
    (line,) = err.strip().splitlines()[-1:]
    assert line.startswith("toolkit quality: gate strict: ashfall failed: ")
    assert "Character stability FAIL: (10 breaks in 48 turns)" in line


def test_fleet_gate_prints_one_line_per_failing_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["quality", "--all", str(SAMPLE_RUNS / "universes"), "--gate"], capsys)
    gate_lines = [line for line in err.splitlines() if ": gate strict: " in line]
    assert code == 1
    assert [line.split(": ")[2].split()[0] for line in gate_lines] == ["ashfall", "harbor-town"]


# --- --gate anywhere; the old spellings ------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["discussion", "--gate", str(GAMES / "game-role-repetition.json")],
        ["discussion", str(GAMES / "game-role-repetition.json"), "--gate"],
        ["discussion", "--gate", "fail", str(GAMES / "game-role-repetition.json")],
        ["discussion", "--gate", "fail-only", str(GAMES / "game-role-repetition.json")],
        ["quality", "--gate", str(FAILED), "--format", "json"],
        ["quality", "--gate", "fail-only", str(FAILED)],
    ],
)
def test_gate_is_accepted_before_or_after_the_paths(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(args, capsys)
    assert code == 1
    assert " failed: " in err


def test_options_may_follow_and_precede_several_paths(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["discussion", str(GAMES / "game-pass.json"), "--format", "json"]
    code, out, _ = run_cli([*args, str(GAMES / "game-role-repetition.json")], capsys)
    assert code == 0
    assert len(json.loads(out)["games"]) == 2


def test_discussion_fail_only_lets_a_pending_game_pass_and_strict_names_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = str(GAMES / "game-pass.json")
    code, _, err = run_cli(["discussion", game, "--gate", "fail-only"], capsys)
    assert code == 0 and "wait for an engagement rating" in err
    code, _, err = run_cli(["discussion", game, "--gate", "strict"], capsys)
    assert code == 1 and "verdict PENDING_RATING" in err


# --- persona: the regression exit is a gate mode ----------------------------------------------


def test_persona_default_gate_is_regression_and_none_opts_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(["persona", *PERSONA_ARGS], capsys)
    assert code == 1
    assert "gate regression: radio-week2/lenny failed: adherence REGRESSION: weighted mean" in err
    code, _, err = run_cli(["persona", *PERSONA_ARGS, "--gate", "none"], capsys)
    assert code == 0 and "failed" not in err


# --- outcome and experiment gate too ------------------------------------------------------------


def test_outcome_gate_fails_on_a_poor_iteration(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["outcome", str(LOG)], capsys)[0] == 0  # no gate, no failure
    code, _, err = run_cli(["outcome", str(LOG), "--gate", "fail-only"], capsys)
    assert code == 1
    assert "gate fail-only: iter-5 failed: verdict poor: value 0.4789" in err


def test_experiment_gate_fails_on_a_conclusion_that_differs_from_the_reference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["experiment", str(EXPERIMENTS / "harbour_council_gate.json")]
    ref = ["--reference", str(EXPERIMENTS / "harbour_council_reference.json")]
    assert run_cli([*base, "--gate", "fail-only"], capsys)[0] == 0  # nothing to fail without it
    code, _, err = run_cli([*base, *ref, "--gate", "fail-only"], capsys)
    assert code == 1
    assert "harbour_council_gate failed: Divergence FAIL" in err


# --- not measured is not green (issue 23 item 2) ---------------------------------------------


def test_unmeasured_dimension_is_named_in_the_verdict_and_fails_the_default_gate(
    nodb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["quality", str(nodb), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "HEALTHY"
    assert data["verdict_reason"] == "not measured: graph fan-out"
    code, _, err = run_cli(["quality", str(nodb), "--gate"], capsys)
    assert code == 1 and "Graph fan-out not measured: insufficient history" in err


def test_allow_na_accepts_the_named_dimension_only(
    nodb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["quality", str(nodb), "--gate", "--allow-na", "graph_fanout"], capsys)[0] == 0
    code, _, err = run_cli(["quality", str(nodb), "--gate", "--allow-na", "groundedness"], capsys)
    assert code == 1
    code, _, err = run_cli(["quality", str(nodb), "--gate", "--allow-na", "fanout"], capsys)
    assert code == 2
    assert "--allow-na='fanout': no such dimension; the dimensions are groundedness," in err


def test_compat_token_world_keeps_its_reading_of_not_measured(
    nodb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 20 ticks: novel subtype rate (counted in token-world's reading) is OK under 30.
    args = ["quality", str(nodb), "--format", "json", "--compat", "token-world", "--last", "20"]
    code, out, _ = run_cli([*args, "--gate"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["verdict"] == "HEALTHY"
    assert [d["status"] for d in data["dimensions"]].count("UNKNOWN") == 1
    # over 40 ticks its WARN counts there: DEGRADED, and the strict gate fails on it
    code, out, err = run_cli([*args[:-2], "--gate"], capsys)
    assert code == 1 and json.loads(out)["verdict"] == "DEGRADED"
    assert "nodb failed: Novel subtype rate WARN" in err


# --- JUnit, Markdown, the step summary --------------------------------------------------------


def test_junit_file_from_a_fleet_is_valid_and_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "reports" / "quality.xml"
    args = ["quality", "--all", str(SAMPLE_RUNS / "universes"), "--gate", "--junit", str(junit)]
    assert run_cli(args, capsys)[0] == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "toolkit quality"
    cases = suite.findall("testcase")
    assert len(cases) == 3 * 8  # three runs x eight dimensions
    assert {c.get("classname") for c in cases} == {"ashfall", "harbor-town", "willowbrook"}
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(suite.get("failures", "-1")) == len(failures) > 0
    first = failures[0].find("failure")
    assert first is not None and first.text and "thresholds: OK" in first.text
    assert sorted(p.name for p in junit.parent.iterdir()) == ["quality.xml"]  # no temp left


@pytest.mark.parametrize(
    "args",
    [
        ["discussion", str(GAMES / "game-pass.json"), str(GAMES / "game-role-repetition.json")],
        ["outcome", str(LOG)],
        ["experiment", str(EXPERIMENTS / "harbour_council_gate.json")],
        ["persona", *PERSONA_ARGS, "--gate", "none"],
    ],
)
def test_every_scoring_command_writes_junit(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "out.xml"
    run_cli([*args, "--junit", str(junit)], capsys)
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("name") == f"toolkit {args[0]}"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["rubric"] and props["rubric_version"]
    assert int(suite.get("tests", "0")) == len(suite.findall("testcase")) > 1


@pytest.mark.parametrize(
    ("args", "heading"),
    [
        (["quality", str(FAILED)], "### toolkit quality · rubric simulation 1.2.0"),
        (["discussion", str(GAMES / "game-pass.json")], "### toolkit discussion · rubric"),
        (["outcome", str(LOG)], "### toolkit outcome · rubric outcome 2.1.0"),
        (["experiment", str(EXPERIMENTS / "harbour_council_gate.json")], "### toolkit experiment"),
        (["persona", *PERSONA_ARGS], "### toolkit persona · rubric persona"),
    ],
)
def test_markdown_format_for_every_command(
    args: list[str], heading: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run_cli([*args, "--format", "markdown"], capsys)
    assert out.startswith(heading)
    assert "| subject | verdict |" in out
    assert "| dimension | status | value | detail | OK | FAIL |" in out


def test_step_summary_is_appended_when_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run_cli(["quality", str(FAILED), "--gate"], capsys)
    run_cli(["quality", str(HEALTHY)], capsys)
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert text.count("### toolkit quality · rubric simulation 1.2.0") == 2
    assert "· gate strict: 1 of 1 failed" in text
    assert "| ashfall | **FAILED** | **fail** | " in text


# --- the text card: rubric version and thresholds -------------------------------------------


def test_text_card_names_the_rubric_and_every_threshold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_cli(["quality", str(HEALTHY)], capsys)
    lines = out.splitlines()
    assert lines[1] == "rubric simulation 1.2.0"
    start = lines.index("Thresholds (OK | FAIL):")
    assert lines[start + 1].split() == ["Groundedness", ">=", "0.95", "|", "<", "0.85"]
    assert "Refusal cluster" in lines[start + 4] and "<= 2 | >= 5" in lines[start + 4]


def test_rubric_help_names_no_stale_version(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("quality", "outcome", "experiment"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "1.0.0" not in out and "2.1.0" not in out


# --- typos, token-world spellings, empty runs ---------------------------------------------------


def test_misspelt_flag_suggests_the_real_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["quality", str(HEALTHY), "--windw", "10"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --windw 10 (did you mean --window?)" in capsys.readouterr().err


def test_misspelt_command_suggests_the_real_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["qualty", str(HEALTHY)])
    assert "unknown command 'qualty' (did you mean quality?)" in capsys.readouterr().err


def test_bad_gate_mode_suggests_the_close_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["quality", str(HEALTHY), "--gate", "failonly"], capsys)
    assert code == 2 and "(did you mean fail-only?)" in err


def test_last_is_token_worlds_spelling_of_window(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["quality", str(HEALTHY), "--last", "20", "--format", "json"], capsys)
    assert json.loads(out)["window"] == 20


def test_empty_run_under_a_gate_is_insufficient_data_in_table_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    (empty / "tick_summaries" / "ticks").mkdir(parents=True)
    code, out, err = run_cli(["quality", str(empty), "--gate", "fail-only"], capsys)
    assert code == 0
    assert "Verdict: INSUFFICIENT_DATA (no ticks to score)" in out
    assert "nothing loadable" in err
    code, _, err = run_cli(["quality", str(empty), "--gate"], capsys)
    assert code == 1 and "empty failed: verdict not measured: no ticks to score" in err
    assert run_cli(["quality", str(empty)], capsys)[0] == 2  # no gate: still bad input


def test_persona_group_regression_alone_still_fails_the_default_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only mags's baseline: mags is within tolerance everywhere except convergence, a
    group dimension (it lives on the environment's scorecard): exit 1 as before."""
    import shutil

    baselines = tmp_path / "baselines"
    baselines.mkdir()
    shutil.copy(PERSONA / "baselines" / "mags.json", baselines / "mags.json")
    args = [*PERSONA_ARGS[:-1], str(baselines)]
    code, _, err = run_cli(["persona", *args], capsys)
    assert code == 1
    assert "radio-week2/environment failed: convergence REGRESSION: 0.59 against the" in err
    assert "radio-week2/mags failed" not in err


def test_outcome_fleet_gates_each_log_on_its_mean_band(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "logs.xml"
    args = ["outcome", "--all", str(LOG.parent), "--gate", "--junit", str(junit)]
    code, _, err = run_cli(args, capsys)
    assert code == 0 and "failed" not in err  # tally-loop's mean 0.79 is good
    (case,) = ET.parse(junit).getroot().iter("testcase")
    assert (case.get("classname"), case.get("name")) == ("tally-loop", "Mean score")
    _, out, _ = run_cli([*args[:4], "--format", "markdown"], capsys)
    assert "| tally-loop | **good** | pass |" in out
