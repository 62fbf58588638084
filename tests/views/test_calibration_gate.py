"""The calibration gate drawn as a scorecard: one dimension per finding of the rubric's
gate, the verdict and its reason (what ``--junit`` and the step summary are written from)."""

from __future__ import annotations

from conftest import SAMPLE_RUNS

from toolkit.gate import checks_of
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate, gate_checks, gate_failures
from toolkit.views.calibration_gate import gate_scorecard

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"


def test_each_gate_finding_is_one_dimension_with_its_status_and_detail() -> None:
    result = calibrate(load_calibration_scores(SCORES))
    card = gate_scorecard(result, 0.5, "judge on scores.csv")
    findings = gate_checks(result, 0.5)
    rows = card.dimensions.select("dimension", "status", "detail").rows()
    assert rows == [(c.key, "OK" if c.passed else "FAIL", c.detail) for c in findings]
    assert card.rubric == "calibrate"
    assert card.subject == "judge on scores.csv"
    assert card.title == "calibrate judge on scores.csv"
    assert card.meta == {"judge": "judge", "humans": list(result.humans), "min_alpha": 0.5}


def test_the_verdict_fails_exactly_when_the_rubric_gives_a_reason() -> None:
    result = calibrate(load_calibration_scores(SCORES))
    for min_alpha in (0.0, 0.667, 0.9):
        card = gate_scorecard(result, min_alpha, "s")
        failed = gate_failures(result, min_alpha)
        assert card.verdict == ("FAIL" if failed else "PASS")
        assert len([c for c in checks_of(card) if c.status == "FAIL"]) == len(failed)
        if failed:
            assert card.verdict_reason.startswith(f"below min-alpha {min_alpha:g} or the band: ")
        else:
            assert card.verdict_reason == (
                f"the judge sits inside the human band (min-alpha {min_alpha:g})"
            )
