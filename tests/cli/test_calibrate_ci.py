"""`toolkit calibrate` in CI, as every scoring command: ``--junit FILE``, the GitHub step
summary, one stderr line per reason, exit 1 on a failed gate and 2 on bad input
(issue 27). The same JUnit writer and step-summary Markdown as ``toolkit quality``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
HUMANS = {
    "ana": {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2},
    "ben": {"a": 2, "b": 3, "c": 6, "d": 7, "e": 9, "f": 2},
    "cy": {"a": 1, "b": 4, "c": 5, "d": 6, "e": 8, "f": 3},
}
#: Far from every human: alpha with it in any human's place falls below 0.667.
WILD = {"a": 8, "b": 1, "c": 9, "d": 0, "e": 3, "f": 7}


def _session(path: Path, judge: dict[str, int]) -> Path:
    raters = HUMANS | {"judge": judge}
    rows = [
        {"item": i, "rater": r, "score": float(v)} for r, s in raters.items() for i, v in s.items()
    ]
    pl.DataFrame(rows).write_csv(path)
    return path


def _cases(path: Path) -> dict[str, str | None]:
    """JUnit test case name -> its failure message (None: passed)."""
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    out = {}
    for case in suite.iter("testcase"):
        failure = case.find("failure")
        out[case.get("name", "")] = None if failure is None else failure.get("message")
    return out


def test_a_judge_out_of_the_band_fails_in_junit_and_on_stderr_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = _session(tmp_path / "wild.csv", WILD)
    junit = tmp_path / "junit.xml"
    args = ["calibrate", str(scores), "--gate", "min-alpha", "--junit", str(junit)]
    assert main(args) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    for human, line in zip(sorted(HUMANS), err, strict=True):
        head = f"toolkit calibrate: gate min-alpha 0.667: judge in place of {human}: alpha "
        assert line.startswith(head)
    cases = _cases(junit)
    assert cases == {
        "alpha among the humans": None,
        **{f"judge in place of {h}": f"judge in place of {h}: FAIL" for h in sorted(HUMANS)},
    }
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "3"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    shared = {k: v for k, v in props.items() if not k.startswith("alt_test_")}
    assert shared == {"rubric": "calibrate", "rubric_version": "1.0.0", "gate": "min-alpha 0.667"}
    # the alternative-annotator test beside the band (its numbers: test_calibration_alt.py)
    assert set(props) - set(shared) == {
        "alt_test_winning_rate", "alt_test_verdict", "alt_test_epsilon"
    }  # fmt: skip


def test_a_judge_inside_the_band_passes_every_test_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = _session(tmp_path / "close.csv", HUMANS["ana"])
    junit = tmp_path / "junit.xml"
    assert main(["calibrate", str(scores), "--gate", "min-alpha", "--junit", str(junit)]) == 0
    assert capsys.readouterr().err == ""
    assert set(_cases(junit).values()) == {None} and len(_cases(junit)) == 1 + len(HUMANS)


def test_without_a_gate_the_junit_is_written_and_nothing_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "junit.xml"
    scores = _session(tmp_path / "wild.csv", WILD)
    assert main(["calibrate", str(scores), "--junit", str(junit)]) == 0
    assert set(_cases(junit).values()) == {None}
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0" and "(does not decide the gate)" not in junit.read_text()


def test_the_junit_agrees_with_the_json_gate_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "junit.xml"
    args = ["calibrate", str(SCORES), "--format", "json", "--gate", "min-alpha", "0.7"]
    assert main([*args, "--junit", str(junit)]) == 1
    reasons = json.loads(capsys.readouterr().out)["gate"]["reasons"]
    failed = [name for name, message in _cases(junit).items() if message]
    assert failed == [r.split(":")[0] for r in reasons]


def test_the_step_summary_is_appended_with_the_gate_and_the_disagreements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["calibrate", str(SCORES), "--gate", "min-alpha", "--top", "2"]) == 1
    assert main(["calibrate", str(SCORES), "--top", "2"]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")
    assert text.count("### toolkit calibrate · rubric calibrate 1.0.0") == 2
    assert "· gate min-alpha 0.667: 1 of 1 failed" in text
    assert text.count("### The disagreements, side by side") == 2


def test_an_unwritable_junit_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    junit = tmp_path / "a-file" / "junit.xml"  # a folder that is a file
    assert main(["calibrate", str(SCORES), "--junit", str(junit)]) == 2
    err = capsys.readouterr().err
    assert "a-file: cannot make the folder" in err and err.count("\n") == 1
