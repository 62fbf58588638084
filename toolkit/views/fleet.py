"""Many scorecards at once: the fleet table, worst first, and fleet charts."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.io.edge import visible
from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard
from toolkit.views.charts import status_scale
from toolkit.views.html import VERDICT_COLOURS
from toolkit.views.palette import STATUS_ORDER
from toolkit.views.text import paint

if TYPE_CHECKING:
    import altair as alt

#: Verdicts from worst to best (sort order of the fleet table).
VERDICT_ORDER = ["FAILED", "DEGRADED", "INSUFFICIENT_DATA", "HEALTHY"]

_SHORT = {OK: "ok", WARN: "WARN", FAIL: "FAIL", NA: "n/a"}


#: How :func:`fleet_frame` can order runs (``verdict``: worst first, the default).
FLEET_SORTS: dict[str, tuple[list[str], list[bool]]] = {
    "verdict": (["_rank", "fails", "warns", "slug"], [False, True, True, False]),
    "slug": (["slug"], [False]),
    "ticks": (["ticks", "slug"], [True, False]),
    "ended": (["ended", "slug"], [True, False]),
}


def fleet_frame(cards: Sequence[Scorecard], sort_by: str = "verdict") -> pl.DataFrame:
    """One row per run, worst first (or by ``sort_by``, a key of :data:`FLEET_SORTS`).

    Returns:
        Columns slug, name, ticks (ticks in window), ticks_loaded, started, ended,
        verdict, fails, warns, then one status column per dimension key; sorted by
        verdict (FAILED, DEGRADED, INSUFFICIENT_DATA, HEALTHY), then more FAILs, more
        WARNs, then slug. Informational dimensions are not counted in fails and warns.
    """
    if not cards:
        return pl.DataFrame(schema={"slug": pl.String, "verdict": pl.String})
    keys = cards[0].dimensions["dimension"].to_list()
    counted = [k for k in keys if k not in cards[0].meta.get("informational", ())]
    rows: list[dict[str, Any]] = []
    for card in cards:
        statuses = dict(card.dimensions.select("dimension", "status").iter_rows())
        rows.append(
            {
                "slug": card.subject,
                "name": card.meta.get("name", card.subject),
                "ticks": card.meta.get("tick_count"),
                "ticks_loaded": card.meta.get("ticks_loaded"),
                "started": card.meta.get("started"),
                "ended": card.meta.get("ended"),
                "verdict": card.verdict,
                **{k: statuses.get(k, NA) for k in keys},
            }
        )
    frame = pl.DataFrame(rows).with_columns(
        pl.col("started", "ended").str.to_datetime("%Y-%m-%dT%H:%M:%SZ", time_zone="UTC"),
        fails=pl.sum_horizontal([(pl.col(k) == FAIL).cast(pl.Int64) for k in counted]),
        warns=pl.sum_horizontal([(pl.col(k) == WARN).cast(pl.Int64) for k in counted]),
        _rank=pl.col("verdict").replace_strict(
            {v: i for i, v in enumerate(VERDICT_ORDER)}, default=len(VERDICT_ORDER)
        ),
    )
    by, descending = FLEET_SORTS[sort_by]
    return (
        frame.sort(by, descending=descending, nulls_last=True)
        .drop("_rank")
        .select(
            "slug",
            "name",
            "ticks",
            "ticks_loaded",
            "started",
            "ended",
            "verdict",
            "fails",
            "warns",
            *keys,
        )
    )


def render_fleet_text(
    cards: Sequence[Scorecard],
    sort_by: str = "verdict",
    *,
    width: int | None = None,
    colour: bool = False,
) -> str:
    """The fleet as a fixed-width table: slug, ticks, verdict and each dimension's status.

    Args:
        cards: one scorecard per run.
        sort_by: the row order (see :func:`fleet_frame`; worst verdict first by default).
        width: fit this many columns (narrower columns, long slugs shortened with "…");
            None: the full layout, never shortened (as piped output is).
        colour: colour the statuses and verdicts with ANSI codes.
    """
    frame = fleet_frame(cards, sort_by)
    if frame.height == 0:
        return "no runs"
    keys = cards[0].dimensions["dimension"].to_list()
    names = dict(cards[0].dimensions.select("dimension", "name").iter_rows())
    codes = dimension_codes([names[k] for k in keys])
    heads = [codes[names[k]] for k in keys]
    shown = {s: visible(s) for s in frame["slug"]}  # a folder's ESC printed as \x1b
    slug_w = max(4, *(len(s) for s in shown.values()))
    verdict_w, cell_w, gap = 17, 8, "  "
    if width is not None:  # fit: the verdicts present, six-wide cells, one-space gaps
        verdict_w = max(7, *(len(v) for v in frame["verdict"]))
        cell_w, gap = 6, " "
        fixed = 2 * len(gap) + 5 + verdict_w + cell_w * len(keys)
        slug_w = max(4, min(slug_w, width - fixed))

    def cut(slug: str) -> str:
        return slug if len(slug) <= slug_w else slug[: slug_w - 1] + "…"

    header = f"{'run':<{slug_w}}{gap}{'ticks':>5}{gap}{'verdict':<{verdict_w}}" + "".join(
        f"{h:>{cell_w}}" for h in heads
    )
    lines = [header]
    for r in frame.iter_rows(named=True):
        cells = "".join(
            " " * (cell_w - len(_SHORT.get(r[k], r[k])))
            + paint(_SHORT.get(r[k], r[k]), r[k], colour)
            for k in keys
        )
        verdict = paint(r["verdict"], r["verdict"], colour) + " " * (verdict_w - len(r["verdict"]))
        name = cut(shown[r["slug"]])
        lines.append(f"{name:<{slug_w}}{gap}{r['ticks'] or 0:>5}{gap}{verdict}{cells}")
    counts = frame.group_by("verdict").len()
    summary = ", ".join(
        f"{n} {v}"
        for v, n in sorted(
            counts.iter_rows(),
            key=lambda vn: VERDICT_ORDER.index(vn[0]) if vn[0] in VERDICT_ORDER else 9,
        )
    )
    version = cards[0].rubric_version
    total = f"{frame.height} runs: {summary} (rubric {cards[0].rubric} {version})"
    lines.extend([total] if width is None else textwrap.wrap(total, width, subsequent_indent="  "))
    # the legend is prose, not rows: wrapped even when piped (a notebook shows it too)
    items = [f"{codes[names[k]]} {names[k]}" for k in keys]
    lines.extend(legend_lines(items, width if width is not None else LEGEND_WIDTH))
    return "\n".join(lines)


#: The legend's width when the table is not fitted to a terminal (piped, a notebook).
LEGEND_WIDTH = 100


def dimension_codes(names: Sequence[str]) -> dict[str, str]:
    """A short column code per dimension name: the initials of its first two words
    (``Character stability`` → ``CS``), or the first two letters of a one-word name
    (``Gr``); a digit is added where two names would share a code."""
    codes: dict[str, str] = {}
    for name in names:
        words = name.replace("-", " ").split()
        code = (words[0][0] + words[1][0]).upper() if len(words) > 1 else name[:2].capitalize()
        base, n = code, 2
        while code in codes.values():
            code, n = f"{base}{n}", n + 1
        codes[name] = code
    return codes


def legend_lines(items: Sequence[str], width: int | None) -> list[str]:
    """``Columns: Gr Groundedness · CS Character stability · ...``, wrapped to ``width``
    between items (never inside one); one line when ``width`` is None."""
    lines: list[str] = []
    line = "Columns:"
    for item in items:
        candidate = f"{line}{' ' if line.endswith(':') else ' · '}{item}"
        if width is not None and len(candidate) > width and line.strip() != "Columns:":
            lines.append(line)
            line = f"  {item}"
        else:
            line = candidate
    lines.append(line)
    return lines


def render_fleet_json(cards: Sequence[Scorecard], sort_by: str = "verdict") -> str:
    """The fleet as JSON: rubric version, window, and one object per run, worst first
    (or by ``sort_by``)."""
    frame = fleet_frame(cards, sort_by)
    keys = cards[0].dimensions["dimension"].to_list() if cards else []
    runs = [
        {
            "slug": r["slug"],
            "ticks": r["ticks"],
            "verdict": r["verdict"],
            "statuses": {k: r[k] for k in keys},
        }
        for r in frame.iter_rows(named=True)
    ]
    warnings = [f"{c.subject}: {w}" for c in cards for w in c.warnings if w.startswith("skipped")]
    return json.dumps(
        {
            "rubric": cards[0].rubric if cards else None,
            "rubric_version": cards[0].rubric_version if cards else None,
            "window": cards[0].meta.get("window") if cards else None,
            "runs": runs,
            "warnings": warnings,
        },
        indent=2,
    )


def verdict_chart(fleet: pl.DataFrame) -> alt.Chart:
    """How many runs have each verdict.

    Args:
        fleet: the frame of :func:`fleet_frame`.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    counts = fleet.group_by("verdict").len().rename({"len": "runs"})
    order = [v for v in VERDICT_ORDER if v in counts["verdict"].to_list()]
    chart: alt.Chart = (
        alt.Chart(counts)
        .mark_bar()
        .encode(
            x=alt.X("runs:Q"),
            y=alt.Y("verdict:N", sort=order, title=None),
            color=alt.Color(
                "verdict:N",
                scale=alt.Scale(
                    domain=VERDICT_ORDER, range=[VERDICT_COLOURS[v] for v in VERDICT_ORDER]
                ),
                legend=None,
            ),
            tooltip=["verdict:N", "runs:Q"],
        )
        .properties(title="Runs by verdict", width=400)
    )
    return chart


def failing_dimensions(fleet: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Per dimension: how many runs are FAIL, WARN, OK and N/A on it, most failing first.

    Returns:
        Columns dimension, FAIL, WARN, OK, N/A.
    """
    long = fleet.select(list(keys)).unpivot(variable_name="dimension", value_name="status")
    table = long.pivot(on="status", index="dimension", values="status", aggregate_function="len")
    for status in (FAIL, WARN, OK, NA):
        if status not in table.columns:
            table = table.with_columns(pl.lit(0, dtype=pl.UInt32).alias(status))
    return (
        table.select("dimension", FAIL, WARN, OK, NA)
        .fill_null(0)
        .sort([FAIL, WARN], descending=True)
    )


def failing_dimensions_chart(fleet: pl.DataFrame, keys: Sequence[str]) -> alt.Chart:
    """Stacked bars: for each dimension, the runs in each status, stacked (and listed in
    the legend) in the palette's order OK, WARN, FAIL, N/A; most failing dimension first."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    statuses = list(STATUS_ORDER)
    long = (
        fleet.select(list(keys))
        .unpivot(variable_name="dimension", value_name="status")
        .with_columns(
            rank=pl.col("status").replace_strict(
                {s: i for i, s in enumerate(statuses)}, default=len(statuses)
            )
        )
    )
    order = failing_dimensions(fleet, keys)["dimension"].to_list()
    chart: alt.Chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("dimension:N", sort=order, title=None),
            x=alt.X("count():Q", title="runs"),
            color=alt.Color("status:N", scale=status_scale(statuses=statuses)),
            order=alt.Order("rank:Q", sort="ascending"),
            tooltip=["dimension:N", "status:N", "count():Q"],
        )
        .properties(title="Which dimensions fail most", width=400)
    )
    return chart


def trend_chart(fleet: pl.DataFrame) -> alt.Chart:
    """Runs per night by verdict (run date = the day of its last tick), to spot a change."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    daily = (
        fleet.drop_nulls("ended")
        .with_columns(night=pl.col("ended").dt.date())
        .group_by("night", "verdict")
        .len()
        .rename({"len": "runs"})
        .sort("night")
    )
    chart: alt.Chart = (
        alt.Chart(daily)
        .mark_bar()
        .encode(
            x=alt.X("night:T", title="run date", timeUnit="yearmonthdate"),
            y=alt.Y("runs:Q", stack="normalize", title="share of runs"),
            color=alt.Color(
                "verdict:N",
                scale=alt.Scale(
                    domain=VERDICT_ORDER, range=[VERDICT_COLOURS[v] for v in VERDICT_ORDER]
                ),
            ),
            tooltip=["night:T", "verdict:N", "runs:Q"],
        )
        .properties(title="Verdicts by run date", width=500)
    )
    return chart
