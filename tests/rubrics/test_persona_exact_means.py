"""Persona dimension means are exact, and statuses are decided at the precision printed.

In floating point, weights 0.1 and 0.2 with every answer 7 give a weighted mean of
(7*0.1 + 7*0.2) / (0.1 + 0.2) = 6.999999999999999: printed "7.000", yet WARN under the
7.0 line (issue 37). Weights 0.1 and 0.7 with every answer 9 give 9.000000000000002,
past the top of the 0-9 scale. A mean of equal answers is that answer.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from test_persona_rubric import TWO_SPEAKERS, DictJudge, dim_row, make_props, make_run, prop_file

import toolkit as tk
from toolkit.rubrics.persona.scorecards import dimension_status
from toolkit.rubrics.persona.scores import exact_weighted_mean
from toolkit.rubrics.persona.spec import PersonaRubric
from toolkit.scorecard import format_value


def test_the_float_drift_this_guards_against() -> None:  # by hand, no toolkit code
    assert (7 * 0.1 + 7 * 0.2) / (0.1 + 0.2) == 6.999999999999999
    assert (9 * 0.1 + 9 * 0.7) / (0.1 + 0.7) == 9.000000000000002


@pytest.mark.parametrize(
    ("scores", "weights", "expected"),
    [
        ([7, 7], [0.1, 0.2], 7.0),
        ([7, 7, 7], [0.1, 0.2, 0.3], 7.0),
        ([9, 9], [0.1, 0.7], 9.0),
        ([0, 9], [1.0, 1.0], 4.5),
        ([3, 8], [0.25, 0.75], 6.75),  # 0.75 + 6 over 1
        ([5], [0.0], None),
    ],
)
def test_exact_weighted_mean(
    scores: list[float], weights: list[float], expected: float | None
) -> None:
    assert exact_weighted_mean(scores, weights) == expected


def test_an_irregular_mean_is_the_nearest_float_to_the_exact_fraction() -> None:
    scores, weights = [1, 2, 9], [0.1, 0.3, 0.35]
    exact = sum(Fraction(s) * Fraction(w) for s, w in zip(scores, weights, strict=True)) / sum(
        Fraction(w) for w in weights
    )
    assert exact_weighted_mean(scores, weights) == float(exact)


@pytest.mark.parametrize(("weights", "answer"), [((0.1, 0.2), 7), ((0.1, 0.7), 9)])
def test_every_answer_equal_scores_that_answer_and_is_ok(
    tmp_path: Path, weights: tuple[float, float], answer: int
) -> None:
    props = make_props(
        tmp_path,
        {"adherence/_default.yaml": prop_file("adherence", [("a", weights[0], False),
                                                            ("b", weights[1], False)])},
    )  # fmt: skip
    result = tk.score_persona(make_run(tmp_path, TWO_SPEAKERS), props,
                              DictJudge({"a": answer, "b": answer}))  # fmt: skip
    for agent in ("rosa", "tomas"):
        assert dim_row(result, agent, "adherence")["score"] == answer
        card = result.scorecards[agent]
        assert card.status_of("adherence") == "OK"
        assert card.verdict == "HEALTHY"


def test_a_status_is_decided_on_the_value_as_printed() -> None:
    rubric = PersonaRubric()
    assert format_value(6.9999) == "7.000"
    assert dimension_status(6.9999, False, rubric) == "OK"  # shown 7.000: at the 7.0 line
    assert format_value(6.9994) == "6.999"
    assert dimension_status(6.9994, False, rubric) == "WARN"
    assert dimension_status(4.9996, False, rubric) == "WARN"  # shown 5.000: not below 5.0
    assert dimension_status(4.9994, False, rubric) == "FAIL"
