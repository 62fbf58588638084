"""``toolkit experiment FILE...``: treatment vs control, Welch's t-test per metric."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from toolkit.cli._gate import add_gate_arguments, finish, markdown
from toolkit.errors import InputError
from toolkit.gate import checks_of

if TYPE_CHECKING:
    import polars as pl

    from toolkit.load.experiments import ExperimentScores
    from toolkit.rubrics.experiment import ExperimentRubric

#: ``--test`` choices: the rubric's two-group tests (``toolkit.rubrics.experiment.TESTS``,
#: which a test pins this to) and ANOVA; written out so ``--help`` imports no rubric.
TEST_CHOICES = ("welch", "student", "mannwhitney", "ks", "chisquare", "anova")


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha must be a number, not {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"--alpha must lie strictly between 0 and 1, not {text}")
    return value


def _pair(text: str) -> tuple[str, str]:
    old, sep, new = text.partition("=")
    if not sep or not old.strip() or not new.strip():
        raise argparse.ArgumentTypeError(f"expected OLD=NEW, not {text!r}")
    return old.strip(), new.strip()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``experiment`` subcommand."""
    p = sub.add_parser(
        "experiment",
        help="treatment vs control: Welch's t-test table per experiment and metric",
        description=(
            "Compare treatment and control scores with Welch's two-sided t-test and print a "
            "Table-1 style report (mean (sd) per group, difference, p with * when "
            "significant). FILE is a TinyTroupe results JSON or a tidy score table (.csv, "
            ".jsonl, .parquet); NAME=FILE names the experiment. Exit 0 when printed; with "
            "--gate, exit 1 when a metric fails it (with --reference: a conclusion that "
            "differs, FAIL, or cannot be decided, WARN under strict; a test that could not "
            "run, N/A, fails strict); exit 2 on bad input."
        ),
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="[NAME=]results file, or postgresql://…/DB of the-office (its experiments)",
    )
    p.add_argument("--alpha", type=_alpha, help="significance level (default: the rubric's, 0.05)")
    p.add_argument(
        "--reference",
        metavar="FILE",
        help="a reference table (JSON): adds the directional check (same sign, same significance)",
    )
    p.add_argument(
        "--rename",
        type=_pair,
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="report metric OLD under the name NEW (repeatable)",
    )
    p.add_argument(
        "--treatment-run",
        metavar="RUN",
        help="for score tables with a run column instead of group: the treatment run",
    )
    p.add_argument("--control-run", metavar="RUN", help="... and the control run")
    p.add_argument(
        "--test",
        choices=TEST_CHOICES,
        default="welch",
        help="the test of treatment vs control (default welch; Welch and Student's t also "
        "print the Shapiro-Wilk and Levene assumption checks); anova: one-way ANOVA over "
        "the control and every treatment of a file with 2+ treatment groups",
    )
    p.add_argument(
        "--format", choices=("table", "json", "latex", "html", "markdown"), default="table"
    )
    p.add_argument(
        "--rubric", metavar="FILE", help="a rubric YAML merged over the default rubric version"
    )
    add_gate_arguments(p, bare="strict", what="experiment", unit="metric")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load, test and print; the exit code follows the module docstring of toolkit.cli."""
    # The loaders, the rubric (scipy) and the views (polars): every toolkit call
    # imports this module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.load.experiments import load_reference_table
    from toolkit.rubrics.experiment import (
        DEFAULT_RUBRIC,
        assumption_checks,
        compare_to_reference,
        experiment_scorecards,
        experiment_stats,
        load_experiment_rubric,
    )
    from toolkit.views.experiment import (
        render_experiment_html,
        render_experiment_json,
        render_experiment_latex,
        render_experiment_text,
    )
    from toolkit.views.text import terminal_style

    rubric = load_experiment_rubric(args.rubric) if args.rubric else DEFAULT_RUBRIC
    groups = {}
    if args.treatment_run:
        groups[args.treatment_run] = "treatment"
    if args.control_run:
        groups[args.control_run] = "control"
    loaded = _load(args, groups)
    if loaded.scores.height == 0 and loaded.reported.height:
        return _office(args, loaded.reported, loaded.warnings, rubric)
    if loaded.scores.height == 0:
        raise InputError(None, "no scores in any of the files given")
    if args.test == "anova":
        return _anova(args, loaded.scores, rubric)
    stats = experiment_stats(loaded.scores, rubric, args.alpha, test=args.test)
    checks = None
    if args.test in ("welch", "student"):  # the t-tests' assumptions, checked beside them
        checks = assumption_checks(loaded.scores, rubric, args.alpha)
    direction = None
    if args.reference:
        direction = compare_to_reference(stats, load_reference_table(args.reference), rubric)
    cards = experiment_scorecards(stats, rubric, direction)
    gate_checks = [c for card in cards for c in checks_of(card)]
    if args.format == "markdown":
        print(markdown(args, "experiment", cards, gate_checks, notes=loaded.warnings), end="")
    elif args.format == "json":
        print(render_experiment_json(stats, rubric, direction, loaded.warnings, checks))
    elif args.format == "latex":
        print(render_experiment_latex(stats, rubric, direction))
    elif args.format == "html":
        print(render_experiment_html(stats, rubric, direction))
    else:
        width, _ = terminal_style()
        print(
            render_experiment_text(stats, rubric, direction, loaded.warnings, checks, width=width)
        )
    return finish(args, "experiment", cards, gate_checks)


def _load(args: argparse.Namespace, groups: dict[str, str]) -> ExperimentScores:
    """The files' scores and, for a postgresql:// argument, the experiments of
    the-office's database (every one, each its own experiment)."""
    # polars and the loaders (the database driver only for a URL): as in run.
    import polars as pl

    from toolkit.io.source import is_postgres_url
    from toolkit.load.experiments import ExperimentScores, load_experiments
    from toolkit.load.persona.office_tables import load_office_experiments

    urls = [f for f in args.files if is_postgres_url(f)]
    files = [f for f in args.files if f not in urls]
    parts = [load_office_experiments(url) for url in urls]
    if args.rename:
        parts = [
            replace(p, scores=p.scores.with_columns(pl.col("metric").replace(dict(args.rename))))
            for p in parts
        ]
    if files:
        parts.append(load_experiments(files, groups=groups or None, rename=dict(args.rename)))
    if len(parts) == 1:
        return parts[0]
    return ExperimentScores(
        scores=pl.concat([p.scores for p in parts], how="vertical"),
        reported=pl.concat([p.reported for p in parts], how="vertical"),
        warnings=tuple(w for p in parts for w in p.warnings),
        sources={k: v for p in parts for k, v in (p.sources or {}).items()},
    )


def _anova(args: argparse.Namespace, scores: pl.DataFrame, rubric: ExperimentRubric) -> int:
    # The rubric (scipy) and the views (polars): as in run.
    from toolkit.rubrics.experiment import anova_stats
    from toolkit.views.experiment import render_anova_json, render_anova_text
    from toolkit.views.text import terminal_style

    if args.format not in ("table", "json"):
        raise InputError(None, "--test anova prints a table or JSON", field="--format",
                         value=args.format)  # fmt: skip
    if args.gate is not None or args.junit:
        raise InputError(
            None, "the gate judges two-group tests (treatment vs control), not --test anova",
            field="--gate" if args.gate is not None else "--junit", value=args.gate or args.junit,
        )  # fmt: skip
    if args.reference:
        raise InputError(
            args.reference, "the directional check compares two groups; not with --test anova",
            field="--reference", value=args.reference,
        )  # fmt: skip
    anova = anova_stats(scores, rubric, args.alpha)
    print(
        render_anova_json(anova, rubric)
        if args.format == "json"
        else render_anova_text(anova, rubric, width=terminal_style()[0])
    )
    return 0


def _office(
    args: argparse.Namespace, reported: pl.DataFrame, warnings: tuple[str, ...],
    rubric: ExperimentRubric,
) -> int:  # fmt: skip
    """the-office experiment runner reports: their own numbers (no scores to test again)
    and, with ``--reference``, per metric whether the direction matches and the share of
    the reference's significant findings reproduced."""
    # the loaders, the rubric and the views (polars, scipy): as in run
    from toolkit.load.experiments import load_reference_table
    from toolkit.rubrics.experiment.office import office_reproduction
    from toolkit.views.office_experiment import (
        render_office_report_json,
        render_office_report_text,
    )

    if args.format not in ("table", "json"):
        raise InputError(None, "a the-office experiment report prints as a table or JSON",
                         field="--format", value=args.format)  # fmt: skip
    if args.gate is not None or args.junit or args.test != "welch":
        flag = "--test" if args.test != "welch" else ("--gate" if args.gate else "--junit")
        raise InputError(
            None, "a the-office experiment report carries its test's results, not its scores",
            field=flag, value=args.test if flag == "--test" else (args.gate or args.junit),
        )  # fmt: skip
    alpha = rubric.alpha if args.alpha is None else args.alpha
    reproduction = None
    if args.reference:
        reference = load_reference_table(args.reference)
        reproduction = office_reproduction(reported, reference, rubric, alpha)
    if args.format == "json":
        print(render_office_report_json(reported, alpha, reproduction, warnings))
    else:
        print(render_office_report_text(reported, rubric, alpha, reproduction, warnings))
    return 0
