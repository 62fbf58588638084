"""``toolkit rate --order``: the order a session hands its games out in, and each game's
probability of being drawn, recorded in the store when the session is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.load.discussion import load_discussion
from toolkit.ratings.store import RatingStore

#: toolkit rate serves nothing here: what it would serve is recorded (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("rate_serves")


def _judge_file(games: Path, errors: list[float]) -> tuple[Path, list[str]]:
    ids = sorted(load_discussion(games).game_ids)
    path = games.parent / "judge.csv"
    rows = [f"{g},{4 + k},{e}" for k, (g, e) in enumerate(zip(ids, errors, strict=True))]
    path.write_text("item,score,uncertainty\n" + "\n".join(rows) + "\n")
    return path, ids


def test_random_is_the_default_and_is_recorded_with_probability_one(games: Path) -> None:
    assert main(["rate", str(games), "--raters", "ana,ben", "--seed", "3", "--port", "0"]) == 0
    store = RatingStore(games / "ratings.db")
    draws = store.draws()
    assert store.draw_order() == "random"
    assert draws["probability"].to_list() == [1.0] * 3 and draws["drawn"].all()


def test_informative_draws_by_the_judges_error_and_records_each_probability(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Errors 0, 1, 2 with a budget of 2: raw shares 0.2, 1.0, 1.8 (uniform 0.2 plus 0.8
    times error / mean error); scaled to 2 the last exceeds 1 and is capped, the other
    two share the remaining 1 as 0.2 : 1.0, i.e. 1/6 and 5/6."""
    judge, ids = _judge_file(games, [0.0, 1.0, 2.0])
    argv = ["rate", str(games), "--raters", "ana,ben", "--seed", "3", "--port", "0",
            "--order", "informative", "--judge-scores", str(judge), "--budget", "2"]  # fmt: skip
    assert main(argv) == 0
    store = RatingStore(games / "ratings.db")
    draws = store.draws()
    assert store.draw_order() == "informative"
    assert draws["unit_id"].to_list() == ids
    assert draws["probability"].to_list() == pytest.approx([1 / 6, 5 / 6, 1.0], abs=1e-12)
    assert draws["judge_score"].to_list() == [4.0, 5.0, 6.0]
    assert draws["uncertainty"].to_list() == [0.0, 1.0, 2.0]
    session = store.session()
    assert session is not None
    queued = {g for q in session.queues.values() for g in q}
    assert queued == set(draws.filter("drawn")["unit_id"].to_list())
    assert ids[2] in queued  # probability 1: always drawn
    assert "informative order:" in capsys.readouterr().err


def test_informative_without_judge_scores_is_one_line_exit_2(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rate", str(games), "--raters", "ana", "--order", "informative", "--port", "0"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--judge-scores" in err and "Traceback" not in err
    assert not (games / "ratings.db").exists()


def test_a_game_missing_from_the_judge_scores_is_named_exit_2(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge, ids = _judge_file(games, [0.5, 1.0, 2.0])
    judge.write_text("\n".join(judge.read_text().splitlines()[:-1]) + "\n")
    argv = ["rate", str(games), "--raters", "ana", "--order", "informative", "--port", "0",
            "--judge-scores", str(judge)]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(judge) in err and ids[2] in err and len(err.strip().splitlines()) == 1


def test_resuming_in_another_order_is_one_line_exit_2(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--raters", "ana", "--port", "0"]) == 0
    capsys.readouterr()
    assert main(["rate", str(games), "--order", "informative", "--port", "0"]) == 2
    assert "random order" in capsys.readouterr().err


def test_a_persona_session_in_informative_order_queues_only_the_drawn_items(
    tmp_path: Path, sample_runs: Path
) -> None:
    chats = sample_runs / "persona" / "radio-week1.jsonl"
    props = str(sample_runs / "persona" / "propositions")
    first = tmp_path / "all.db"
    base = ["rate", str(chats), "--propositions", props, "--raters", "ana,ben", "--port", "0"]
    assert main([*base, "--store", str(first)]) == 0
    session = RatingStore(first).session()
    assert session is not None
    ids = sorted(session.items)
    judge = tmp_path / "judge.csv"  # one item in ten flagged: error 3, the rest 0.2
    rows = [f"{i},{3.0 if k % 10 == 0 else 0.2}" for k, i in enumerate(ids)]
    judge.write_text("item,uncertainty\n" + "\n".join(rows) + "\n")
    store_path = tmp_path / "informative.db"
    argv = [*base, "--store", str(store_path), "--seed", "4", "--order", "informative",
            "--judge-scores", str(judge), "--budget", "12"]  # fmt: skip
    assert main(argv) == 0
    store = RatingStore(store_path)
    draws = store.draws()
    assert draws["unit_id"].to_list() == ids
    assert sum(draws["probability"]) == pytest.approx(12)
    flagged = draws.filter(draws["uncertainty"] == 3.0)["probability"]
    plain = draws.filter(draws["uncertainty"] == 0.2)["probability"]
    assert flagged.min() > 5 * plain.max()  # the flagged items are drawn far more often
    held = store.session()
    assert held is not None
    assert {i for q in held.queues.values() for i in q} == set(
        draws.filter("drawn")["unit_id"].to_list()
    )


def test_judge_rows_for_units_outside_the_session_take_no_share_of_the_budget(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A judge file covering more units than the session (a calibration's whole pool):
    the budget is spread over the session's three games only, so a budget of 3 queues
    each of them for certain (probability 3/3), and a budget of 4 is over the units."""
    judge, ids = _judge_file(games, [1.0, 1.0, 1.0])
    extra = "".join(f"other-{k},5,1.0\n" for k in range(20))
    judge.write_text(judge.read_text() + extra)
    base = ["rate", str(games), "--raters", "ana,ben", "--seed", "3", "--port", "0",
            "--order", "informative", "--judge-scores", str(judge)]  # fmt: skip
    assert main([*base, "--budget", "4", "--store", str(games / "four.db")]) == 2
    err = capsys.readouterr().err
    assert "--budget" in err and "(3)" in err and "Traceback" not in err
    assert main([*base, "--budget", "3"]) == 0
    draws = RatingStore(games / "ratings.db").draws()
    assert draws["unit_id"].to_list() == ids
    assert draws["probability"].to_list() == [1.0, 1.0, 1.0] and draws["drawn"].all()
