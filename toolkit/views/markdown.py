"""Scorecards as GitHub-flavoured Markdown: a pull-request comment or a CI step summary.

A heading names the command, the rubric and its version, the results' epoch
(:mod:`toolkit.epoch`) and, with a gate, how many
subjects failed it; then one summary row per subject (verdict, and with a gate whether it
passed and why not); then each subject's dimensions (status, value, detail and the OK and
FAIL thresholds) in a collapsed ``<details>`` block, so a fleet stays one screen long.

A document past the host's limit (GitHub: 65,536 characters in a comment, 1 MiB in a step's
summary) is written in **summary mode**: the count of subjects by verdict, then the worst
subjects in full (those failing the gate first, then by how bad their verdict is) for as
long as they fit, and the rest counted, never cut in the middle of a table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from toolkit.gate import Check, reason
from toolkit.scorecard import Scorecard
from toolkit.views.palette import SWATCHES, UNKNOWN
from toolkit.views.text import format_value

#: GitHub's limit on a pull-request comment's body, in characters.
COMMENT_LIMIT = 65_536
#: GitHub's limit on one step's summary (``$GITHUB_STEP_SUMMARY``), in bytes.
STEP_SUMMARY_LIMIT = 1_048_576
#: How bad each palette symbol is (worst first), to put the worst subjects first.
_SYMBOL_RANK = {"✗": 0, "▼": 0, "!": 1, "–": 2, "○": 2}


def cell(text: object) -> str:
    """A table cell: ``&``, ``<`` and ``>`` as entities (data never becomes HTML), pipes
    escaped, line breaks flattened."""
    flat = html.escape(" ".join(str(text).split()), quote=False)
    return flat.replace("|", "\\|") or " "


def code_span(text: object) -> str:
    """``text`` as an inline code span, shown exactly: inside backticks Markdown decodes
    no entity and takes no HTML, so nothing is escaped; the fence is one backtick longer
    than the longest run of backticks in the text (padded with a space when the text
    starts or ends with one), line breaks flattened."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    if not flat:
        return "` `"
    pad = " " if flat[0] == "`" or flat[-1] == "`" else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def render_markdown(
    cards: Sequence[Scorecard],
    *,
    command: str,
    mode: str | None = None,
    failing: Mapping[str, Sequence[Check]] | None = None,
    notes: Sequence[str] = (),
    limit: int | None = COMMENT_LIMIT,
) -> str:
    """The scorecards as one Markdown document.

    Args:
        cards: the scorecards the command printed (one per subject).
        command: e.g. ``toolkit quality``, named in the heading.
        mode: the gate mode, or None without a gate.
        failing: subject -> the checks failing the gate (:func:`toolkit.gate.decide`).
        notes: lines added under the heading (warnings the reader must see).
        limit: the most UTF-8 bytes the document may take (at least as many as its
            characters); past it, summary mode. ``None``: no limit.
    """
    failing = failing or {}
    doc = _Doc(cards, command, mode, failing, notes)
    full = doc.render()
    if limit is None or _size(full) <= limit:
        return full
    return doc.summary(limit)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


class _Doc:
    """The parts of one document, rendered whole or in summary mode."""

    def __init__(
        self,
        cards: Sequence[Scorecard],
        command: str,
        mode: str | None,
        failing: Mapping[str, Sequence[Check]],
        notes: Sequence[str],
    ) -> None:
        self.cards, self.mode, self.failing, self.notes = cards, mode, failing, notes
        versions = dict.fromkeys(f"{c.rubric} {c.rubric_version}" for c in cards)
        self.heading = f"### {command} · rubric {', '.join(versions) or 'no rubric'}"
        epochs = dict.fromkeys(str(c.meta["epoch"]) for c in cards if c.meta.get("epoch"))
        if epochs:
            self.heading += f" · epoch {', '.join(epochs)}"
        if mode is not None:
            failed = sum(1 for c in cards if failing.get(c.subject))
            self.heading += f" · gate {mode}: {failed} of {len(cards)} failed"

    def _top(self, extra: Sequence[str] = ()) -> list[str]:
        lines = [self.heading, ""]
        lines += [f"> {cell(note)}" for note in self.notes]
        if self.notes:
            lines.append("")
        return lines + list(extra)

    def _table(self, cards: Sequence[Scorecard]) -> list[str]:
        if self.mode is None:
            lines = ["| subject | verdict | why |", "|---|---|---|"]
        else:
            lines = ["| subject | verdict | gate | why |", "|---|---|---|---|"]
        return lines + [self._row(card) for card in cards]

    def _row(self, card: Scorecard) -> str:
        row = [cell(card.subject), f"**{cell(card.verdict)}**"]
        if self.mode is not None:
            bad = self.failing.get(card.subject) or []
            why = "<br>".join(cell(reason([c])) for c in bad) or " "  # one line per check
            row += ["**fail**" if bad else "pass", why]
        else:
            row.append(cell(card.verdict_reason))
        return "| " + " | ".join(row) + " |"

    def render(self) -> str:
        """The whole document: every subject in full."""
        cards = self.cards
        lines = self._top()
        if not self.cards:
            return "\n".join([*lines, "Nothing was scored."]) + "\n"
        lines += self._table(cards)
        for card in cards:
            lines += _details(card)
        warnings = dict.fromkeys(w for c in cards for w in c.warnings)
        if warnings:
            lines += ["", "**Warnings**", ""] + [f"- {cell(w)}" for w in warnings]
        return "\n".join(lines) + "\n"

    def _rank(self, card: Scorecard) -> tuple[int, int]:
        symbol = SWATCHES.get(card.verdict, UNKNOWN).symbol
        return (0 if self.failing.get(card.subject) else 1, _SYMBOL_RANK.get(symbol, 3))

    def summary(self, limit: int) -> str:
        """Summary mode: counts by verdict, the worst subjects in full while the document
        stays within ``limit`` bytes, the rest counted."""
        worst = sorted(self.cards, key=self._rank)  # stable: the command's order within
        counts = dict.fromkeys(c.verdict for c in worst)
        tally = {v: sum(1 for c in self.cards if c.verdict == v) for v in counts}
        low, high = 0, len(worst)  # the size grows with n: the largest n that fits
        while low < high:
            mid = (low + high + 1) // 2
            if _size(self._summary_doc(worst, mid, tally)) <= limit:
                low = mid
            else:
                high = mid - 1
        return self._summary_doc(worst, low, tally)

    def _summary_doc(self, worst: Sequence[Scorecard], n: int, tally: Mapping[str, int]) -> str:
        rest = worst[n:]
        rest_tally = {v: sum(1 for c in rest if c.verdict == v) for v in tally}
        said = ", ".join(f"{k} {v}" for k, v in rest_tally.items() if v)
        lines = self._top(
            [
                f"Summary mode: the full report is past the host's limit. The {n} worst of "
                f"{len(worst)} subjects are shown in full, the rest counted.",
                "",
                "| verdict | subjects |",
                "|---|---:|",
                *(f"| **{cell(v)}** | {k} |" for v, k in tally.items()),
                "",
            ]
        )
        shown = worst[:n]
        if shown:
            lines += self._table(shown)
            for card in shown:
                lines += _details(card)
            lines.append("")
        if rest:
            lines.append(
                f"_{len(rest)} more subject(s) not shown ({cell(said)}): the whole report is "
                "in `--format json`, `--junit FILE` or `toolkit view`._"
            )
        warnings = dict.fromkeys(w for c in self.cards for w in c.warnings)
        if warnings:
            lines += ["", f"**Warnings**: {len(warnings)}, in the full report."]
        return "\n".join(lines) + "\n"


def _details(card: Scorecard) -> list[str]:
    """One subject's dimensions in a collapsed block."""
    lines = [
        "",
        f"<details><summary>{cell(card.title)}: {cell(card.verdict)}</summary>",
        "",
    ]
    if card.meta.get("input_digest"):
        lines += [f"Input digest `{cell(card.meta['input_digest'])}`", ""]
    lines += [
        "| dimension | status | value | detail | OK | FAIL |",
        "|---|---|---:|---|---|---|",
    ]
    for r in card.dimensions.iter_rows(named=True):
        lines.append(
            f"| {cell(r['name'])} | {cell(r['status'])} | {format_value(r['value'])} "
            f"| {cell(r['detail'])} | {cell(r['green'] or '')} | {cell(r['red'] or '')} |"
        )
    return [*lines, "", "</details>"]
