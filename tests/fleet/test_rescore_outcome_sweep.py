"""`toolkit rescore --sweep` over outcome (dot-agents) iteration logs: a band cut-off and a
signal weight swept over a planted log whose values are worked out by hand from the
rubric's rules (2.1.0: value = weighted mean of the present signals' sub-scores), the
table, JSON and chart, and bad specs (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.rescore import sweep_outcome
from toolkit.rubrics.outcome import load_outcome_rubric
from toolkit.rubrics.rescore import SweepResult, parse_outcome_sweep, swept_outcome_rubric

TALLY = SAMPLE_RUNS / "iteration_logs" / "tally-loop"


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """Three iterations with two present signals each, scope 1.0 ("on-target ...") and
    correction_pressure 1 / (1 + retries), both weighted 0.13 under 2.1.0:
    iteration 3 retries 1: (0.13*0.5 + 0.13*1) / 0.26 = 0.75 (good, min 0.70);
    iteration 4 retries 3: (0.13*0.25 + 0.13*1) / 0.26 = 0.625 (fair, min 0.50);
    iteration 5 retries 0: (0.13*1 + 0.13*1) / 0.26 = 1.0 (excellent, min 0.85)."""
    text = (TALLY / "iter-3.yaml").read_text(encoding="utf-8")
    assert "\niteration: 3\n" in text and "\nretries: 1\n" in text
    log = tmp_path / "log"
    log.mkdir()
    for n, retries in ((3, 1), (4, 3), (5, 0)):
        body = text.replace("\niteration: 3\n", f"\niteration: {n}\n")
        (log / f"iter-{n}.yaml").write_text(
            body.replace("\nretries: 1\n", f"\nretries: {retries}\n")
        )
    return log


def _flips(result: SweepResult) -> dict[float, int | None]:
    return {r["value"]: r["flips"] for r in result.table.to_dicts()}


def test_a_band_cut_off_flips_what_the_rule_says(planted: Path) -> None:
    result = sweep_outcome(planted, "bands.good=0.6:0.8:0.05")
    # 0.60: 0.625 reaches good (1 flip); 0.65, 0.70: as 2.1.0; 0.75: 0.75 >= 0.75 stays
    # good (the cut-off is inclusive); 0.80: 0.75 falls to fair (1 flip)
    assert _flips(result) == {0.6: 1, 0.65: 0, 0.7: 0, 0.75: 0, 0.8: 1}
    assert result.base_value == 0.7 and result.verdicts == ("excellent", "good", "fair", "poor")
    at_80 = result.table.filter(result.table["value"] == 0.8).to_dicts()[0]
    assert (at_80["excellent"], at_80["good"], at_80["fair"], at_80["poor"]) == (1, 0, 2, 0)


def test_a_weight_takes_the_others_in_proportion(planted: Path) -> None:
    result = sweep_outcome(planted, "signals.correction_pressure=0.2:0.5:0.3")
    # weight w: scope keeps 0.13 * (1 - w) / 0.87 (the others sum to 1 - w)
    s20, s50 = 0.13 * 0.8 / 0.87, 0.13 * 0.5 / 0.87
    assert (0.2 * 0.5 + s20) / (0.2 + s20) == pytest.approx(0.6871, abs=1e-4)  # 3: fair
    assert (0.2 * 0.25 + s20) / (0.2 + s20) == pytest.approx(0.5306, abs=1e-4)  # 4: fair
    assert (0.5 * 0.5 + s50) / (0.5 + s50) == pytest.approx(0.5650, abs=1e-4)  # 3: fair
    assert (0.5 * 0.25 + s50) / (0.5 + s50) == pytest.approx(0.3475, abs=1e-4)  # 4: poor
    assert _flips(result) == {0.2: 1, 0.5: 2}
    swept = swept_outcome_rubric(load_outcome_rubric(), result.spec, 0.5)
    assert not isinstance(swept, str)
    assert sum(swept.weights().values()) == pytest.approx(1.0)
    assert swept.weights()["scope"] == pytest.approx(s50)


def test_a_value_that_makes_no_rubric_is_listed_and_skipped(planted: Path) -> None:
    result = sweep_outcome(planted, "bands.good=0.8:0.9:0.1")
    rows = {r["value"]: r for r in result.table.to_dicts()}
    assert rows[0.8]["valid"] and rows[0.8]["flips"] == 1
    # good's min 0.9 is above excellent's 0.85: bands must descend
    assert not rows[0.9]["valid"] and "must be below" in rows[0.9]["reason"]
    weightless = sweep_outcome(planted, "weights.scope=0:0:1")
    assert "must be positive" in weightless.table["reason"][0]


def test_the_command_prints_the_table_json_and_chart(
    planted: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = tmp_path / "sweep.html"
    code = main(["rescore", str(planted), "--sweep", "bands.good=0.6:0.8:0.05",
                 "--chart", str(chart)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "bands that change" in " ".join(out.split())
    assert "0.7 *" in out and "status flips" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "band flips" in chart.read_text(encoding="utf-8")
    code = main(["rescore", str(planted), "--sweep", "bands.good=0.6:0.8:0.05",
                 "--format", "json"])  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert doc["family"] == "outcome" and [v["flips"] for v in doc["values"]] == [1, 0, 0, 0, 1]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("bands.great=0.6:0.8:0.05", "no band 'great'"),
        ("signals.speed=0.1:0.2:0.1", "no signal 'speed'"),
        ("landed.weight=0.1:0.2:0.1", "moves bands.BAND or signals.SIGNAL"),
        ("bands.good=0.8:0.6:0.05", "need a <= b"),
        ("bands.good=0.6:0.8", "must be bands.BAND=a:b:step"),
        ("bands.good=x:0.8:0.1", "a must be a number"),
    ],
)
def test_bad_specs_are_one_line(spec: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match=words) as err:
        parse_outcome_sweep(spec, load_outcome_rubric())
    assert err.value.field == "--sweep"
    code = main(["rescore", str(TALLY), "--sweep", spec])
    out, err_text = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err_text.strip().splitlines()) == 1 and words in err_text


@pytest.mark.parametrize(
    "command",
    [
        "toolkit rescore sample_runs/iteration_logs/tally-loop --sweep bands.good=0.6:0.8:0.05",
        "toolkit rescore sample_runs/iteration_logs/tally-loop "
        "--sweep signals.correction_pressure=0.03:0.33:0.1",
        "toolkit rescore sample_runs/discussions --rubric 1.0.0 --rubric 1.1.0 "
        "--ratings sample_runs/discussions/ratings.csv "
        "--judge recorded:sample_runs/discussions/judge/cassette.json",
        "toolkit rescore sample_runs/discussions --rubric 1.0.0 --rubric 1.1.0 "
        "--judge recorded:sample_runs/discussions/judge/cassette.json --dry-run",
    ],
    ids=["band", "weight", "discussion", "discussion-dry-run"],
)
def test_the_worked_examples_in_the_docs_are_current(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = (ROOT / "docs" / "rescore.md").read_text(encoding="utf-8")
    shown = doc.split(f"$ {command}\n", 1)[1].split("\n```", 1)[0].split("\n$ ", 1)[0]
    monkeypatch.chdir(ROOT)
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out.rstrip("\n") == shown
