"""The text and Markdown of a :class:`~toolkit.rubrics.calibrate.Calibration`.

The terminal table fits 80 columns (long item ids and rater lists are clipped with an
ellipsis; the JSON has them whole); the Markdown is the same sections in code blocks, for a
pull-request comment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkit.rubrics.calibrate import Calibration

__all__ = ["render_calibration_markdown", "render_calibration_table"]

WIDTH = 80


def _f(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "undefined"
    return f"{value:+.2f}" if sign else f"{value:.3f}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _lines(result: Calibration, top: int) -> list[tuple[str, list[str]]]:
    """The sections shared by the table and the Markdown: (heading, lines)."""
    r = result
    band = "undefined" if r.band_low is None else f"{r.band_low:.3f} .. {r.band_high:.3f}"
    agreement = [
        f"alpha among the humans            {_f(r.alpha_humans)}",
        f"alpha with the judge added        {_f(r.alpha_with_judge)}",
        f"humans' leave-one-out band        {band}",
    ]
    for row in r.band.iter_rows(named=True):
        where = {True: "inside", False: "BELOW the band", None: ""}[row["inside"]]
        agreement.append(
            _clip(
                f"judge in place of {row['left_out']:<15} {_f(row['alpha_replaced'])}  {where}",
                WIDTH - 2,
            )
        )
    agreement.append(f"Spearman, judge vs human mean     {_f(r.spearman)}")
    each = ", ".join(f"{h} {_f(k)}" for h, k in r.kappa.select("human", "kappa").iter_rows())
    agreement.append(
        _clip(f"weighted kappa (quadratic), mean  {_f(r.kappa_mean)}  ({each})", WIDTH - 2)
    )
    pct = round(r.rubric.confidence * 100)
    bias = []
    for row in r.bias.iter_rows(named=True):
        name = "all items" if row["group"] == "all" else f"{row['group']}={row['value']}"
        interval = "" if row["low"] is None else f"[{row['low']:+.2f}, {row['high']:+.2f}]"
        bias.append(
            _clip(f"{name:<28} {row['items']:>4} items  {row['bias']:+.2f}  {interval}", WIDTH - 2)
        )
    c = r.confusion
    confusion = [
        "                 humans pass  humans fail",
        f"judge pass       {c['both_pass']:>11}  {c['judge_only']:>11}",
        f"judge fail       {c['humans_only']:>11}  {c['both_fail']:>11}",
        f"the judge's verdict agrees with the humans' on {c['agreement']:.0%} of the items",
    ]
    groups = [
        g
        for g in r.disagreements.columns
        if g not in ("item", "judge", "human_mean", "diff", "scores")
    ]
    rows = []
    for row in r.disagreements.head(top).iter_rows(named=True):
        who = " ".join(str(row[g]) for g in groups if row[g] is not None)
        head = f"{_clip(str(row['item']), 16):<16} {_clip(who, 10):<10} {row['judge']:>5g} "
        head += f"{row['human_mean']:>6.2f} {row['diff']:>+5.2f}  "
        rows.append(_clip(head + row["scores"], WIDTH - 2))
    listed = [f"{'item':<16} {'group':<10} {'judge':>5} {'humans':>6} {'diff':>5}  scores", *rows]
    return [
        ("Agreement", agreement),
        (f"Bias: judge - human mean, {pct}% bootstrap interval (seed {r.seed})", bias),
        (f"Confusion at threshold {r.rubric.threshold:g} (pass: score >= threshold)", confusion),
        (f"Top {min(top, r.disagreements.height)} disagreements, by |judge - human mean|", listed),
    ]


def _head(result: Calibration, path: str) -> list[str]:
    r = result
    humans = ", ".join(r.humans)
    lines = [
        _clip(f"{path}: judge {r.judge!r} vs {len(r.humans)} humans ({humans})", WIDTH),
        f"{r.items} items scored by both"
        + (f", {r.unpaired} scored by one side only (left out)" if r.unpaired else "")
        + f"; rubric {r.rubric.rubric} {r.rubric.version}, {r.rubric.level} alpha",
    ]
    return lines


def _verdict(min_alpha: float | None, failures: list[str]) -> list[str]:
    if min_alpha is None:
        return []
    if not failures:
        return [f"gate min-alpha {min_alpha:g}: passed (the judge sits inside the human band)"]
    return [f"gate min-alpha {min_alpha:g}: FAILED ({len(failures)} reason(s) on stderr)"]


def render_calibration_table(
    result: Calibration, path: str, top: int, min_alpha: float | None, failures: list[str]
) -> str:
    """The terminal text, at most 80 columns."""
    out = _head(result, path)
    for heading, lines in _lines(result, top):
        out += ["", heading, *[f"  {line}" for line in lines]]
    verdict = _verdict(min_alpha, failures)
    return "\n".join([*out, *(["", *verdict] if verdict else [])])


def render_calibration_markdown(
    result: Calibration, path: str, top: int, min_alpha: float | None, failures: list[str]
) -> str:
    """A pull-request comment: the same sections in code blocks under headings."""
    out = [f"## toolkit calibrate: {path}", "", *[f"{line}  " for line in _head(result, path)]]
    for heading, lines in _lines(result, top):
        out += ["", f"### {heading}", "", "```", *lines, "```"]
    for line in _verdict(min_alpha, failures):
        out += ["", f"**{line}**"]
    out += [f"- {reason}" for reason in failures]
    return "\n".join(out)
