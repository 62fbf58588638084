"""The text and Markdown of a :class:`~toolkit.rubrics.calibrate.Calibration`.

The terminal table fits 80 columns (long item ids and rater lists are clipped with an
ellipsis; the JSON has them whole). Under each of the top disagreements come the judge's
reasoning, each rater's note and the evidence, wrapped between words and cut after a few
lines with a visible mark (:data:`CUT`; the JSON and the HTML page have them whole). The
Markdown is the same sections in code blocks, then each top disagreement as a small table
(who, score, words) with the evidence quoted under it, for a pull-request comment.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.rubrics.calibrate import Calibration

__all__ = ["render_calibration_markdown", "render_calibration_table"]

WIDTH = 80
#: How many lines a reasoning, a note or the evidence may take under a disagreement.
MAX_LINES = {"judge": 3, "note": 2, "evidence": 3}
#: Ends a text cut to fit (the whole text is in the JSON and the HTML page).
CUT = " [… cut]"


def _f(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "undefined"
    return f"{value:+.2f}" if sign else f"{value:.3f}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _disagreement_head(row: dict[str, Any], groups: list[str]) -> str:
    who = " ".join(str(row[g]) for g in groups if row[g] is not None)
    head = f"{_clip(str(row['item']), 16):<16} {_clip(who, 10):<10} {row['judge']:>5g} "
    head += f"{row['human_mean']:>6.2f} {row['diff']:>+5.2f}  "
    return head + str(row["scores"])


def _printable(text: str) -> str:
    """``text`` with every control character (an escape sequence in a judge's reply)
    as U+FFFD: shown, never sent to the terminal."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def wrap_words(label: str, words: str, width: int, max_lines: int) -> list[str]:
    """``label: words`` wrapped to ``width`` between words, the text indented under
    itself, at most ``max_lines`` lines; a cut text ends with :data:`CUT`.

    Args:
        label: what the words are (``judge``, a rater's id, ``evidence``), padded to 10.
        words: the text (line breaks in it become spaces).
        width: the widest line.
        max_lines: the most lines; the last one ends with :data:`CUT` when text is left.

    Line breaks in ``words`` become spaces, and a control character (an escape sequence
    in a judge's reply) is written as U+FFFD.
    """
    bullet = f"{_clip(_printable(label), 9) + ':':<11}"
    flat = _printable(" ".join(words.split()))
    lines = textwrap.wrap(
        flat,
        width,
        initial_indent=bullet,
        subsequent_indent=" " * len(bullet),
        break_on_hyphens=False,
    ) or [bullet.rstrip()]
    if len(lines) <= max_lines:
        return lines
    kept = lines[:max_lines]
    last = kept[-1]
    room = width - len(CUT)
    if len(last) > room:
        last = last[:room].rsplit(" ", 1)[0] if " " in last[len(bullet) : room] else last[:room]
    kept[-1] = last + CUT
    return kept


def _words(row: dict[str, Any], judge: str) -> list[str]:
    """The reasoning, the notes and the evidence under one disagreement (indented)."""
    width = WIDTH - 6  # the section's indent and the item's
    out: list[str] = []
    if row.get("reasoning"):
        out += wrap_words(judge, row["reasoning"], width, MAX_LINES["judge"])
    for note in row.get("notes") or []:
        out += wrap_words(note["rater"], note["note"], width, MAX_LINES["note"])
    if row.get("evidence"):
        out += wrap_words("evidence", row["evidence"], width, MAX_LINES["evidence"])
    where = _where(row)
    if where:
        out += wrap_words("at", where, width, 1)
    return [f"  {line}" for line in out]


def _where(row: dict[str, Any]) -> str:
    """``source#anchor``, or either alone, or "" when neither is known."""
    source, anchor = row.get("source"), row.get("anchor")
    if source and anchor:
        return f"{source}#{anchor}"
    return str(source or anchor or "")


def _lines(result: Calibration, top: int, words: bool = True) -> list[tuple[str, list[str]]]:
    """The sections shared by the table and the Markdown: (heading, lines); ``words``:
    the reasoning, notes and evidence under each disagreement."""
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
    rows = []
    for row in r.disagreements.head(top).iter_rows(named=True):
        rows.append(_clip(_disagreement_head(row, r.groups), WIDTH - 2))
        if words:
            rows += _words(row, r.judge)
    listed = [f"{'item':<16} {'group':<10} {'judge':>5} {'humans':>6} {'diff':>5}  scores", *rows]
    sections = [
        ("Agreement", agreement),
        (f"Bias: judge - human mean, {pct}% bootstrap interval (seed {r.seed})", bias),
        (f"Confusion at threshold {r.rubric.threshold:g} (pass: score >= threshold)", confusion),
    ]
    if top > 0:  # --top 0: the numbers only
        heading = f"Top {min(top, r.disagreements.height)} disagreements, by |judge - human mean|"
        sections.append((heading, listed))
    return sections


def _head(result: Calibration, path: str, width: int | None = WIDTH) -> list[str]:
    r = result
    humans = ", ".join(r.humans)
    first = f"{path}: judge {r.judge!r} vs {len(r.humans)} humans ({humans})"
    lines = [
        first if width is None else _clip(first, width),
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
    from toolkit.views.markdown import cell

    head = [f"{cell(line)}  " for line in _head(result, path, None)]
    out = [f"## toolkit calibrate: {cell(path)}", "", *head]
    for heading, lines in _lines(result, top, words=False):
        out += ["", f"### {heading}", "", "```", *lines, "```"]
    out += _markdown_disagreements(result, top)
    for line in _verdict(min_alpha, failures):
        out += ["", f"**{line}**"]
    out += [f"- {reason}" for reason in failures]
    return "\n".join(out)


def _markdown_disagreements(result: Calibration, top: int) -> list[str]:
    """Each top disagreement that has words: a table of who scored what and why, and
    the evidence quoted under it (cells escaped: data never becomes Markdown or HTML)."""
    from toolkit.views.markdown import cell

    out: list[str] = []
    judge = "judge" if result.judge == "judge" else f"{cell(result.judge)} (judge)"
    for n, row in enumerate(result.disagreements.head(top).iter_rows(named=True), start=1):
        notes = {x["rater"]: x["note"] for x in row["notes"] or []}
        if not (row["reasoning"] or notes or row["evidence"] or _where(row)):
            continue
        groups = ", ".join(str(row[g]) for g in result.groups if row[g] is not None)
        out += [
            "",
            f"#### {n}. {cell(row['item'])}"
            + (f" ({cell(groups)})" if groups else "")
            + f": judge {row['judge']:g}, humans {row['human_mean']:.2f}, "
            f"diff {row['diff']:+.2f}",
            "",
            "| who | score | reasoning or note |",
            "|---|---:|---|",
            f"| {judge} | {row['judge']:g} | {cell(row['reasoning'] or '')} |",
        ]
        for rating in row["ratings"] or []:
            out.append(
                f"| {cell(rating['rater'])} | {rating['score']:g} "
                f"| {cell(notes.get(rating['rater'], ''))} |"
            )
        if row["evidence"]:
            where = f" (at {cell(_where(row))})" if _where(row) else ""
            out += ["", f"> **Evidence**{where}: {cell(row['evidence'])}"]
        elif _where(row):
            out += ["", f"> at {cell(_where(row))}"]
    if out:
        out = ["", "### The disagreements, side by side", *out]
    return out
