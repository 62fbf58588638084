"""`toolkit calibrate`: the judge held against human raters (issue 27, first slice).

The sample session (sample_runs/make_calibration.py) plants a judge lenient by +1 on
Lenny and six misreads; planted.json says which, so every expected value here comes from
the generator or from an independent computation (the ``krippendorff`` package, a
hand-computed kappa), never from the code under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.errors import InputError, InputWarning
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import (
    DEFAULT_CALIBRATE_RUBRIC,
    calibrate,
    gate_failures,
    load_calibrate_rubric,
    parse_gate,
    weighted_kappa,
)

SESSION = SAMPLE_RUNS / "calibration"
SCORES = SESSION / "scores.csv"
PLANTED = json.loads((SESSION / "planted.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return load_calibration_scores(SCORES)


@pytest.fixture(scope="module")
def result(frame: pl.DataFrame):  # type: ignore[no-untyped-def]
    return calibrate(frame, judge="judge", seed=0)


def _package_alpha(frame: pl.DataFrame, raters: list[str], level: str = "interval") -> float:
    """Alpha by the krippendorff package on a raters x items matrix built here."""
    items = sorted(set(frame["item"].to_list()))
    data = np.full((len(raters), len(items)), np.nan)
    for item, rater, score in frame.select("item", "rater", "score").iter_rows():
        if rater in raters:
            data[raters.index(rater), items.index(item)] = score
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


# ---------------------------------------------------------------------------
# The statistics
# ---------------------------------------------------------------------------


def test_alpha_among_humans_and_with_the_judge_equal_the_krippendorff_package(
    frame: pl.DataFrame, result
) -> None:  # type: ignore[no-untyped-def]
    humans = PLANTED["humans"]
    assert result.humans == tuple(humans)
    assert result.alpha_humans == pytest.approx(_package_alpha(frame, humans))
    assert result.alpha_with_judge == pytest.approx(_package_alpha(frame, [*humans, "judge"]))


def test_ordinal_alpha_equals_the_krippendorff_package(frame: pl.DataFrame) -> None:
    ordinal = DEFAULT_CALIBRATE_RUBRIC.model_copy(update={"level": "ordinal"})
    result = calibrate(frame, rubric=ordinal)
    humans = PLANTED["humans"]
    assert result.alpha_humans == pytest.approx(_package_alpha(frame, humans, "ordinal"))
    assert result.alpha_with_judge == pytest.approx(
        _package_alpha(frame, [*humans, "judge"], "ordinal")
    )


def test_the_band_is_the_humans_leave_one_out_alphas_and_each_replacement_by_the_judge(
    frame: pl.DataFrame, result
) -> None:  # type: ignore[no-untyped-def]
    humans = PLANTED["humans"]
    without = {h: _package_alpha(frame, [o for o in humans if o != h]) for h in humans}
    replaced = {h: _package_alpha(frame, [*(o for o in humans if o != h), "judge"]) for h in humans}
    assert result.band_low == pytest.approx(min(without.values()))
    assert result.band_high == pytest.approx(max(without.values()))
    for row in result.band.iter_rows(named=True):
        assert row["alpha_without"] == pytest.approx(without[row["left_out"]])
        assert row["alpha_replaced"] == pytest.approx(replaced[row["left_out"]])
        assert row["inside"] is (replaced[row["left_out"]] >= min(without.values()))
    # the planted judge (lenient on Lenny, six misreads) falls below the human band
    assert result.inside_band is False


def test_the_planted_bias_is_recovered_on_lenny_and_about_zero_elsewhere(result) -> None:  # type: ignore[no-untyped-def]
    by_agent = {r["value"]: r for r in result.bias.filter(pl.col("group") == "agent").to_dicts()}
    assert set(by_agent) == {"Ada", "Bram", "Cleo", "Lenny"}
    for agent, row in by_agent.items():
        planted = PLANTED["bias"] if agent == PLANTED["lenient_agent"] else 0
        assert row["bias"] == pytest.approx(planted, abs=0.1), agent
        assert row["low"] <= row["bias"] <= row["high"]
    lenny = by_agent[PLANTED["lenient_agent"]]
    assert lenny["low"] > 0  # the interval excludes "no bias"


def test_the_planted_disagreements_top_the_list(result) -> None:  # type: ignore[no-untyped-def]
    planted = set(PLANTED["misreads"])
    top = result.disagreements.head(len(planted))["item"].to_list()
    precision = len(planted & set(top)) / len(top)
    assert precision >= 0.9
    diffs = result.disagreements["diff"].abs().to_list()
    assert diffs == sorted(diffs, reverse=True)


def test_the_bootstrap_is_seeded(frame: pl.DataFrame, result) -> None:  # type: ignore[no-untyped-def]
    again = calibrate(frame, seed=0)
    other = calibrate(frame, seed=1)
    assert again.bias.equals(result.bias)
    assert not other.bias.equals(result.bias)
    assert other.bias["bias"].to_list() == result.bias["bias"].to_list()  # only intervals move


def test_weighted_kappa_matches_a_hand_computed_example() -> None:
    # a = 0 1 2, b = 0 2 2: observed weighted disagreement 1/3; expected: rows 1/3 each,
    # columns (1/3, 0, 2/3) -> (8/3 + 1 + 4/3) / 3 = 5/3; kappa = 1 - (1/3) / (5/3) = 0.8
    assert weighted_kappa([0, 1, 2], [0, 2, 2]) == pytest.approx(0.8)
    assert weighted_kappa([0, 2], [2, 0]) == pytest.approx(-1.0)  # observed 4, expected 2
    assert weighted_kappa([3, 5, 7], [3, 5, 7]) == pytest.approx(1.0)
    assert weighted_kappa([4, 4], [4, 4]) is None  # nothing could disagree
    assert weighted_kappa([], []) is None


def _session(
    judge: dict[str, float], extra: dict[str, dict[str, float]] | None = None
) -> pl.DataFrame:
    humans = {
        "ana": {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2},
        "ben": {"a": 2, "b": 3, "c": 6, "d": 7, "e": 9, "f": 2},
        "cy": {"a": 1, "b": 4, "c": 5, "d": 6, "e": 8, "f": 3},
    } | (extra or {})
    rows = [
        {"item": i, "rater": r, "score": float(s)}
        for r, scores in (humans | {"judge": judge}).items()
        for i, s in scores.items()
    ]
    return pl.DataFrame(rows)


def test_the_confusion_table_counts_judge_and_human_mean_at_the_threshold() -> None:
    # human means: a 1.33, b 3.33, c 5.33, d 6.67, e 8.33, f 2.33; at 5: c d e pass
    judge = {"a": 6, "b": 3, "c": 4, "d": 7, "e": 8, "f": 2}
    c = calibrate(_session(judge)).confusion
    assert (c["both_pass"], c["judge_only"], c["humans_only"], c["both_fail"]) == (2, 1, 1, 2)
    assert c["agreement"] == pytest.approx(4 / 6)


def test_spearman_is_one_for_a_judge_in_the_humans_order() -> None:
    judge = {"a": 0, "b": 2, "c": 4, "d": 6, "e": 9, "f": 1}  # same order as the means
    assert calibrate(_session(judge)).spearman == pytest.approx(1.0)


def test_gate_passes_a_judge_inside_the_band_and_fails_one_outside() -> None:
    close = {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2}  # ana's own scores
    assert gate_failures(calibrate(_session(close)), 0.667) == []
    wild = {"a": 8, "b": 1, "c": 9, "d": 0, "e": 3, "f": 7}
    reasons = gate_failures(calibrate(_session(wild)), 0.667)
    assert len(reasons) == 3 and all("judge in place of" in r for r in reasons)


def test_gate_fails_when_the_humans_themselves_disagree() -> None:
    noisy = {"ana": {"a": 9, "b": 0, "c": 8, "d": 1, "e": 5, "f": 9}}
    judge = {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2}
    reasons = gate_failures(calibrate(_session(judge, noisy)), 0.667)
    assert any("no baseline" in r for r in reasons)


def test_parse_gate_words() -> None:
    assert parse_gate(["min-alpha"]) == DEFAULT_CALIBRATE_RUBRIC.min_alpha == 0.667
    assert parse_gate(["min-alpha", "0.8"]) == 0.8
    for bad in (["max-alpha"], ["min-alpha", "2"], ["min-alpha", "x"], []):
        with pytest.raises(InputError, match="--gate"):
            parse_gate(bad)


def test_a_changed_rubric_number_needs_a_new_version() -> None:
    assert load_calibrate_rubric({"version": "1.1.0", "threshold": 6}).threshold == 6
    with pytest.raises(Exception, match="version"):
        load_calibrate_rubric({"threshold": 6})


# ---------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------


def test_json_scores_read_as_the_csv(frame: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    rows = [{**r, "score": int(r["score"])} for r in frame.to_dicts()]
    path.write_text(json.dumps({"scores": rows}), encoding="utf-8")
    assert load_calibration_scores(path).equals(frame)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("item,rater\na,ana\n", "scores.csv:1: header='item,rater': a scores CSV needs"),
        (
            "item,rater,score\na,ana,12\n",
            "scores.csv:2: score='12': score must be a number from 0 to 9",
        ),
        ("item,rater,score\na,ana,nan\n", "scores.csv:2: score='nan'"),
        ("item,rater,score\n,ana,3\n", "scores.csv:2: item='': must be a non-empty string"),
        ("item,rater,score\n", "scores.csv: no scores in the file"),
    ],
)
def test_bad_scores_files_are_refused_in_one_line(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_calibration_scores(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_json_score_that_is_no_number_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('[{"item": "a", "rater": "ana", "score": true}]', encoding="utf-8")
    with pytest.raises(InputError, match=r"scores\.0\.score=True"):
        load_calibration_scores(path)


def test_calibrate_refuses_an_unknown_judge_and_a_single_human() -> None:
    frame = _session({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6})
    with pytest.raises(InputError, match=r"--judge-id='gpt'.*the raters are ana, ben, cy, judge"):
        calibrate(frame, judge="gpt")
    with pytest.raises(InputError, match="at least two human raters"):
        calibrate(frame.filter(pl.col("rater").is_in(["ana", "judge"])))


def test_the_generator_reproduces_the_committed_sample(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_calibration.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in ("scores.csv", "planted.json"):
        assert (tmp_path / name).read_bytes() == (SESSION / name).read_bytes(), name


def test_items_of_one_side_only_are_counted_and_left_out(frame: pl.DataFrame, result) -> None:  # type: ignore[no-untyped-def]
    extra = pl.DataFrame(
        {"item": ["only-judge", "only-ana"], "rater": ["judge", "ana"], "score": [9.0, 0.0]},
    ).with_columns(
        pl.lit(None, pl.String).alias("agent"), pl.lit(None, pl.String).alias("proposition")
    )
    more = calibrate(pl.concat([frame, extra], how="diagonal"))  # text columns: null
    assert (more.items, more.unpaired) == (result.items, 2)
    assert more.disagreements["item"].to_list() == result.disagreements["item"].to_list()


def test_a_repeated_item_and_rater_keeps_the_last_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\na,ana,3\na,ana,7\na,ben,4\n", encoding="utf-8")
    with pytest.warns(InputWarning, match="1 repeated"):
        frame = load_calibration_scores(path)
    assert frame.filter(pl.col("rater") == "ana")["score"].to_list() == [7.0]


def test_a_group_that_is_no_scalar_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('[{"item": "a", "rater": "ana", "score": 3, "agent": {"x": 1}}]')
    with pytest.raises(InputError, match=r"scores\.0\.agent=\{'x': 1\}: a group must be"):
        load_calibration_scores(path)


def test_a_csv_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_bytes(b"\xef\xbb\xbfitem,rater,score,agent\na,ana,3,Ada\n")
    assert load_calibration_scores(path).columns == ["item", "rater", "score", "agent"]
