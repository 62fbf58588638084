"""Krippendorff's alpha in closed form equals the ``krippendorff`` package (the reference
implementation) on random sessions with ties, missing ratings and both levels, and on
the textbook example (Krippendorff 2011, "Computing Krippendorff's alpha-reliability",
p. 8: ordinal alpha 0.815)."""

from __future__ import annotations

import krippendorff
import numpy as np
import polars as pl
import pytest

from toolkit.ratings.agreement import krippendorff_alpha


def _frame(data: np.ndarray) -> pl.DataFrame:
    """Raters x units (NaN: not rated) as one row per rating."""
    rows = [
        {"transcript_id": f"u{u:04d}", "rater": f"r{r}", "score": float(data[r, u])}
        for r in range(data.shape[0])
        for u in range(data.shape[1])
        if not np.isnan(data[r, u])
    ]
    return pl.DataFrame(rows)


def test_the_textbook_example() -> None:
    nan = np.nan
    data = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    )
    assert krippendorff_alpha(_frame(data), "ordinal") == pytest.approx(0.815, abs=5e-4)


@pytest.mark.parametrize("level", ["interval", "ordinal"])
@pytest.mark.parametrize("seed", range(12))
def test_equals_the_package_on_random_sessions(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    raters, units = int(rng.integers(2, 6)), int(rng.integers(3, 60))
    true = rng.integers(1, 6, units)
    data = np.clip(true + rng.integers(-1, 2, (raters, units)), 1, 5).astype(float)
    if seed % 3 == 1:  # half-point scores: more values than the 1-5 scale
        data = data + rng.choice([0.0, 0.5], size=data.shape)
    data[rng.random(data.shape) < 0.25] = np.nan
    frame = _frame(data)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if pairable.sum() == 0 or np.unique(data[:, pairable][~np.isnan(data[:, pairable])]).size < 2:
        assert krippendorff_alpha(frame, level) is None  # type: ignore[arg-type]
        return
    domain = sorted(set(range(1, 6)) | set(data[~np.isnan(data)].tolist()))
    expected = krippendorff.alpha(
        reliability_data=data[:, pairable],
        level_of_measurement=level,
        value_domain=domain if level == "ordinal" else None,
    )
    assert krippendorff_alpha(frame, level) == pytest.approx(expected, rel=1e-9, abs=1e-12)  # type: ignore[arg-type]
