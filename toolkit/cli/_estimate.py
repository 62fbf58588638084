"""``toolkit calibrate --estimate``: the PPI++ estimate table, and ``--gate estimate``.

The people's mean score and pass rate estimated from the judge on every item and
people's ratings of some (:mod:`toolkit.rubrics.estimate`), beside the judge-only and
people-only means, overall and per group; ``--gate estimate [X]`` exits 1 when a mean's
interval does not lie wholly at or above X (``--threshold``, else the rubric's), saying
how many more rated items would decide it. docs/rubrics/estimate.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from toolkit.rubrics.estimate import Estimate

#: The --gate word that asks for the estimate's gate.
GATE_WORD = "estimate"


def add_estimate_arguments(p: argparse.ArgumentParser) -> None:
    """``--estimate`` and ``--by COLUMN``."""
    group = p.add_argument_group("the estimate (PPI++: the judge corrected by people's ratings)")
    group.add_argument(
        "--estimate",
        action="store_true",
        help="print the PPI++ estimate of the people's mean and pass rate (judge on every "
        "item, people on the rated ones) beside judge-only and people-only, with intervals; "
        "--gate estimate [X] gates on it",
    )
    group.add_argument(
        "--by",
        action="append",
        metavar="COLUMN",
        help="with --estimate: stratify by this group column (repeatable; default: every "
        "group column, e.g. agent and proposition)",
    )
    group.add_argument(
        "--draws",
        metavar="STORE",
        help="with --estimate: the ratings store of the session the people rated in; its "
        "recorded draw probabilities weigh each rated item (needed for the informative "
        "order, the same numbers for the random one)",
    )


def wants_estimate(args: argparse.Namespace, words: list[str] | None) -> bool:
    """Whether ``--estimate`` or ``--gate estimate`` was asked for."""
    return bool(getattr(args, "estimate", False)) or bool(words and words[0] == GATE_WORD)


def gate_threshold(args: argparse.Namespace, words: list[str] | None, rubric_threshold: float) -> (
    float | None
):  # fmt: skip
    """The threshold ``--gate estimate [X]`` holds the means to (None: no gate)."""
    if not words or words[0] != GATE_WORD:
        if words:
            raise InputError(None, "--estimate gates with 'estimate' only",
                             field="--gate", value=" ".join(words))  # fmt: skip
        return None
    if len(words) == 1:
        return rubric_threshold
    try:
        if len(words) == 2:
            return float(words[1])
    except ValueError:
        pass
    raise InputError(None, "estimate takes at most one number (the threshold)",
                     field="--gate", value=" ".join(words))  # fmt: skip


def run_estimate(
    args: argparse.Namespace,
    frame: pl.DataFrame,
    threshold: float,
    gate: float | None,
    judge_epoch: str | None = None,
) -> int:
    """Estimate, print (text or JSON), gate: the exit code (1: the gate failed)."""
    # the estimate (numpy, polars: 0.3 s of CPU): `toolkit --help` imports this module
    from toolkit.rubrics.estimate import estimate, gate_failures

    for flag in ("html", "junit"):
        if getattr(args, flag, None):
            raise InputError(None, "is not written for --estimate (yet)",
                             field=f"--{flag}", value=getattr(args, flag))  # fmt: skip
    probabilities = _draw_probabilities(args, frame)
    result = estimate(frame, judge=args.judge_id, threshold=threshold, by=args.by,
                      probabilities=probabilities, judge_epoch=judge_epoch)  # fmt: skip
    failures = gate_failures(result, frame, gate) if gate is not None else []
    if args.format == "json":
        data = result.to_dict()
        data["gate"] = (
            None if gate is None else {"threshold": gate, "passed": not failures,
                                       "reasons": failures}
        )  # fmt: skip
        print(json.dumps(data, indent=2))
    else:
        print(render_estimate_text(result))
    for line in failures:
        print(f"toolkit calibrate: gate estimate {gate:g}: {line}", file=sys.stderr)
    return 1 if failures else 0


def render_estimate_text(result: Estimate) -> str:
    """The estimate as a plain text table, one line per stratum and measure."""

    def span(mean: Any, low: Any, high: Any) -> str:
        if mean is None:
            return "-"
        if low is None:
            return f"{mean:.3f}"
        return f"{mean:.3f} [{low:.3f}, {high:.3f}]"

    head = ("stratum", "measure", "PPI++ estimate", "lam", "people only", "judge only",
            "rated", "unrated")  # fmt: skip
    rows = [head]
    notes: dict[str, list[str]] = {}
    for r in result.frame.iter_rows(named=True):
        where = "overall" if r["group"] == "all" else f"{r['group']}={r['value']}"
        rows.append((
            where, r["measure"], span(r["estimate"], r["low"], r["high"]),
            "-" if r["lam"] is None else f"{r['lam']:.2f}",
            span(r["people_mean"], r["people_low"], r["people_high"]),
            span(r["judge_mean"], r["judge_low"], r["judge_high"]),
            str(r["rated"]), str(r["unrated"]),
        ))  # fmt: skip
        if r["note"]:
            notes.setdefault(r["note"], []).append(f"{where} {r['measure']}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        f"Estimate: judge {result.judge!r}, pass = score >= {result.threshold:g}, "
        f"{result.confidence:.0%} intervals (digest {result.frame['digest'][0][:12]})"
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
              for row in rows]  # fmt: skip
    if result.unjudged:
        lines.append(f"  {result.unjudged} rated item(s) the judge did not score: left out")
    for note, strata in notes.items():
        shown = ", ".join(strata[:4]) + (f" and {len(strata) - 4} more" if len(strata) > 4 else "")
        lines.append(f"  {note} ({shown})")
    return "\n".join(lines)


def _draw_probabilities(args: argparse.Namespace, frame: pl.DataFrame) -> dict[str, float] | None:
    """Each judged item's probability of being rated, from ``--draws STORE`` (None
    without it): the draw's probability times the share of the drawn items rated."""
    path = getattr(args, "draws", None)
    if path is None:
        return None
    # the ratings store (sqlite3, polars: 0.17 s of CPU): `toolkit --help` imports this module
    import polars as pl

    from toolkit.ratings.store import RatingStore

    store = RatingStore(path, create=False)
    if store.draws().height == 0:
        raise InputError(path, "holds no recorded draw (a session created before draws were "
                         "recorded, or no session)", field="--draws")  # fmt: skip
    people = frame.filter(pl.col("rater").cast(pl.String) != args.judge_id)
    return store.rating_probabilities(people["item"].cast(pl.String).unique().to_list())
