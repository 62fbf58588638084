"""``toolkit compare --estimate A B --ratings-a FILE --ratings-b FILE`` (issue 39): two
arms of judged runs, each judged on every item and corrected by its own people's
ratings; B - A's interval carries both judges' errors. Checked against ppi-python per
arm (the variances added by hand), the planted truth (people's mean over every item of
each arm, from the full ratings), and refused in one line for a family with no judge.

The arms are the sample persona session's two chats (sample_runs/calibration/persona:
every item rated by people, the cassette holds the judge on every item); each arm is
given the ratings of one item in three, so the rest are unrated."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest

from toolkit.cli import main
from toolkit.judge import RecordedJudge
from toolkit.load.item_ratings import load_item_ratings
from toolkit.rubrics.persona_calibration import persona_calibration_frame
from toolkit.rubrics.persona_items import items_of_files

Z = NormalDist().inv_cdf(0.975)


@pytest.fixture(scope="module")
def ppi_py():  # type: ignore[no-untyped-def]
    """The reference implementation (a [dev] dependency): its tests skip without it."""
    return pytest.importorskip("ppi_py")


@pytest.fixture
def arms(sample_runs: Path, tmp_path: Path) -> dict[str, object]:
    """Each chat an arm; per arm a ratings file of one item in three; the truth (people's
    mean over every item of the arm, from the full ratings, an item's score the mean of
    its raters)."""
    session = sample_runs / "calibration" / "persona"
    planted = json.loads((session / "planted.json").read_text(encoding="utf-8"))
    chats = [sample_runs.parent / c for c in planted["chats"]]
    ratings = pl.read_csv(session / "ratings.csv", infer_schema=False)
    out: dict[str, object] = {"session": session, "planted": planted, "chats": chats}
    for arm, chat in zip("ab", chats, strict=True):
        mine = ratings.filter(pl.col("item").str.starts_with(chat.stem + "/"))
        per_item = mine.group_by("item").agg(pl.col("score").cast(pl.Float64).mean())
        out[f"truth_{arm}"] = float(per_item["score"].mean())
        kept = sorted(set(mine["item"].to_list()))[::3]
        mine.filter(pl.col("item").is_in(kept)).write_csv(tmp_path / f"ratings-{arm}.csv")
        out[f"ratings_{arm}"] = tmp_path / f"ratings-{arm}.csv"
    return out


def _args(arms: dict[str, object]) -> list[str]:
    session, planted = arms["session"], arms["planted"]
    assert isinstance(session, Path) and isinstance(planted, dict)
    chats = arms["chats"]
    assert isinstance(chats, list)
    return [
        "compare", "--estimate", str(chats[0]), str(chats[1]),
        "--judge", f"recorded:{session / 'cassette.json'}",
        "--propositions", str(session.parents[2] / planted["propositions"]),
        "--ratings-a", str(arms["ratings_a"]), "--ratings-b", str(arms["ratings_b"]),
        "--format", "json",
    ]  # fmt: skip


def _by_hand(arms: dict[str, object], arm: str, ppi_py) -> tuple[float, float, int, int]:  # type: ignore[no-untyped-def]
    """One arm's PPI++ mean and half-width from ppi-python on its frame's numbers: y the
    mean of each rated item's raters, yhat the judge on the rated items, then on the rest."""
    session, planted = arms["session"], arms["planted"]
    assert isinstance(session, Path) and isinstance(planted, dict)
    chat = arms["chats"][0 if arm == "a" else 1]  # type: ignore[index]
    items = items_of_files([chat], session.parents[2] / planted["propositions"])
    frame = persona_calibration_frame(
        items, load_item_ratings(arms[f"ratings_{arm}"]),  # type: ignore[arg-type]
        RecordedJudge(session / "cassette.json"), unrated=True,
    )  # fmt: skip
    judge = dict(frame.filter(pl.col("rater") == "judge").select("item", "score").rows())
    people: dict[str, list[float]] = {}
    for item, score in frame.filter(pl.col("rater") != "judge").select("item", "score").rows():
        people.setdefault(item, []).append(score)
    rated = sorted(people)
    y = np.array([sum(people[i]) / len(people[i]) for i in rated])
    yhat = np.array([judge[i] for i in rated])
    rest = np.array([judge[i] for i in sorted(set(judge) - set(people))])
    point = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, yhat, rest, lam=None)))
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05, lam=None)
    return point, (float(np.squeeze(high)) - float(np.squeeze(low))) / 2, len(rated), rest.size


def test_the_folder_form_equals_ppi_python_per_arm_with_the_variances_added(
    arms: dict[str, object], ppi_py, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    assert main(_args(arms)) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    mean = [r for r in rows if r["measure"] == "mean"]
    (pa, ha, na, ua), (pb, hb, nb, ub) = _by_hand(arms, "a", ppi_py), _by_hand(arms, "b", ppi_py)
    assert (mean[0]["rated"], mean[0]["unrated"]) == (na, ua) and ua > 0
    assert (mean[1]["rated"], mean[1]["unrated"]) == (nb, ub) and ub > 0
    assert mean[0]["estimate"] == pytest.approx(pa, abs=1e-9)
    assert mean[1]["estimate"] == pytest.approx(pb, abs=1e-9)
    assert mean[0]["lam"] > 0 and mean[1]["lam"] > 0
    diff = mean[2]
    half = math.sqrt(ha**2 + hb**2)
    assert diff["estimate"] == pytest.approx(pb - pa, abs=1e-9)
    assert (diff["low"], diff["high"]) == pytest.approx((pb - pa - half, pb - pa + half), abs=1e-9)
    # the planted truth: people's mean over every item of B minus that of A
    truth = float(arms["truth_b"]) - float(arms["truth_a"])  # type: ignore[arg-type]
    assert diff["low"] <= truth <= diff["high"]


def test_a_family_with_no_judge_is_refused_in_one_line(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(sample_runs / "iteration_logs" / "tally-loop")
    (tmp_path / "r.csv").write_text("item,rater,score\n")
    args = ["compare", "--estimate", log, log, "--ratings-a", str(tmp_path / "r.csv"),
            "--ratings-b", str(tmp_path / "r.csv"), "--judge", "recorded:x.json"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "outcome runs have no judge for people's ratings to correct" in err


def test_one_arms_ratings_alone_or_without_estimate_is_refused_in_one_line(
    arms: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    args = _args(arms)
    cut = args.index("--ratings-b")
    assert main(args[:cut] + args[cut + 2 :]) == 2
    assert "needs both arms' ratings" in capsys.readouterr().err
    assert main([a for a in args if a != "--estimate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "goes with --estimate" in err


def test_the_folder_form_over_discussion_games_uses_the_engagement_scale(
    sample_runs: Path,
    discussion_estimate_args: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = sample_runs / "discussions"
    ratings = pl.read_csv(folder / "engagement_ratings.csv", infer_schema=False)
    # two of each arm's three games rated: the third is judged only
    assert main([*discussion_estimate_args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold"] == 3.0  # the engagement rubric's pass mark, on its 1-5 scale
    arms = [r for r in data["rows"] if r["measure"] == "mean"][:2]
    assert [(r["rated"], r["unrated"]) for r in arms] == [(2, 1), (2, 1)]
    # people only: the mean over the rated games of each game's raters' mean
    rated = ratings.with_columns(pl.col("score").cast(pl.Float64))
    for row, games in zip(arms, (["game-pass", "game-over-budget"], ["base-7-1", "base-7-2"]),
                          strict=True):  # fmt: skip
        per_game = (
            rated.filter(pl.col("game_id").is_in(games))
            .group_by("game_id")
            .agg(pl.col("score").mean())
        )
        assert row["people_mean"] == pytest.approx(float(per_game["score"].mean()), abs=1e-12)
