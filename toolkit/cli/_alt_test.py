"""``toolkit calibrate``'s alternative-annotator test: ``--alt-epsilon`` and its text.

Beside the humans' leave-one-out band, the published test of whether the judge can take
a rater's seat (:mod:`toolkit.rubrics.alt_test`, Calderon et al., ACL 2025): per person
left out, the judge's and the person's advantage probabilities, the one-sided p-value
adjusted by Benjamini-Yekutieli, the winning rate and the verdict (>= 0.5 passes).
docs/rubrics/estimate.md.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

from toolkit.errors import InputError
from toolkit.io.edge import visible

if TYPE_CHECKING:
    import polars as pl

    from toolkit.rubrics.alt_test import AltTest

#: The paper's allowance for expert raters (toolkit.rubrics.alt_test.DEFAULT_EPSILON,
#: repeated so that `toolkit --help` imports no rubric).
DEFAULT_EPSILON = 0.2


def add_alt_test_arguments(p: argparse.ArgumentParser) -> None:
    """``--alt-epsilon E``."""
    p.add_argument(
        "--alt-epsilon",
        type=float,
        default=DEFAULT_EPSILON,
        metavar="E",
        help="the alternative-annotator test's cost-benefit allowance epsilon, 0-1 "
        "(default 0.2, the paper's value for expert raters; 0.15 skilled, 0.1 crowd workers)",
    )


def run_alt_test(args: argparse.Namespace, frame: pl.DataFrame) -> AltTest:
    """The test of ``--judge-id`` against the people of ``frame`` at ``--alt-epsilon``.

    Raises:
        InputError: an epsilon that is not a number from 0 to 1, or what the test refuses.
    """
    # the test (numpy, polars; scipy when it runs): `toolkit --help` imports this module
    from toolkit.rubrics.alt_test import alt_test

    epsilon = args.alt_epsilon
    if not math.isfinite(epsilon) or not 0 <= epsilon <= 1:
        raise InputError(None, "must be from 0 to 1", field="--alt-epsilon", value=epsilon)
    return alt_test(frame, judge=args.judge_id, epsilon=epsilon)


def alt_test_section(result: AltTest) -> tuple[str, list[str]]:
    """The test as a section of the calibration text (each line under 78 columns): the
    heading, then the verdict, one line per person left out, and the warnings."""

    def show(value: float | None, digits: int = 2) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    verdict = {
        True: "the judge passes",
        False: "the judge fails",
        None: "undefined (no person has two items to test)",
    }[result.passed]
    heading = (
        f"Alternative-annotator test (Calderon et al. 2025), epsilon {result.epsilon:g}, "
        f"{result.scoring}"
    )
    lines = [
        f"winning rate {show(result.winning_rate)} (0.50 passes): {verdict}",
        f"average advantage probability {show(result.advantage)}; "
        f"Benjamini-Yekutieli at q {result.q:g}",
    ]
    head = ("left out", "items", "rho judge", "rho person", "p", "p (BY)", "judge wins")
    rows = [head]
    for r in result.raters.iter_rows(named=True):
        rows.append((
            visible(str(r["rater"]))[:15], str(r["items"]), show(r["rho_judge"]),
            show(r["rho_rater"]), show(r["p_value"], 4), show(r["p_adjusted"], 4),
            "-" if r["p_value"] is None else ("yes" if r["rejected"] else "no"),
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
              for row in rows]  # fmt: skip
    lines += [visible(n) for n in result.raters["note"].drop_nulls().to_list()]
    return heading, lines


def render_alt_test_text(result: AltTest) -> str:
    """The test as plain text: the section's heading and its indented lines."""
    heading, lines = alt_test_section(result)
    return "\n".join([heading, *(f"  {line}" for line in lines)])
