"""``toolkit compare A B``: is version B better than A, dimension by dimension?

Scores both folders with their family's rubric (told from the folder, or --family),
pairs the runs by unit (simulation: the scenario or seed in universe.yaml, else the
slug; outcome: the iteration's task; discussion: the game id; persona: proposition x
agent), and prints per dimension both means, B - A with a seeded bootstrap interval,
Wilcoxon's signed-rank test (or the paired t-test), the effect size and the
Holm-corrected p-value; pass/fail outcomes get a flip table, McNemar's exact test and
pass^k. A difference below the noise floor of A's repeated runs is "within noise".

``toolkit compare --pass-k FILE|DIR`` gives pass^1 .. pass^n of one set of runs, each with
its bootstrap interval over tasks: a CSV or JSONL file of trials (columns task, trial and
reward or passed; a reward passes within 1e-6 of 1, as in tau-bench) or a folder of runs
(eval-harness runs: a trial passes when verify.passed is true).

``toolkit compare --estimate A_SCORES B_SCORES`` compares two versions on a judged metric
(two calibration score files: item, rater, score, the judge on every item and people on
some): each arm's PPI++ estimate of the people's mean and pass rate, and B - A with an
interval that carries the judges' errors (docs/rubrics/estimate.md). Or two folders of
judged runs (persona chats with --propositions, discussion games) with each arm's
people's ratings: ``toolkit compare --estimate A B --judge SPEC --ratings-a FILE
--ratings-b FILE``: each arm judged on every item, its ratings correcting it.

``toolkit compare --plan A --mde 0.05`` tells how many pairs per arm find a difference
of 0.05 with 80% power, from the pilot set A.

Exit codes: 0 printed; 1 ``--gate no-regression[:DIM,...]`` found a dimension
significantly worse in B after correction (one stderr line each, with its interval);
2 bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from toolkit.cli import help_text
from toolkit.cli._output import write_output
from toolkit.cli._run_args import add_run_arguments
from toolkit.cli._scale import add_scale_arguments, storage_options
from toolkit.errors import InputError
from toolkit.gate import REGRESSION_KIND, Check, kind_of

FORMATS = ("table", "json", "html", "markdown")


def _mde(text: str) -> tuple[float, bool]:
    """``0.05`` (the dimension's units) or ``0.5sd`` (standard deviations)."""
    standardized = text.lower().endswith("sd")
    try:
        value = float(text[:-2] if standardized else text)
    except ValueError:
        raise InputError(
            None, "must be a number, or a number of SDs such as 0.5sd", field="--mde", value=text
        ) from None
    if not (value > 0 and math.isfinite(value)):  # inf would print Infinity in JSON
        raise InputError(None, "must be a positive, finite difference", field="--mde", value=text)
    return value, standardized


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` subcommand."""
    p = sub.add_parser(
        "compare",
        help="is version B better than A? paired comparison of two sets of runs",
        description=help_text(__doc__),
    )
    p.add_argument("arms", nargs="*", metavar="A B", help="the two folders (or URLs) of runs")
    p.add_argument(
        "--family",
        default="auto",
        help="auto (default: told from each folder), simulation, outcome, discussion, persona",
    )
    p.add_argument("--pair-by", metavar="FIELD", help="pair by this key instead (e.g. seed, slug)")
    p.add_argument("--seed", type=int, default=0, help="seeds the bootstrap (default 0)")
    p.add_argument("--resamples", type=int, help="bootstrap resamples (the rubric's: 9999)")
    p.add_argument("--test", default="wilcoxon", help="wilcoxon (default) or t (paired t-test)")
    p.add_argument("--correction", default="holm", help="holm (default) or bh")
    p.add_argument("--alpha", type=float, help="significance level (the rubric's: 0.05)")
    p.add_argument(
        "--rubric", metavar="FILE", help="a compare rubric YAML over 1.1.0 (directions, alpha)"
    )
    p.add_argument(
        "--gate",
        metavar="no-regression[:DIM,...]",
        help="exit 1 when a dimension (of those named) is significantly worse in B",
    )
    p.add_argument(
        "--junit",
        metavar="FILE",
        help="write a JUnit XML report: one test case per dimension (a failure: significantly "
        "worse in B, of the dimensions --gate names)",
    )
    p.add_argument("--plan", metavar="A", help="plan a comparison from the pilot set A")
    p.add_argument(
        "--pass-k",
        metavar="FILE|DIR",
        dest="pass_k",
        help="pass^1..k with intervals of one set of runs: a CSV/JSONL of task, trial, "
        "reward or passed, or a folder of runs",
    )
    p.add_argument("--mde", help="with --plan: the difference to find (e.g. 0.05, or 0.5sd)")
    p.add_argument("--power", type=float, default=0.8, help="with --plan: the power (0.8)")
    p.add_argument("--format", choices=FORMATS, default="table")
    add_run_arguments(p)
    p.add_argument(
        "--judge",
        metavar="SPEC",
        help="persona (and --estimate over discussion games): the judge (recorded:CASSETTE, ...)",
    )
    p.add_argument(
        "--rubric-a",
        metavar="FILE",
        help="simulation/outcome/persona: the rubric arm A is scored with (default: the family's)",
    )
    p.add_argument(
        "--rubric-b",
        metavar="FILE",
        help="simulation/outcome/persona: the rubric arm B is scored with (default: the family's)",
    )
    p.add_argument(
        "--across-epochs",
        action="store_true",
        help="compare arms scored under different epochs (rubric, parameters, "
        "judge or toolkit version), saying what differs; refused without it",
    )
    _add_estimate_arguments(p)
    add_scale_arguments(p)
    p.set_defaults(func=run)


def _add_estimate_arguments(p: argparse.ArgumentParser) -> None:
    """``--estimate`` with ``--judge-id`` and ``--threshold``."""
    group = p.add_argument_group("a judged metric on the people's scale (PPI++ per arm)")
    group.add_argument(
        "--estimate",
        action="store_true",
        help="A and B are calibration score files (item, rater, score: the judge on every "
        "item, people on some): B - A of the PPI++ estimates, the judges' errors in its interval",
    )
    group.add_argument("--judge-id", default="judge", help="with --estimate: the judge's rater id")
    group.add_argument(
        "--threshold",
        type=float,
        help="with --estimate: pass = score >= this (5; discussion engagement: 3)",
    )
    group.add_argument(
        "--ratings-a",
        metavar="FILE",
        help="with --estimate and A, B folders of persona or discussion runs: people's "
        "ratings of arm A's items (persona: the session's ratings store or export; "
        "discussion: game_id, rater, score); the judge (--judge) scores every item",
    )
    group.add_argument(
        "--ratings-b", metavar="FILE", help="with --estimate: people's ratings of arm B's items"
    )


def _load_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "engine": args.engine,
        "scheduler": args.scheduler,
        "partition_size": args.partition_size,
        "cache": args.cache,
        "storage_options": storage_options(args),
        "window": args.window,
        "ratings": args.ratings,
        "propositions": args.propositions,
        "judge": args.judge,
        "personas": args.personas,
    }


def run(args: argparse.Namespace) -> int:
    """Score, compare, print; the gate decides the exit code."""
    # The loaders, the rubrics and the views (polars, the statistics): every toolkit
    # call imports this module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.fleet.compare import compare
    from toolkit.rubrics.compare import gate_failures, parse_gate
    from toolkit.views import compare as views
    from toolkit.views.text import terminal_style, wrap_item

    width, colour = terminal_style()
    if args.pass_k is not None:
        return _pass_k(args, width)
    if args.plan is not None:
        return _plan(args, width)
    if args.estimate:
        return _estimate(args)
    if len(args.arms) != 2:
        raise InputError(None, f"give two folders, A and B (got {len(args.arms)}), or --plan A")
    if args.ratings_a or args.ratings_b:
        raise InputError(None, "goes with --estimate (people's ratings per arm)",
                         field="--ratings-a" if args.ratings_a else "--ratings-b",
                         value=args.ratings_a or args.ratings_b)  # fmt: skip
    if args.mde is not None:
        raise InputError(None, "--mde goes with --plan A", field="--mde", value=args.mde)
    gated = parse_gate(args.gate) if args.gate else None
    result = compare(
        args.arms[0], args.arms[1], family=args.family, pair_by=args.pair_by, test=args.test,
        correction=args.correction, alpha=args.alpha, seed=args.seed,
        resamples=args.resamples, rubric=args.rubric, **_load_options(args),
        rubric_a=args.rubric_a, rubric_b=args.rubric_b, across_epochs=args.across_epochs,
    )  # fmt: skip
    failures = gate_failures(result, gated) if args.gate else []
    if args.format == "json":
        print(views.render_compare_json(result))
    elif args.format == "html":
        print(views.render_compare_page(result))
    elif args.format == "markdown":
        print(views.render_compare_markdown(result))
    else:
        print(views.render_compare_text(result, width=width, colour=colour))
    _ci_outputs(args, result, gated)
    err_width, _ = terminal_style(sys.stderr)  # a terminal: wrapped between words
    for line in failures:
        for part in wrap_item(line, err_width, bullet="toolkit compare: gate: ", indent=2):
            print(part, file=sys.stderr)
    return 1 if failures else 0


def _pass_k(args: argparse.Namespace, width: int | None) -> int:
    """``--pass-k FILE|DIR``: pass^1..k of one set of runs, with intervals."""
    # polars and the statistics: as in run.
    from toolkit.fleet.compare import pass_k_of
    from toolkit.views.compare import render_pass_k_markdown, render_pass_k_text

    if args.arms or args.plan or args.gate or args.mde is not None:
        raise InputError(None, "--pass-k takes one file or folder (no A B, --plan or --gate)",
                         field="--pass-k", value=args.pass_k)  # fmt: skip
    if args.format == "html":
        raise InputError(None, "--pass-k prints table, json or markdown", field="--format",
                         value=args.format)  # fmt: skip
    result = pass_k_of(
        args.pass_k, family=args.family, resamples=args.resamples, seed=args.seed,
        rubric=args.rubric, **_load_options(args),
    )  # fmt: skip
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2))
    elif args.format == "markdown":
        print(render_pass_k_markdown(result))
    else:
        print(render_pass_k_text(result, width=width))
    return 0


def _estimate(args: argparse.Namespace) -> int:
    """``--estimate A_SCORES B_SCORES``: B - A of two PPI++ estimates, with intervals."""
    # the loader, the estimate and the view (polars, numpy): as in run.
    from toolkit.load.calibration import load_calibration_scores
    from toolkit.rubrics.estimate import estimate_difference
    from toolkit.views.compare import render_estimate_difference_text

    if len(args.arms) != 2 or args.gate:
        raise InputError(None, "--estimate takes two score files, A and B (no --gate)",
                         field="--estimate", value=" ".join(args.arms))  # fmt: skip
    if args.format not in ("table", "json"):
        raise InputError(None, "--estimate prints table or json", field="--format",
                         value=args.format)  # fmt: skip
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise InputError(None, "must be a finite number", field="--threshold",
                         value=args.threshold)  # fmt: skip
    epochs: tuple[str | None, str | None] = (None, None)
    notes: list[str] = []
    if args.ratings_a or args.ratings_b:  # two folders of judged runs, rated per arm
        frames, threshold, epochs, notes = _judged_arms(args)
    else:
        frames = [load_calibration_scores(path) for path in args.arms]  # 0-9, as calibrate
        threshold = 5.0 if args.threshold is None else args.threshold
    result = estimate_difference(
        frames[0], frames[1], judge=args.judge_id, threshold=threshold,
        labels=(args.arms[0], args.arms[1]), epochs=epochs, notes=notes,
    )  # fmt: skip
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        print(render_estimate_difference_text(result))
    return 0


def _judged_arms(
    args: argparse.Namespace,
) -> tuple[list[Any], float, tuple[str | None, str | None], list[str]]:
    """``--estimate A B --ratings-a FILE --ratings-b FILE``: each arm's calibration frame
    (the judge on every item, the arm's people on some), the pass threshold (the
    family's unless --threshold), each arm's epoch and the fence's notes (arms of two
    epochs refused unless --across-epochs, as compare refuses them)."""
    # the judged families' loaders and rubrics (polars, pydantic): as in run.
    from toolkit.fleet.estimate_arms import PASS_AT, estimate_fence, judged_arm, judged_family

    if not (args.ratings_a and args.ratings_b):
        given = "--ratings-a" if args.ratings_a else "--ratings-b"
        raise InputError(
            None, "the folder form needs both arms' ratings (--ratings-a and --ratings-b)",
            field=given, value=args.ratings_a or args.ratings_b,
        )  # fmt: skip
    families = [judged_family(arm, args.family) for arm in args.arms]
    if families[0] != families[1]:
        raise InputError(None, f"A holds {families[0]} runs and B {families[1]} runs",
                         field="--family", value=args.family)  # fmt: skip
    arms = [
        judged_arm(
            arm, ratings, families[0], judge=args.judge, propositions=args.propositions,
            personas=args.personas, judge_id=args.judge_id, rubric=rubric,
        )
        for arm, ratings, rubric in zip(args.arms, (args.ratings_a, args.ratings_b),
                                        (args.rubric_a, args.rubric_b), strict=True)
    ]  # fmt: skip
    notes = estimate_fence(arms[0], arms[1], args.across_epochs)
    threshold = PASS_AT[families[0]] if args.threshold is None else args.threshold
    return [a.frame for a in arms], threshold, (arms[0].epoch.id, arms[1].epoch.id), notes


def _plan(args: argparse.Namespace, width: int | None) -> int:
    """``--plan A --mde D``: how many pairs per arm find D, from the pilot set A."""
    # polars and the statistics: as in run.
    from toolkit.fleet.compare import compare_plan
    from toolkit.views.compare import render_plan_text

    if args.arms or args.gate:
        raise InputError(None, "--plan takes one pilot set and no B (or --gate)",
                         field="--plan", value=args.plan)  # fmt: skip
    if args.mde is None:
        raise InputError(None, "--plan needs --mde (the difference to find)")
    mde, standardized = _mde(args.mde)
    alpha = args.alpha if args.alpha is not None else 0.05
    for flag, value in (("--power", args.power), ("--alpha", alpha)):
        if not 0 < value < 1:  # inf and nan included
            raise InputError(None, "must be between 0 and 1", field=flag, value=value)
    table = compare_plan(
        args.plan, mde, family=args.family, standardized=standardized, power=args.power,
        alpha=alpha, test=args.test, **_load_options(args),
    )  # fmt: skip
    if args.format == "json":
        rows = [{k: _finite(v) for k, v in row.items()} for row in table.to_dicts()]
        print(json.dumps(rows, indent=2, allow_nan=False))
    else:
        print(render_plan_text(table, label=args.plan, power=args.power,
                               alpha=alpha,
                               test=args.test, width=width))  # fmt: skip
    return 0


def _finite(value: Any) -> Any:
    """A number JSON can hold: an infinite or undefined float is null (never
    ``Infinity`` or ``NaN``, which JSON does not have)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _ci_outputs(args: argparse.Namespace, result: Any, gated: Sequence[str] | None) -> None:
    """The CI outputs every scoring command writes (:mod:`toolkit.cli._gate`): ``--junit``
    (one test case per dimension; a dimension significantly worse in B, of those the gate
    names, is a ``REGRESSION`` and fails) and the Markdown appended to
    ``$GITHUB_STEP_SUMMARY`` when that is set."""
    if args.junit:
        _junit(args, result, gated)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # The views (polars): not paid by --help (tests/test_startup_imports.py).
        from toolkit.views.compare import render_compare_markdown

        try:  # one write in append mode, as every scoring command appends
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(render_compare_markdown(result) + "\n")
        except OSError as exc:
            raise InputError(summary, f"cannot append the step summary ({exc.strerror})") from None


def _junit(args: argparse.Namespace, result: Any, gated: Sequence[str] | None) -> None:
    """``--junit FILE``: written atomically on this machine, or put to a URL through its
    Source."""
    # the JUnit view: 21 ms, only with --junit
    from toolkit.views.junit import render_junit

    subject = f"{result.labels[0]} vs {result.labels[1]}"
    checks = []
    for r in result.dimensions.iter_rows(named=True):
        worse = r["outcome"] == "worse" and (gated is None or r["dimension"] in gated)
        status = "REGRESSION" if worse else "OK"
        detail = f"{r['outcome']}: B - A = {r['diff']}, adjusted p = {r['p_adj']}"
        kind = REGRESSION_KIND if worse else kind_of(status)
        checks.append(Check(subject, r["dimension"], r["dimension"], status, kind,
                            r["diff"], detail))  # fmt: skip
    xml = render_junit(checks, suite="toolkit compare", rubric="compare",
                       rubric_version=result.version,
                       mode="regression" if args.gate else "none")  # fmt: skip
    write_output(args.junit, xml, "the JUnit report", storage_options(args))
