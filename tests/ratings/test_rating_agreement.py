"""Rater agreement: per transcript, pairwise, Krippendorff's alpha against hand-worked and
textbook values, and the list of transcripts to discuss."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from toolkit.ratings.agreement import (
    disagreements,
    krippendorff_alpha,
    pairwise_agreement,
    rating_agreement,
    transcript_agreement,
)
from toolkit.ratings.store import RatingStore


def _frame(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["game_id", "rater", "score"], orient="row")


def _from_matrix(matrix: list[list[int | None]]) -> pl.DataFrame:
    """Raters x units (None = not rated) -> (game_id, rater, score)."""
    rows = [
        (f"u{u + 1:02d}", f"r{r + 1}", float(v))
        for r, values in enumerate(matrix)
        for u, v in enumerate(values)
        if v is not None
    ]
    return _frame(rows)


# Two raters, three units: (1, 2), (3, 3), (5, 4). Worked by hand (Krippendorff 2011):
# n = 6 pairable values; each unit has m_u = 2, so o_ck counts each ordered pair once.
#
# Interval, delta = (c - k)^2:
#   D_o = (1/n) * sum_u sum_{ordered pairs} delta = (2*1 + 0 + 2*1) / 6 = 2/3
#   D_e = 1/(n(n-1)) * sum over ordered pairs of all 6 values of delta
#       values 1,2,3,3,4,5: unordered pair sum of squared differences = 60 -> ordered 120
#       D_e = 120 / 30 = 4
#   alpha = 1 - (2/3)/4 = 5/6
#
# Ordinal, delta_ck = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 with n_1..n_5 = 1, 1, 2, 1, 1:
#   delta(1,2)=1, (1,3)=6.25, (1,4)=16, (1,5)=25, (2,3)=2.25, (2,4)=9, (2,5)=16,
#   (3,4)=2.25, (3,5)=6.25, (4,5)=1
#   D_o = (2*delta(1,2) + 2*delta(4,5)) / 6 = 4/6
#   sum_{c<k} n_c n_k delta = 1 + 12.5 + 16 + 25 + 4.5 + 9 + 16 + 4.5 + 12.5 + 1 = 102
#   D_e = 2 * 102 / 30 = 6.8
#   alpha = 1 - (4/6)/6.8 = 46/51
SMALL = [[1, 3, 5], [2, 3, 4]]

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example of
# 4 observers x 12 units with missing values; the paper gives alpha_ordinal = 0.815 and
# alpha_interval = 0.849 (and nominal 0.743).
TEXTBOOK: list[list[int | None]] = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_alpha_interval_matches_the_hand_worked_example() -> None:
    assert krippendorff_alpha(_from_matrix(SMALL), "interval") == pytest.approx(5 / 6)


def test_alpha_ordinal_matches_the_hand_worked_example() -> None:
    assert krippendorff_alpha(_from_matrix(SMALL), "ordinal") == pytest.approx(46 / 51)


def test_alpha_matches_krippendorffs_textbook_example() -> None:
    data = _from_matrix(TEXTBOOK)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(data, "interval") == pytest.approx(0.849, abs=5e-4)


def test_perfect_agreement_gives_alpha_1_and_a_lone_rating_does_not_count() -> None:
    data = _from_matrix([[1, 3, 5, 2], [1, 3, 5, None]])
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(1.0)
    assert krippendorff_alpha(data, "interval") == pytest.approx(1.0)


def test_alpha_is_undefined_without_pairable_or_varied_ratings() -> None:
    assert krippendorff_alpha(_from_matrix([[1, 2, 3]]), "interval") is None  # one rater
    assert krippendorff_alpha(_from_matrix([[4, 4], [4, 4]]), "interval") is None  # no variation


def test_systematic_disagreement_gives_negative_alpha() -> None:
    # Two raters who always say opposite things: D_o > D_e.
    data = _from_matrix([[1, 5, 1, 5], [5, 1, 5, 1]])
    alpha = krippendorff_alpha(data, "interval")
    assert alpha is not None
    assert alpha < 0


def test_per_transcript_n_mean_spread_and_std() -> None:
    data = _frame([("g1", "ana", 2), ("g1", "ben", 4), ("g1", "cat", 3), ("g2", "ana", 5)])
    out = transcript_agreement(data)
    assert out.select("transcript_id", "n", "mean", "min", "max", "spread").rows() == [
        ("g1", 3, 3.0, 2, 4, 2),
        ("g2", 1, 5.0, 5, 5, 0),
    ]
    assert out["std"][0] == pytest.approx(1.0)  # sqrt(((-1)^2 + 1^2 + 0) / 2)
    assert out["std"][1] is None


def test_pairwise_agreement_over_shared_transcripts() -> None:
    # ana vs ben share g1 (2 vs 4), g2 (3 vs 3), g3 (5 vs 4): exact 1/3, within one 2/3,
    # mean |diff| = (2 + 0 + 1) / 3 = 1. cat shares only g1 with both.
    data = _frame(
        [
            ("g1", "ana", 2), ("g1", "ben", 4), ("g1", "cat", 2),
            ("g2", "ana", 3), ("g2", "ben", 3),
            ("g3", "ana", 5), ("g3", "ben", 4),
        ]
    )  # fmt: skip
    out = pairwise_agreement(data)
    assert out.rows() == [
        ("ana", "ben", 3, pytest.approx(1 / 3), pytest.approx(2 / 3), pytest.approx(1.0)),
        ("ana", "cat", 1, 1.0, 1.0, 0.0),
        ("ben", "cat", 1, 0.0, 0.0, 2.0),
    ]


def test_high_disagreement_transcripts_are_listed_widest_first() -> None:
    data = _frame(
        [
            ("g1", "ana", 1), ("g1", "ben", 4),
            ("g2", "ana", 3), ("g2", "ben", 4),
            ("g3", "ana", 2), ("g3", "ben", 4), ("g3", "cat", 3),
        ]
    )  # fmt: skip
    out = disagreements(data)
    assert out["transcript_id"].to_list() == ["g1", "g3"]
    assert out["scores"].to_list() == ["ana=1, ben=4", "ana=2, ben=4, cat=3"]
    assert disagreements(data, min_spread=4).height == 0


def test_the_report_reads_the_latest_ratings_of_a_store(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    for rater, values in zip(("r1", "r2"), SMALL, strict=True):
        for unit, score in enumerate(values):
            store.save_rating(rater, f"u{unit + 1:02d}", 1)  # replaced just below
            store.save_rating(rater, f"u{unit + 1:02d}", score)
    report = rating_agreement(store.latest())
    assert report.alpha_interval == pytest.approx(5 / 6)
    assert report.alpha_ordinal == pytest.approx(46 / 51)
    assert report.raters == 2
    assert report.per_transcript["mean"].to_list() == [1.5, 3.0, 4.5]
    text = report.summary()
    assert "ordinal 0.902, interval 0.833" in text
    assert "no transcript with a spread of 2 or more" in text
    assert not math.isnan(report.pairwise["mean_abs_diff"][0])


def test_half_point_file_ratings_keep_their_value_and_the_rubric_reads_this_mean() -> None:
    # Ratings files allow any number from 1 to 5; nothing is rounded.
    data = _frame([("g1", "ana", 3.5), ("g1", "ben", 2.0), ("g2", "ana", 4.0)])
    out = transcript_agreement(data)
    assert out.select("transcript_id", "n", "mean", "spread").rows() == [
        ("g1", 2, 2.75, 1.5),
        ("g2", 1, 4.0, 0.0),
    ]
    assert disagreements(data, min_spread=1)["scores"].to_list() == ["ana=3.5, ben=2"]
