"""The dimensions of a scorecard: each dimension's value, status, detail, green and red
ranges and measures, from a run's window scores and fan-out; and the rubric's
thresholds as chart lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.simulation._values import (
    DEFAULT_VALUES as DEFAULT_RUBRIC,
)
from toolkit.rubrics.simulation._values import (
    DIMENSIONS,
    SUBTYPE_PROPERTY,
)
from toolkit.scorecard import FAIL, NA, OK, Dimension

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def _fmt(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") if x == x else "nan"


def dimension_ranges(rubric: SimulationRubric) -> dict[str, tuple[str, str]]:
    """Each dimension's green and red ranges as a card shows them (``">= 0.95"``), from
    the rubric's thresholds: the same for every run a rubric scores, so a fleet's scoring
    builds them once (:func:`dimension_rows`' ``ranges``) instead of once a run (about
    40 µs each)."""
    g, c, coh = rubric.groundedness, rubric.character_stability, rubric.action_coherence
    cl, v, d, f = (
        rubric.refusal_cluster,
        rubric.vocabulary_growth,
        rubric.conservation_drift,
        rubric.graph_fanout,
    )
    sub = rubric.novel_subtype_rate
    return {
        "groundedness": (f">= {g.ok_min}", f"< {g.fail_below}"),
        "character_stability": (f">= {c.ok_min}", f"< {c.fail_below}"),
        "action_coherence": (
            f"streak >= {coh.ok_streak_min} and refuse_rate <= {coh.ok_rate_max}",
            f"streak < {coh.fail_streak_below} or refuse_rate >= {coh.fail_rate_min}",
        ),
        "refusal_cluster": (f"<= {cl.ok_max}", f">= {cl.fail_min}"),
        "vocabulary_growth": (
            f"{v.ok_rate_min} <= rate <= {v.ok_rate_max}",
            f"stagnant >= {v.fail_stagnant_min} or rate > {v.fail_rate_above}",
        ),
        "conservation_drift": (f"<= {d.ok_max}", f">= {d.fail_min}"),
        "graph_fanout": (
            f"slope >= {f.ok_slope_min}",
            f"slope < {f.fail_slope_below} at each of the last {f.recent_steps} checkpoints"
            if f.sustained == "slope"
            else f"slope < {f.fail_slope_below} and last {f.recent_steps} steps "
            f"< {f.fail_slope_below}",
        ),
        "novel_subtype_rate": (
            "rate > 0" if sub is None else f"rate > 0 or ticks < {sub.warn_zero_min_ticks}",
            "never",
        ),
    }


#: Each dimension's secondary measures (:attr:`toolkit.scorecard.Scorecard.measures`):
#: measure name -> the window-score column (or ``fan.`` + the fan-out column) it reads.
MEASURES: dict[str, dict[str, str]] = {
    "groundedness": {"grounded": "grounded", "ticks": "n", "observer_ticks": "observer_n"},
    "character_stability": {"breaks": "breaks", "turns": "turns"},
    "action_coherence": {"refuse_rate_10tick": "refuse_rate", "refused": "refused"},
    "refusal_cluster": {"refused": "refused"},
    "vocabulary_growth": {"novel": "novel", "stagnant": "stagnant", "classified": "classified"},
    "conservation_drift": {"rollbacks": "rollbacks", "ticks": "n"},
    "graph_fanout": {
        "fan_out": "fan.fan_out",
        "checkpoints": "fan.n_checkpoints",
        "first_checkpoint_tick": "fan.first_cp_tick",
        "last_checkpoint_tick": "fan.tick",
        "sustained_checkpoints": "fan.sustained_n",
        "sustained_max_slope": "fan.sustained_max",
    },
    "novel_subtype_rate": {"new_values": "new_subtypes", "ticks": "n"},
}


def _measures(
    key: str, row: dict[str, Any] | None, fan: dict[str, Any] | None
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, column in MEASURES[key].items():
        source, col = (fan, column[4:]) if column.startswith("fan.") else (row, column)
        value = None if source is None else source.get(col)
        out[name] = None if value is None else float(value)
    return out


def series_thresholds(rubric: SimulationRubric = DEFAULT_RUBRIC) -> pl.DataFrame:
    """The rubric's numeric edges on each dimension's series value, for threshold lines.

    Each row is one edge of a range on the value :func:`dimension_series` plots: the OK
    edge (``status`` OK) and the FAIL edge (``status`` FAIL). Action coherence plots its
    streak and vocabulary growth its rate, so their edges are the streak's and the rate's;
    the refusal-rate and stagnation halves of those rules have no line on that axis.
    Novel subtype rate has no FAIL edge (it is WARN at 0).

    Returns:
        Columns dimension, status, value, label (e.g. ``"OK >= 0.95"``).
    """
    g, c, coh = rubric.groundedness, rubric.character_stability, rubric.action_coherence
    cl, v, d, f = (
        rubric.refusal_cluster,
        rubric.vocabulary_growth,
        rubric.conservation_drift,
        rubric.graph_fanout,
    )
    edges: list[tuple[str, str, float, str]] = [
        ("groundedness", OK, g.ok_min, ">="),
        ("groundedness", FAIL, g.fail_below, "<"),
        ("character_stability", OK, c.ok_min, ">="),
        ("character_stability", FAIL, c.fail_below, "<"),
        ("action_coherence", OK, coh.ok_streak_min, ">="),
        ("action_coherence", FAIL, coh.fail_streak_below, "<"),
        ("refusal_cluster", OK, cl.ok_max, "<="),
        ("refusal_cluster", FAIL, cl.fail_min, ">="),
        ("vocabulary_growth", OK, v.ok_rate_min, ">="),
        ("vocabulary_growth", OK, v.ok_rate_max, "<="),
        ("vocabulary_growth", FAIL, v.fail_rate_above, ">"),
        ("conservation_drift", OK, d.ok_max, "<="),
        ("conservation_drift", FAIL, d.fail_min, ">="),
        ("graph_fanout", OK, f.ok_slope_min, ">="),
        ("graph_fanout", FAIL, f.fail_slope_below, "<"),
    ]
    if rubric.novel_subtype_rate is not None:
        edges.append(("novel_subtype_rate", OK, 0.0, ">"))
    keys = rubric.dimension_keys()
    return pl.DataFrame(
        [
            (key, status, float(value), f"{status} {op} {_fmt(float(value))}")
            for key, status, value, op in edges
            if key in keys
        ],
        schema={"dimension": pl.String, "status": pl.String, "value": pl.Float64,
                "label": pl.String},
        orient="row",
    )  # fmt: skip


#: Builds one dimension of a card: (key, value, status, detail) -> the Dimension.
_Make = Callable[[str, float | None, str, str], Dimension]


def dimension_rows(
    row: dict[str, Any] | None,
    fan: dict[str, Any] | None,
    rubric: SimulationRubric,
    grounded_source: str,
    ranges: Mapping[str, tuple[str, str]] | None = None,
) -> list[Dimension]:
    """A run's dimensions from its window scores ``row`` and its fan-out ``fan`` (either
    ``None`` when the run has none), in the rubric's order. ``ranges`` is
    :func:`dimension_ranges` of ``rubric`` when the caller already has it."""
    if ranges is None:
        ranges = dimension_ranges(rubric)
    if fan is not None and fan["slope"] is None:
        fan = None

    def dim(key: str, value: float | None, status: str, detail: str) -> Dimension:
        green, red = ranges[key]
        measures = _measures(key, row, fan)
        return Dimension(key, DIMENSIONS[key], value, status, detail, green, red, measures)

    dims: list[Dimension] = []
    if row is None:
        dims = [dim(k, None, NA, "no ticks in window") for k in DIMENSIONS if k != "graph_fanout"]
    else:
        dims.extend(_tick_dimensions(row, rubric, grounded_source, dim))
    dims.append(_fanout_dimension(fan, dim))
    keys = rubric.dimension_keys()
    return sorted((d for d in dims if d.key in keys), key=lambda d: keys.index(d.key))


def _tick_dimensions(
    row: dict[str, Any], rubric: SimulationRubric, grounded_source: str, dim: _Make
) -> list[Dimension]:
    """The dimensions read from a run's window scores ``row`` (all but graph fan-out)."""
    unit = "novel-verbs" if rubric.vocabulary_growth.unit == "verb" else "novel-mechanics"
    dims: list[Dimension] = []
    n = row["n"]
    new = row["new_subtypes"]
    informational = "novel_subtype_rate" in rubric.informational()
    dims.append(
        dim(
            "novel_subtype_rate",
            row["subtype_rate"],
            row["status_novel_subtype_rate"],
            f"{new} new {SUBTYPE_PROPERTY} value{'s' if new != 1 else ''} in {n} ticks"
            + (" (informational)" if informational else ""),
        )
    )
    dims.append(
        dim(
            "groundedness",
            row["groundedness"],
            row["status_groundedness"],
            f"{row['grounded']}/{n} grounded ({grounded_source})",
        )
    )
    if row["turns"]:
        detail = f"({row['breaks']} breaks in {row['turns']} turns)"
    else:
        detail = "no agent turns in window"
    dims.append(
        dim(
            "character_stability",
            row["character_stability"],
            row["status_character_stability"],
            detail,
        )
    )
    dims.append(
        dim(
            "action_coherence",
            float(row["streak"]),
            row["status_action_coherence"],
            f"streak={row['streak']}  refuse_rate={_fmt(row['refuse_rate'])}",
        )
    )
    cl = rubric.refusal_cluster
    cmp = "<" if row["cluster"] < cl.fail_min else ">="
    dims.append(
        dim(
            "refusal_cluster",
            float(row["cluster"]),
            row["status_refusal_cluster"],
            f"max={row['cluster']}  ({cmp} {cl.fail_min})",
        )
    )
    if row["vocab_rate"] is None:
        vdetail = f"no classified {rubric.vocabulary_growth.unit}s in window"
    else:
        vdetail = (
            f"{_fmt(row['vocab_rate'])} {unit}/{rubric.vocabulary_growth.per_ticks}t"
            f"  ({row['novel']} novel, stagnant={row['stagnant']})"
        )
    dims.append(
        dim("vocabulary_growth", row["vocab_rate"], row["status_vocabulary_growth"], vdetail)
    )
    dims.append(
        dim(
            "conservation_drift",
            row["drift"],
            row["status_conservation_drift"],
            f"({row['rollbacks']}/{n} rollbacks)",
        )
    )
    return dims


def _fanout_dimension(fan: dict[str, Any] | None, dim: _Make) -> Dimension:
    """Graph fan-out, from the run's fan-out at its last checkpoint (``None``: fewer
    than two checkpoints)."""
    if fan is None:
        return dim("graph_fanout", None, NA, "insufficient history (< 2 checkpoints)")
    slope = fan["slope"]
    trend = "trending up" if slope > 0 else ("flat" if slope == 0 else "trending down")
    return dim(
        "graph_fanout",
        slope,
        fan["status_graph_fanout"],
        f"slope={slope:.3f}  ({trend}; {fan['n_checkpoints']} checkpoints, "
        f"ticks {fan['first_cp_tick']}-{fan['tick']})",
    )


def grounded_source_of(row: dict[str, Any] | None) -> str:
    if row is None or row["observer_n"] == 0:
        return "proxy: zero-mutation ticks"
    if row["observer_n"] == row["n"]:
        return "observer claims"
    return "observer claims where present, else proxy"
