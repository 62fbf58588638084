"""``toolkit calibrate SCORES_FILE``: can we trust the judge? The judge held against humans.

Reads scores of shared items (CSV or JSON: item, rater, score, plus optional group
columns such as agent or dimension; the judge is one rater id, --judge-id) and prints
Krippendorff's alpha among the humans and with the judge added, the humans'
leave-one-out band and whether replacing each human by the judge stays inside it,
Spearman and quadratic weighted kappa, the judge's bias (judge - human mean) overall
and per group with a seeded bootstrap interval, the confusion table at the pass
threshold, and the items the judge and the humans disagree on most.

Exit codes: 0 printed; 1 ``--gate min-alpha [X]`` failed (one stderr line per reason);
2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from toolkit.errors import InputError

if TYPE_CHECKING:
    from toolkit.rubrics.calibrate import Calibration

FORMATS = ("table", "json", "markdown")
WIDTH = 80


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``calibrate`` subcommand."""
    from toolkit.cli import help_text

    p = sub.add_parser(
        "calibrate",
        help="can we trust the judge? an LLM judge held against human raters",
        description=help_text(__doc__),
    )
    p.add_argument(
        "scores",
        nargs="?",
        metavar="SCORES_FILE",
        help="CSV or JSON: item, rater, score[, group...]",
    )
    p.add_argument("--judge-id", default="judge", help="the judge's rater id (default: judge)")
    p.add_argument(
        "--threshold", type=float, help="an item passes at this score or above (the rubric's: 5)"
    )
    p.add_argument(
        "--level",
        choices=("interval", "ordinal"),
        help="Krippendorff's level of measurement (the rubric's: interval)",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the bootstrap (default 0)")
    p.add_argument("--top", type=int, default=10, help="disagreements listed (default 10)")
    p.add_argument(
        "--gate",
        nargs="+",
        metavar=("min-alpha", "X"),
        help="exit 1 when the humans' alpha, or alpha with a human replaced by the judge, "
        "is below X (default 0.667) or below the humans' leave-one-out band",
    )
    p.add_argument("--format", choices=FORMATS, default="table")
    p.set_defaults(func=run)


def _gate_words(args: argparse.Namespace) -> list[str] | None:
    """``--gate``'s own words; a path argparse gave it (``--gate min-alpha FILE``) goes
    back to SCORES_FILE."""
    if not args.gate:
        return None
    words = list(args.gate)
    keep = 1
    if len(words) > 1:
        try:
            float(words[1])
            keep = 2
        except ValueError:
            pass
    rest = words[keep:]
    if rest and args.scores is None and len(rest) == 1:
        args.scores = rest[0]
        rest = []
    return words[:keep] + rest


def run(args: argparse.Namespace) -> int:
    """Read, calibrate, print; the gate decides the exit code."""
    from toolkit.load.calibration import load_calibration_scores
    from toolkit.rubrics.calibrate import (
        DEFAULT_CALIBRATE_RUBRIC,
        calibrate,
        gate_failures,
        parse_gate,
    )

    words = _gate_words(args)
    rubric = DEFAULT_CALIBRATE_RUBRIC
    min_alpha = parse_gate(words, rubric) if words is not None else None
    if args.scores is None:
        raise InputError(None, "give the scores file (CSV or JSON)", field="SCORES_FILE")
    if args.top < 0:
        raise InputError(None, "must be 0 or more", field="--top", value=args.top)
    changes: dict[str, object] = {}
    if args.threshold is not None:
        changes["threshold"] = args.threshold
    if args.level is not None:
        changes["level"] = args.level
    if changes:  # a threshold changed on the command line is not rubric 1.0.0
        rubric = rubric.model_copy(update=changes | {"version": f"{rubric.version}+cli"})
    frame = load_calibration_scores(args.scores, (rubric.scale_min, rubric.scale_max))
    result = calibrate(frame, judge=args.judge_id, rubric=rubric, seed=args.seed)
    failures = gate_failures(result, min_alpha) if min_alpha is not None else []
    if args.format == "json":
        data = result.to_dict()
        data["disagreements"] = data["disagreements"][: args.top]
        data["gate"] = (
            None
            if min_alpha is None
            else {"min_alpha": min_alpha, "passed": not failures, "reasons": failures}
        )
        print(json.dumps(data, indent=2))
    elif args.format == "markdown":
        print(render_markdown(result, args.scores, args.top, min_alpha, failures))
    else:
        print(render_table(result, args.scores, args.top, min_alpha, failures))
    from toolkit.views.text import terminal_style, wrap_item

    width, _ = terminal_style(sys.stderr)  # a terminal: wrapped between words
    for line in failures:
        for part in wrap_item(
            f"gate min-alpha {min_alpha:g}: {line}", width, bullet="toolkit calibrate: ", indent=2
        ):
            print(part, file=sys.stderr)
    return 1 if failures else 0


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


def render_table(
    result: Calibration, path: str, top: int, min_alpha: float | None, failures: list[str]
) -> str:
    """The terminal text, at most 80 columns."""
    out = _head(result, path)
    for heading, lines in _lines(result, top):
        out += ["", heading, *[f"  {line}" for line in lines]]
    verdict = _verdict(min_alpha, failures)
    return "\n".join([*out, *(["", *verdict] if verdict else [])])


def render_markdown(
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
