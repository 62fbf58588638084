"""The estimate's input keeps the judge's scores on items nobody rated (issue 39): a
persona session of 200 planted items of which people rated 30 gives lam > 0 and an
interval narrower than people-only, equal to ppi-python on that frame; the calibration
frame (the band, agreement, bias) still holds only the rated items; the outcome score
keeps every scored iteration for the estimate; the discussion frame already holds the
games nobody rated."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.errors import InputWarning
from toolkit.judge import CassetteMiss, JudgeRequest, JudgeResult, RecordedJudge, RecordingJudge
from toolkit.load.iterlog import load_iteration_log
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.discussion import engagement_calibration_scores, judge_discussion
from toolkit.rubrics.estimate import estimate
from toolkit.rubrics.outcome import load_outcome_rubric, score_outcome
from toolkit.rubrics.persona_calibration import persona_calibration_frame
from toolkit.rubrics.persona_items import PersonaItem

ITEMS, RATED = 200, 30


@pytest.fixture(scope="module")
def ppi_py():  # type: ignore[no-untyped-def]
    """The reference implementation (a [dev] dependency): its tests skip without it."""
    return pytest.importorskip("ppi_py")


class PlantedJudge:
    """Answers each proposition with its planted integer score (0-9); counts requests."""

    name = "planted"

    def __init__(self, scores: dict[str, int]) -> None:
        self.scores = scores
        self.asked: list[str] = []

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.asked += [r.proposition_id for r in requests]
        return [JudgeResult(self.scores[r.proposition_id], "planted") for r in requests]


def _item(k: int) -> PersonaItem:
    request = JudgeRequest(
        proposition_id=f"p{k:03d}", dimension="adherence", subject="a1",
        claim=f"Ada keeps promise {k}", trajectory=f"Ada acts: step {k} of the chat",
    )  # fmt: skip
    return PersonaItem(
        item_id=f"run1/a1/adherence/p{k:03d}", run="run1", source="chat.jsonl", subject="a1",
        agent="Ada", dimension="adherence", proposition=f"p{k:03d}",
        claim=request.claim, anchor=f"s{k}", request=request,
    )  # fmt: skip


def _sha(item: PersonaItem) -> str:
    """The rated text's SHA-256, as the rating server records it (of the judged text)."""
    return hashlib.sha256(item.text.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def planted() -> tuple[list[PersonaItem], pl.DataFrame, np.ndarray, np.ndarray]:
    """200 items; the judge's score tracks people's (+1 lenient, noise), one person rated
    the first 30. Also y (people's, rated) and every judge score, in item order."""
    rng = np.random.default_rng(39)
    truth = rng.integers(1, 8, ITEMS)
    judge = np.clip(truth + 1 + rng.integers(-1, 2, ITEMS), 0, 9)
    people = np.clip(truth + rng.integers(-1, 2, ITEMS), 0, 9).astype(float)
    items = [_item(k) for k in range(ITEMS)]
    ratings = pl.DataFrame({
        "item": [i.item_id for i in items[:RATED]],
        "rater": ["ana"] * RATED,
        "score": people[:RATED],
        "notes": [""] * RATED,
        "text_sha256": [_sha(i) for i in items[:RATED]],
    })  # fmt: skip
    return items, ratings, people[:RATED], judge.astype(float)


def _judge_of(judge: np.ndarray) -> PlantedJudge:
    return PlantedJudge({f"p{k:03d}": int(v) for k, v in enumerate(judge)})


def test_the_persona_estimate_uses_the_unrated_items_and_equals_ppi_python(planted, ppi_py) -> None:  # type: ignore[no-untyped-def]
    items, ratings, y, judge = planted
    frame = persona_calibration_frame(items, ratings, _judge_of(judge), unrated=True)
    row = estimate(frame).frame.filter(pl.col("measure") == "mean").row(0, named=True)
    assert (row["rated"], row["unrated"]) == (RATED, ITEMS - RATED)
    ref = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, judge[:RATED], judge[RATED:])))
    low, high = ppi_py.ppi_mean_ci(y, judge[:RATED], judge[RATED:], alpha=0.05, lam=None)
    assert row["estimate"] == pytest.approx(ref, abs=1e-9)
    assert row["low"] == pytest.approx(float(np.squeeze(low)), abs=1e-9)
    assert row["high"] == pytest.approx(float(np.squeeze(high)), abs=1e-9)
    assert row["lam"] > 0
    people_half = 1.959963984540054 * y.std() / np.sqrt(RATED)  # variance over n
    assert row["high"] - row["low"] < 2 * people_half
    assert row["people_mean"] == pytest.approx(y.mean(), abs=1e-12)


def test_the_calibration_frame_still_holds_only_the_rated_items(planted) -> None:  # type: ignore[no-untyped-def]
    items, ratings, _, judge = planted
    asked = _judge_of(judge)
    rated_only = persona_calibration_frame(items, ratings, asked)
    assert len(asked.asked) == RATED  # the unrated items are not even asked
    assert set(rated_only["item"]) == set(ratings["item"])
    every = persona_calibration_frame(items, ratings, _judge_of(judge), unrated=True)
    assert every.filter(pl.col("rater") == "judge").height == ITEMS
    # the rated items' rows are the same in both frames: only judge rows are added
    assert every.filter(pl.col("item").is_in(ratings["item"].implode())).equals(rated_only)


def test_a_cassette_of_the_rated_items_only_leaves_the_rest_out_and_says_so(
    planted, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    items, ratings, _, judge = planted
    cassette = tmp_path / "cassette.json"
    recorder = RecordingJudge(_judge_of(judge), cassette)
    persona_calibration_frame(items, ratings, recorder)  # records the 30 rated items
    recorder.save()
    # the first 10 unrated items recorded too: those enter, the other 160 are left out
    extra = [_item(k) for k in range(RATED, RATED + 10)]
    RecordingJudge(_judge_of(judge), cassette).judge([i.request for i in extra])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = persona_calibration_frame(items, ratings, RecordedJudge(cassette), unrated=True)
    said = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(said) == 1
    assert "no recording for 160 of 170 unrated item(s)" in said[0]
    assert frame.filter(pl.col("rater") == "judge").height == RATED + 10


def test_outcome_estimate_keeps_the_score_of_every_unlabelled_iteration(
    sample_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = sample_runs / "iteration_logs" / "tally-loop"
    loaded = load_iteration_log(log)
    scored = score_outcome(loaded, collect_outcome_evidence(loaded), load_outcome_rubric(None))
    values = dict(scored.scores.select("iteration", "value").rows())
    labelled = {2, 4, 5, 6}  # the iter-N.labels.yaml files of the sample log
    unlabelled = [i for i, v in values.items() if i not in labelled and v is not None]
    assert unlabelled  # the sample has scored iterations nobody labelled
    assert main(["calibrate", "--outcome", str(log), "--estimate", "--format", "json"]) == 0
    overall = json.loads(capsys.readouterr().out)["rows"][0]
    assert (overall["rated"], overall["unrated"]) == (len(labelled), len(unlabelled))
    every = [v for v in values.values() if v is not None]
    assert overall["judge_mean"] == pytest.approx(sum(every) / len(every), abs=1e-9)
    # the calibration itself still counts only the labelled iterations
    assert main(["calibrate", "--outcome", str(log), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == len(labelled)


def test_the_discussion_frame_keeps_the_games_nobody_rated(sample_runs: Path) -> None:
    folder = sample_runs / "discussions"
    games = tk.load_discussions([folder, folder / "baseline"])
    judged = judge_discussion(
        games, RecordedJudge(folder / "judge" / "cassette.json"), metrics=["engagement"]
    )
    ratings = pl.read_csv(folder / "engagement_ratings.csv", infer_schema=False)
    kept = sorted(set(ratings["game_id"].to_list()))[:2]  # people rated two games only
    frame = engagement_calibration_scores(
        judged, games, ratings.filter(pl.col("game_id").is_in(kept))
    )
    row = estimate(frame, threshold=3.0).frame.row(0, named=True)
    assert (row["rated"], row["unrated"]) == (2, len(games.game_ids) - 2)


def test_calibrate_persona_estimate_cli_uses_the_sample_sessions_unrated_items(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = sample_runs / "calibration" / "persona"
    planted = json.loads((session / "planted.json").read_text(encoding="utf-8"))
    ratings = pl.read_csv(session / "ratings.csv", infer_schema=False)
    every = sorted(set(ratings["item"].to_list()))  # the sample's cassette holds them all
    kept = every[::4]  # people rated one item in four
    ratings.filter(pl.col("item").is_in(kept)).write_csv(tmp_path / "ratings.csv")
    args = [
        "calibrate", "--persona", *(str(sample_runs.parent / c) for c in planted["chats"]),
        "--propositions", str(sample_runs.parent / planted["propositions"]),
        "--ratings", str(tmp_path / "ratings.csv"),
        "--judge", f"recorded:{session / 'cassette.json'}",
    ]  # fmt: skip
    assert main([*args, "--estimate", "--format", "json"]) == 0
    overall = json.loads(capsys.readouterr().out)["rows"][0]
    assert (overall["rated"], overall["unrated"]) == (len(kept), len(every) - len(kept))
    assert overall["lam"] > 0
    assert overall["high"] - overall["low"] < overall["people_high"] - overall["people_low"]
    assert main([*args, "--format", "json"]) == 0  # the band: the rated items only
    assert json.loads(capsys.readouterr().out)["items"] == len(kept)


def test_a_cassette_missing_a_rated_item_is_still_refused_with_unrated(
    planted, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    items, ratings, _, judge = planted
    cassette = tmp_path / "cassette.json"
    # every item recorded but the first rated one
    RecordingJudge(_judge_of(judge), cassette).judge([i.request for i in items[1:]])
    with pytest.raises(CassetteMiss):
        persona_calibration_frame(items, ratings, RecordedJudge(cassette), unrated=True)
