"""The organiser's "interval narrowing" section: the estimate of the people's mean and
its 95 % interval after the first k ratings, for k growing to the ratings so far.

With the judge's scores recorded in the session (``toolkit rate --judge-scores``) each
point is the PPI++ estimate (:func:`toolkit.rubrics.estimate.estimate`), weighed by each
unit's probability of being rated at that point (the draw's probability times the share
of the drawn units rated: :func:`toolkit.ratings.store.draws.effective_probabilities`);
without them, the people-only mean of the units rated. The ratings are replayed in the
order first submitted, each with its latest score.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from toolkit.errors import InputError
from toolkit.rating_server.server import RatingServer
from toolkit.ratings.store.draws import effective_probabilities
from toolkit.rubrics.estimate import estimate

#: At most this many points on the chart (and rows in the table).
POINTS = 12
#: The judge's rater id in the frames the points are estimated from.
JUDGE_ID = "judge (recorded)"
#: The chart's size in pixels.
WIDTH, HEIGHT, PAD = 560, 180, 36


def narrowing_of(server: RatingServer) -> dict[str, Any] | None:
    """The section's rows and chart, or None before two units are rated."""
    session = server.session
    units = set(session.game_ids)
    pairs = [
        (r, u, s)
        for r, u, s in server.store.rated_in_order(server.persona)
        if r in session.raters and u in units
    ]
    draws = server.store.draws().filter(pl.col("unit_id").is_in(list(units)))
    judge = dict(zip(draws["unit_id"], draws["judge_score"], strict=True))
    with_judge = draws.height == len(units) and all(v is not None for v in judge.values())
    probability = dict(zip(draws["unit_id"], draws["probability"], strict=True))
    drawn = draws.filter(pl.col("drawn"))["unit_id"].to_list() if draws.height else list(units)
    step = max(1, math.ceil(len(pairs) / POINTS))
    rows = []
    for k in [*range(step, len(pairs), step), len(pairs)]:
        point = _point(pairs[:k], judge if with_judge else None, probability, drawn)
        if point is not None:
            rows.append({"ratings": k, **point})
    if not rows:
        return None
    return {
        "rows": rows,
        "with_judge": with_judge,
        "order": server.store.draw_order(),
        "chart": _chart(rows),
        "size": {"width": WIDTH, "height": HEIGHT},
    }


def _point(
    pairs: list[tuple[str, str, float]],
    judge: dict[str, float] | None,
    probability: dict[str, float],
    drawn: list[str],
) -> dict[str, Any] | None:
    """The estimate and interval after ``pairs`` (None when it cannot be made yet)."""
    rated = sorted({u for _, u, _ in pairs})
    if len(rated) < 2:
        return None
    if judge is None:
        means: dict[str, list[float]] = {}
        for _, u, s in pairs:
            means.setdefault(u, []).append(s)
        y = np.array([sum(v) / len(v) for v in means.values()])
        half = 1.959963984540054 * float(y.std()) / math.sqrt(y.size)
        mean = float(y.mean())
        return _row(mean, mean - half, mean + half, len(rated))
    frame = pl.DataFrame(
        {
            "item": [*judge, *(u for _, u, _ in pairs)],
            "rater": [JUDGE_ID] * len(judge) + [r for r, _, _ in pairs],
            "score": [float(v) for v in judge.values()] + [s for _, _, s in pairs],
        }
    )
    eff = effective_probabilities(probability, drawn, rated) if probability else None
    try:
        row = estimate(frame, judge=JUDGE_ID, probabilities=eff).frame.row(0, named=True)
    except InputError:
        return None
    if row["low"] is None:
        return None
    return _row(row["estimate"], row["low"], row["high"], len(rated))


def _row(mean: float, low: float, high: float, rated: int) -> dict[str, Any]:
    return {
        "estimate": f"{mean:.3f}", "low": f"{low:.3f}", "high": f"{high:.3f}",
        "width": f"{high - low:.3f}", "rated_units": rated,
        "_values": (mean, low, high),
    }  # fmt: skip


def _chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """SVG coordinates: the estimate's line and the band between low and high, over the
    ratings so far (x) on the estimate's scale (y)."""
    xs = [r["ratings"] for r in rows]
    lows = [r["_values"][1] for r in rows]
    highs = [r["_values"][2] for r in rows]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(lows), max(highs)
    y_span = (y1 - y0) or 1.0
    x_span = (x1 - x0) or 1

    def x(v: float) -> float:
        return round(float(PAD + (v - x0) / x_span * (WIDTH - 2 * PAD)), 1)

    def y(v: float) -> float:
        return round(float(HEIGHT - PAD / 2 - (v - y0) / y_span * (HEIGHT - PAD)), 1)

    top = [f"{x(a)},{y(b)}" for a, b in zip(xs, highs, strict=True)]
    bottom = [f"{x(a)},{y(b)}" for a, b in zip(xs, lows, strict=True)]
    line = [f"{x(a)},{y(r['_values'][0])}" for a, r in zip(xs, rows, strict=True)]
    return {
        "band": " ".join(top + bottom[::-1]),
        "line": " ".join(line),
        "x_first": x0, "x_last": x1, "y_low": f"{y0:.2f}", "y_high": f"{y1:.2f}",
    }  # fmt: skip
