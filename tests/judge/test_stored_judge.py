"""StoredJudge: the-office's stored evaluation scores answered as a judge (plain frames,
no database). Expected answers are worked out by hand from the-office's storing rule:
final = mean raw, then 9 - x if inverted, then x 0.8 below 9 in hard mode."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.judge import JudgeRequest, StoredJudge


def _frame(rows: list[tuple[str, str, int, str, str, float | None]]) -> pl.DataFrame:
    """(evaluation_run_id, agent_id, day, dimension, proposition_id, score) rows."""
    return pl.DataFrame(
        [
            {
                "evaluation_run_id": run,
                "agent_id": agent,
                "created_at": datetime(2026, 11, day, tzinfo=UTC),
                "dimension": dim,
                "proposition_id": prop,
                "score": score,
                "reasoning": f"{run}/{prop}",
            }
            for run, agent, day, dim, prop, score in rows
        ]
    )


def _ask(subject: str, prop: str, dim: str = "adherence", kind: str = "score") -> JudgeRequest:
    return JudgeRequest(prop, dim, subject, "claim", "trajectory", kind=kind)  # type: ignore[arg-type]


def test_latest_run_per_agent_and_dimension() -> None:
    judge = StoredJudge(
        _frame([
            ("a-old", "mags", 1, "adherence", "p", 3.0),
            ("a-new", "mags", 8, "adherence", "p", 7.0),
            ("f-old", "mags", 2, "fluency", "q", 5.0),  # fluency's only run: still used
        ]),
        "db",
    )  # fmt: skip
    answers = judge.judge([_ask("mags", "p"), _ask("mags", "q", "fluency")])
    assert [a.value for a in answers] == [7, 5]
    assert answers[0].reasoning == "a-new/p"
    assert set(judge.runs) == {"a-new", "f-old"}


def test_inversion_and_hard_mode_are_undone() -> None:
    settings = {"inv": (True, False), "hard": (False, True), "both": (True, True)}
    judge = StoredJudge(
        _frame([
            ("r", "otis", 1, "adherence", "inv", 7.0),  # raw 2: 9 - 2 = 7
            ("r", "otis", 1, "adherence", "hard", 4.0),  # raw 5: 5 x 0.8 = 4
            ("r", "otis", 1, "adherence", "both", 9.0),  # raw 0: 9 - 0 = 9, not penalised
        ]),
        "db",
        settings,
    )  # fmt: skip
    answers = judge.judge([_ask("otis", p) for p in ("inv", "hard", "both")])
    assert [a.value for a in answers] == [2, 5, 0]
    assert judge.rounded == 0


def test_a_mean_is_rounded_and_said() -> None:
    judge = StoredJudge(_frame([("r", "lenny", 1, "adherence", "p", 6.4)]), "db")
    (answer,) = judge.judge([_ask("lenny", "p")])
    assert answer.value == 6
    assert answer.reasoning.startswith("(stored 6.4, rounded to 6)")
    assert judge.rounded == 1


def test_environment_is_the_median_of_the_agents() -> None:
    judge = StoredJudge(
        _frame([
            ("r1", "a", 1, "convergence", "echo", 2.0),
            ("r2", "b", 1, "convergence", "echo", 4.0),
            ("r3", "c", 1, "convergence", "echo", 8.0),
        ]),
        "db",
    )  # fmt: skip
    (answer,) = judge.judge([_ask("environment", "echo", "convergence")])
    assert answer.value == 4
    assert "median of 3" in answer.reasoning


def test_a_count_is_never_inverted() -> None:
    judge = StoredJudge(
        _frame([("r", "a", 1, "ideas_quantity", "ideas", 12.0)]), "db", {"ideas": (True, True)}
    )
    (answer,) = judge.judge([_ask("environment", "ideas", "ideas_quantity", kind="count")])
    assert answer.value == 12


def test_no_stored_score_is_an_absent_answer() -> None:
    judge = StoredJudge(_frame([("r", "a", 1, "adherence", "p", 9.0)]), "db")
    (answer,) = judge.judge([_ask("b", "p")])
    assert answer.value is None
    assert answer.error is not None and "'p'" in answer.error and "'b'" in answer.error


def test_missing_columns_are_named() -> None:
    with pytest.raises(InputError, match="reasoning"):
        StoredJudge(_frame([("r", "a", 1, "adherence", "p", 9.0)]).drop("reasoning"), "db")
