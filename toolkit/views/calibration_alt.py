"""The alternative-annotator test (:mod:`toolkit.rubrics.alt_test`) in calibrate's other
outputs: the Markdown summary, the calibration page and the JUnit properties.

Each shows the verdict, the winning rate, epsilon and one row per person left out; every
rater name is data (escaped: never Markdown or HTML). The Markdown table stops at
:data:`MARKDOWN_ROWS` people and counts the rest, so the summary stays within the host's
limit however many people rated. docs/rubrics/estimate.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from toolkit.io.edge import visible
from toolkit.views.html import badge, table, text
from toolkit.views.markdown import cell

if TYPE_CHECKING:  # the rubric (numpy, polars) is not imported by the text views
    from toolkit.rubrics.alt_test import AltTest

#: The winning rate that passes (toolkit.rubrics.alt_test.PASS_WINNING_RATE, repeated so
#: that the calibration text views import no rubric; a test holds them equal).
PASS_WINNING_RATE = 0.5

#: The most people the Markdown table lists (the rest are counted under it).
MARKDOWN_ROWS = 20


def _show(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def verdict_word(result: AltTest) -> str:
    """``passes``, ``fails`` or ``undefined`` (no person could be tested)."""
    return {True: "passes", False: "fails", None: "undefined"}[result.passed]


def _verdict(result: AltTest) -> str:
    """The verdict as a sentence's start."""
    if result.passed is None:
        return "The test is undefined (no person could be tested)"
    return f"The judge {verdict_word(result)}"


def _wins(row: dict[str, object]) -> str:
    return "-" if row["p_value"] is None else ("yes" if row["rejected"] else "no")


def _notes(result: AltTest) -> list[str]:
    """The test's warnings, each once, with the rater ids in them made visible."""
    notes = result.raters["note"].drop_nulls().unique(maintain_order=True).to_list()
    return [visible(str(n)) for n in notes]


def _rows(result: AltTest) -> list[list[str]]:
    """Per person (raw text, not yet escaped): name, items, rho judge, rho person,
    p (BY), whether the judge wins."""
    return [
        [
            visible(str(r["rater"])),  # an id from a file: its escapes shown, not acted on
            str(r["items"]),
            _show(r["rho_judge"]),
            _show(r["rho_rater"]),
            _show(r["p_adjusted"], 4),
            _wins(r),
        ]
        for r in result.raters.iter_rows(named=True)
    ]


def alt_test_markdown(result: AltTest, max_rows: int = MARKDOWN_ROWS) -> list[str]:
    """The test as Markdown lines: a heading, the verdict with the winning rate and
    epsilon, and a compact table of at most ``max_rows`` people (the rest counted)."""
    rows = _rows(result)
    out = [
        "",
        "### Alternative-annotator test (Calderon et al. 2025)",
        "",
        f"**{_verdict(result)}**: winning rate {_show(result.winning_rate)} "
        f"({PASS_WINNING_RATE:.2f} passes), epsilon {result.epsilon:g}, average advantage "
        f"probability {_show(result.advantage)}, {cell(result.scoring)}, "
        f"Benjamini-Yekutieli at q {result.q:g}.",
        "",
        "| left out | items | rho judge | rho person | p (BY) | judge wins |",
        "|---|---:|---:|---:|---:|---|",
    ]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows[:max_rows]]
    if len(rows) > max_rows:
        out += ["", f"… and {len(rows) - max_rows} more people (the JSON output lists all)."]
    out += [f"- {cell(n)}" for n in _notes(result)]
    return out


def alt_test_html(result: AltTest) -> str:
    """The test as an HTML fragment (escaped text): the verdict as a badge, the numbers,
    the table per person and the warnings."""
    status = {True: "PASS", False: "FAIL", None: "N/A"}[result.passed]
    head = (
        f"<p class='tk-verdict'>{badge(status)} {text(_verdict(result))}: "
        f"winning rate {text(_show(result.winning_rate))} ({PASS_WINNING_RATE:.2f} passes), "
        f"epsilon {text(f'{result.epsilon:g}')}, average advantage probability "
        f"{text(_show(result.advantage))}, {text(result.scoring)}, Benjamini-Yekutieli at "
        f"q {text(f'{result.q:g}')}.</p>"
    )
    rows = [[text(c) for c in row] for row in _rows(result)]
    warn = "".join(f"<li>{text(n)}</li>" for n in _notes(result))
    return (
        head
        + table(
            ["person left out", "items", "rho judge", "rho person", "p (BY)", "judge wins"],
            rows,
            numeric=frozenset({1, 2, 3, 4}),
        )
        + (f"<ul class='tk-warn'>{warn}</ul>" if warn else "")
    )


def alt_test_properties(result: AltTest) -> list[tuple[str, str]]:
    """The JUnit suite properties: the winning rate (empty when undefined), the
    verdict and epsilon."""
    rate = "" if result.winning_rate is None else f"{result.winning_rate:.4f}"
    return [
        ("alt_test_winning_rate", rate),
        ("alt_test_verdict", verdict_word(result)),
        ("alt_test_epsilon", f"{result.epsilon:g}"),
    ]
