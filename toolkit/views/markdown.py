"""Scorecards as GitHub-flavoured Markdown: a pull-request comment or a CI step summary.

A heading names the command, the rubric and its version and, with a gate, how many
subjects failed it; then one summary row per subject (verdict, and with a gate whether it
passed and why not); then each subject's dimensions (status, value, detail and the OK and
FAIL thresholds) in a collapsed ``<details>`` block, so a fleet stays one screen long.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from toolkit.gate import Check, reason
from toolkit.scorecard import Scorecard
from toolkit.views.text import format_value


def cell(text: object) -> str:
    """A table cell: ``&``, ``<`` and ``>`` as entities (data never becomes HTML), pipes
    escaped, line breaks flattened."""
    flat = html.escape(" ".join(str(text).split()), quote=False)
    return flat.replace("|", "\\|") or " "


def render_markdown(
    cards: Sequence[Scorecard],
    *,
    command: str,
    mode: str | None = None,
    failing: Mapping[str, Sequence[Check]] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The scorecards as one Markdown document.

    Args:
        cards: the scorecards the command printed (one per subject).
        command: e.g. ``toolkit quality``, named in the heading.
        mode: the gate mode, or None without a gate.
        failing: subject -> the checks failing the gate (:func:`toolkit.gate.decide`).
        notes: lines added under the heading (warnings the reader must see).
    """
    failing = failing or {}
    versions = dict.fromkeys(f"{c.rubric} {c.rubric_version}" for c in cards)
    rubric = ", ".join(versions) or "no rubric"
    heading = f"### {command} · rubric {rubric}"
    if mode is not None:
        failed = sum(1 for c in cards if failing.get(c.subject))
        heading += f" · gate {mode}: {failed} of {len(cards)} failed"
    lines = [heading, ""]
    for note in notes:
        lines.append(f"> {cell(note)}")
    if notes:
        lines.append("")
    if not cards:
        lines.append("Nothing was scored.")
        return "\n".join(lines) + "\n"
    if mode is None:
        lines += ["| subject | verdict | why |", "|---|---|---|"]
    else:
        lines += ["| subject | verdict | gate | why |", "|---|---|---|---|"]
    for card in cards:
        row = [cell(card.subject), f"**{cell(card.verdict)}**"]
        if mode is not None:
            bad = failing.get(card.subject) or []
            why = "<br>".join(cell(reason([c])) for c in bad) or " "  # one line per check
            row += ["**fail**" if bad else "pass", why]
        else:
            row.append(cell(card.verdict_reason))
        lines.append("| " + " | ".join(row) + " |")
    for card in cards:
        lines += [
            "",
            f"<details><summary>{cell(card.title)}: {cell(card.verdict)}</summary>",
            "",
            "| dimension | status | value | detail | OK | FAIL |",
            "|---|---|---:|---|---|---|",
        ]
        for r in card.dimensions.iter_rows(named=True):
            lines.append(
                f"| {cell(r['name'])} | {cell(r['status'])} | {format_value(r['value'])} "
                f"| {cell(r['detail'])} | {cell(r['green'] or '')} | {cell(r['red'] or '')} |"
            )
        lines += ["", "</details>"]
    warnings = dict.fromkeys(w for c in cards for w in c.warnings)
    if warnings:
        lines += ["", "**Warnings**", ""] + [f"- {cell(w)}" for w in warnings]
    return "\n".join(lines) + "\n"
