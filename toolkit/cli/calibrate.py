"""``toolkit calibrate SCORES_FILE``: can we trust the judge? The judge held against humans.

Reads scores of shared items (CSV or JSON: item, rater, score, plus optional group
columns such as agent or dimension; the judge is one rater id, --judge-id) and prints
Krippendorff's alpha among the humans and with the judge added, the humans'
leave-one-out band and whether replacing each human by the judge stays inside it,
Spearman and quadratic weighted kappa, the judge's bias (judge - human mean) overall
and per group with a seeded bootstrap interval, the confusion table at the pass
threshold, and the items the judge and the humans disagree on most; beside the band
the alternative-annotator test (Calderon et al. 2025: leave-one-rater-out, winning rate,
--alt-epsilon).

With ``--junit FILE`` a JUnit report, and under GitHub Actions the Markdown appended to
``$GITHUB_STEP_SUMMARY``, as every scoring command writes them; ``--html OUT.html`` one
offline page with the charts and the disagreements side by side.

Or over a rated persona session (``toolkit rate CHATS --propositions DIR``):
``--persona CHATS --propositions DIR --ratings STORE_OR_CSV --judge recorded:CASSETTE``
rebuilds the session's items from the chats, replays the judge from the cassette
(no judge is called) and refuses a rating of a text that has changed since; or over
judged games: ``--discussion GAMES --ratings FILE --judge SPEC`` (engagement, 1-5); or
over an agent iteration log: ``--outcome LOG_DIR`` holds the automated outcome score (or
one signal, ``--outcome-signal``) against the reviewers' labels in its
``iter-N.labels.yaml`` files (0-1).

With ``--estimate`` (``--by COLUMN``): the PPI++ estimate of the people's mean score and
pass rate from the judge on every item and people's ratings of some, beside judge-only
and people-only, with intervals; ``--gate estimate [X]`` exits 1 when a mean's interval
is not wholly at or above X (``--threshold``), saying how many more ratings decide it.

Exit codes: 0 printed; 1 ``--gate min-alpha [X]`` failed (one stderr line per reason);
2 bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.cli import help_text
from toolkit.cli._alt_test import add_alt_test_arguments, alt_test_section, run_alt_test
from toolkit.cli._estimate import (
    add_estimate_arguments,
    gate_threshold,
    run_estimate,
    wants_estimate,
)
from toolkit.cli._gate import finish
from toolkit.cli._judge import add_argument_once, add_judge_arguments, judge_of
from toolkit.cli._output import local_target
from toolkit.errors import InputError
from toolkit.gate import checks_of

if TYPE_CHECKING:
    import polars as pl

    from toolkit.rubrics.alt_test import AltTest
    from toolkit.rubrics.calibrate import CalibrateRubric, Calibration

FORMATS = ("table", "json", "markdown")
#: The seeds taken (numpy's and SciPy's legacy seeds stop at 2**32 - 1).
SEED_LIMIT = 2**32


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``calibrate`` subcommand."""
    p = sub.add_parser(
        "calibrate",
        help="can we trust the judge? an LLM judge held against human raters",
        description=help_text(__doc__),
    )
    p.add_argument(
        "scores",
        nargs="?",
        metavar="SCORES_FILE",
        help="CSV or JSON: item, rater, score[, group...][, reasoning, notes, evidence, "
        "source, anchor, text_sha256]",
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
    ci = p.add_argument_group("CI")
    ci.add_argument(
        "--gate",
        nargs="+",
        metavar=("min-alpha", "X"),
        help="exit 1 when the humans' alpha, or alpha with a human replaced by the judge, "
        "is below X (default 0.667) or below the humans' leave-one-out band, naming why on "
        "stderr (calibrate's own gate word: the scoring commands' strict, fail-only, "
        "regression do not apply to a calibration)",
    )
    ci.add_argument(
        "--junit",
        metavar="FILE",
        help="write a JUnit XML report: one test case for the humans' alpha and one per "
        "human replaced by the judge",
    )
    p.add_argument("--format", choices=FORMATS, default="table")
    p.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write one standalone HTML page (offline: no script, no CDN): the numbers, "
        "the band and bias charts, the confusion table and the disagreements side by side",
    )
    _add_discussion_arguments(p)
    _add_persona_arguments(p)
    _add_outcome_arguments(p)
    add_estimate_arguments(p)
    add_alt_test_arguments(p)
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
    # the statistics (numpy, polars, pydantic: 0.36 s of CPU): `toolkit --help` imports this
    from toolkit.rubrics.calibrate import calibrate, gate_failures, parse_gate

    words = _gate_words(args)
    games = getattr(args, "discussion", None)
    rubric = _rubric(games)
    if wants_estimate(args, words):  # the PPI++ estimate instead of the calibration
        _check_arguments(args, games)
        # the judge's scores on unrated items too: they are what narrow the estimate
        judge_epoch: str | None
        if getattr(args, "outcome", None) is not None:  # the outcome score against labels
            frame, _, _, rubric, judge_epoch = _outcome_scores(args, unrated=True)
        else:
            frame, _, _, judge_epoch = _scores(args, rubric, games, unrated=True)
        rubric = _rubric_asked(args, rubric)
        gate = gate_threshold(args, words, rubric.threshold)
        return run_estimate(args, frame, rubric.threshold, gate, judge_epoch)
    min_alpha = parse_gate(words, rubric) if words is not None else None
    _check_arguments(args, games)
    if args.html:  # a page only this machine can hold: a URL is refused before any work
        _page_path(args)
    epoch: str | None
    if getattr(args, "outcome", None) is not None:
        frame, label, sources, rubric, epoch = _outcome_scores(args)
    else:
        frame, label, sources, epoch = _scores(args, rubric, games)
    rubric = _rubric_asked(args, rubric)
    result = calibrate(frame, judge=args.judge_id, rubric=rubric, seed=args.seed, judge_epoch=epoch)
    failures = gate_failures(result, min_alpha) if min_alpha is not None else []
    alt = _print(args, result, frame, label, min_alpha, failures, sources)
    if args.html:
        _write_page(args, result, label, min_alpha, failures, alt)
    return _finish(args, result, label, min_alpha, failures, alt)


def _rubric(games: list[str] | None) -> CalibrateRubric:
    """The calibration rubric: the judge's engagement of games against people's ratings
    (``--discussion``) is on the 1-5 scale; anything else on the default rubric's."""
    # the statistics and the judged rubric (numpy, polars, pydantic: 0.39 s of CPU):
    # `toolkit --help` imports this module
    from toolkit.rubrics.calibrate import DEFAULT_CALIBRATE_RUBRIC

    if games:
        from toolkit.rubrics.discussion import engagement_calibrate_rubric

        return engagement_calibrate_rubric()
    return DEFAULT_CALIBRATE_RUBRIC


def _check_arguments(args: argparse.Namespace, games: list[str] | None) -> None:
    """One input (SCORES_FILE, --discussion or --persona), a finite --threshold, a --top
    of 0 or more."""
    if args.scores is not None and games:
        raise InputError(None, "give SCORES_FILE or --discussion GAMES, not both",
                         field="SCORES_FILE", value=args.scores)  # fmt: skip
    if args.scores is not None and getattr(args, "outcome", None) is not None:
        raise InputError(None, "give SCORES_FILE or --outcome LOG_DIR, not both",
                         field="SCORES_FILE", value=args.scores)  # fmt: skip
    if args.scores is None and not games and args.persona is None and args.outcome is None:
        raise InputError(None, "give the scores file (CSV or JSON)", field="SCORES_FILE")
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise InputError(None, "must be a finite number", field="--threshold", value=args.threshold)
    if args.top < 0:
        raise InputError(None, "must be 0 or more", field="--top", value=args.top)
    if not 0 <= args.seed < SEED_LIMIT:
        raise InputError(None, f"must be from 0 to {SEED_LIMIT - 1:,}", field="--seed",
                         value=args.seed)  # fmt: skip


def _rubric_asked(args: argparse.Namespace, rubric: CalibrateRubric) -> CalibrateRubric:
    """``rubric`` with --threshold and --level (then versioned ``+cli``)."""
    changes: dict[str, object] = {}
    if args.threshold is not None:
        changes["threshold"] = args.threshold
    if args.level is not None:
        changes["level"] = args.level
    if changes:  # a threshold changed on the command line is not rubric 1.0.0
        rubric = rubric.model_copy(update=changes | {"version": f"{rubric.version}+cli"})
    return rubric


def _scores(
    args: argparse.Namespace,
    rubric: CalibrateRubric,
    games: list[str] | None,
    unrated: bool = False,
) -> tuple[pl.DataFrame, str, list[tuple[str, str]], str | None]:
    """(the calibration frame, its label, the sources named by the text, the judge's
    epoch: None for a scores file, which does not say) of SCORES_FILE, of --discussion
    games judged or of a --persona session (``unrated``: with the judge's scores on the
    items nobody rated, for the estimate; the discussion frame always has them)."""
    sources: list[tuple[str, str]]
    epoch: str | None = None
    if games or args.persona is not None:
        frame, epoch = _discussion_scores(args) if games else _persona_frame(args, unrated)
        inputs = ", ".join(str(g) for g in (games or args.persona))
        # The page, the Markdown and JUnit name it in one line; the text names each part.
        label = f"judge {args.judge} on {inputs}" if games else str(args.ratings)
        sources = [("judge", str(args.judge)), ("games" if games else "chats", inputs)]
        sources.append(("ratings", str(args.ratings)))
    else:
        # the scores' loader (polars, pydantic: 0.20 s of CPU): `toolkit --help` imports this
        from toolkit.load.calibration import load_calibration_scores

        frame = load_calibration_scores(args.scores, (rubric.scale_min, rubric.scale_max))
        label = args.scores
        sources = [("scores", str(args.scores))]
    return frame, label, sources, epoch


def _print(
    args: argparse.Namespace,
    result: Calibration,
    frame: pl.DataFrame,
    label: str,
    min_alpha: float | None,
    failures: list[str],
    sources: list[tuple[str, str]],
) -> AltTest:
    """Print the calibration as --format asks (JSON with the gate's decision), with the
    alternative-annotator test of ``frame`` beside the band (text, JSON and Markdown);
    the test, for the page and the CI outputs."""
    alt = run_alt_test(args, frame)  # the alternative-annotator test, beside the band
    if args.format == "json":
        data = result.to_dict(top=args.top)
        data["alt_test"] = alt.to_dict()
        data["gate"] = (
            None
            if min_alpha is None
            else {"min_alpha": min_alpha, "passed": not failures, "reasons": failures}
        )
        print(json.dumps(_finite(data), indent=2, allow_nan=False))
        return alt
    # the calibration's text views (textwrap and the shared helpers: 8 ms of CPU, against
    # `toolkit --help`'s 60 ms): --help imports this module
    from toolkit.views.calibration import (
        render_calibration_markdown,
        render_calibration_table,
    )

    if args.format == "markdown":
        print(render_calibration_markdown(result, label, args.top, min_alpha, failures, alt))
    else:
        print(
            render_calibration_table(
                result,
                label,
                args.top,
                min_alpha,
                failures,
                sources=sources,
                beside_band=alt_test_section(alt),
            )
        )
    return alt


def _finite(value: Any) -> Any:
    """``value`` with every infinite or undefined float as null: JSON has no
    ``Infinity`` or ``NaN``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _page_path(args: argparse.Namespace) -> Path:
    """``--html``'s local path (refused for a URL: the page links relative to its folder)."""
    return local_target(args.html, "--html", "the page (its links are relative to its folder)")


def _write_page(
    args: argparse.Namespace,
    result: Calibration,
    label: str,
    min_alpha: float | None,
    failures: list[str],
    alt: AltTest,
) -> None:
    """``--html OUT.html``: the one offline page, written atomically."""
    # the page (polars: 0.17 s of CPU) and atomic writes (tempfile, random: 3 ms of CPU):
    # `toolkit --help` imports this module
    from toolkit.io.atomic import write_text_atomic
    from toolkit.views.calibration_page import render_calibration_page

    out = _page_path(args)
    page = render_calibration_page(
        result, label, top=args.top, min_alpha=min_alpha, failures=failures,
        base=out.parent, alt_test=alt,
    )  # fmt: skip
    try:
        write_text_atomic(out, page)
    except OSError as exc:
        raise InputError(args.html, f"cannot write the page ({exc.strerror})") from None


def _finish(
    args: argparse.Namespace,
    result: Calibration,
    label: str,
    min_alpha: float | None,
    failures: list[str],
    alt: AltTest,
) -> int:
    """The CI outputs every scoring command writes (:func:`toolkit.cli._gate.finish`):
    ``--junit``, the Markdown appended to ``$GITHUB_STEP_SUMMARY`` (with the
    disagreements side by side), one stderr line per reason the gate failed; the exit
    code (1: the gate failed)."""
    # the calibration's views (polars, pydantic: 0.36 s of CPU): `toolkit --help` imports
    # this module
    from toolkit.views.calibration import render_calibration_markdown
    from toolkit.views.calibration_alt import alt_test_properties
    from toolkit.views.calibration_gate import gate_scorecard

    reference = result.rubric.min_alpha if min_alpha is None else min_alpha
    card = gate_scorecard(result, reference, f"{result.judge} on {label}")
    details = ""
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        details = render_calibration_markdown(result, label, args.top, min_alpha, failures, alt)
    return finish(
        args,
        "calibrate",
        [card],
        checks_of(card),
        gate=None if min_alpha is None else f"min-alpha {min_alpha:g}",
        per_check=True,
        details=details,
        properties=alt_test_properties(alt),
    )


# -- judged discussions: the engagement judge held against people's ratings ------------


def _add_discussion_arguments(p: argparse.ArgumentParser) -> None:
    """``--discussion GAMES --ratings FILE --judge SPEC [--metric engagement]``: the
    scores come from judging the games and from people's ratings of the same games."""
    group = p.add_argument_group("judged discussions (instead of SCORES_FILE)")
    add_argument_once(
        p,
        group,
        "--discussion",
        nargs="+",
        metavar="GAMES",
        help="Mafia games (transcripts, exports, .db, folders, postgresql:// databases): the "
        "judge rates each game's "
        "engagement (1-5) and is held against --ratings",
    )
    add_argument_once(
        p,
        group,
        "--ratings",
        metavar="FILE",
        help="people's ratings: with --discussion their engagement ratings (CSV/JSON "
        "game_id,rater,score[,notes] or the SQLite ratings store); with --persona the "
        "session's ratings store (ratings.db) or its CSV or JSON export",
    )
    add_argument_once(
        p,
        group,
        "--metric",
        choices=("engagement",),
        default="engagement",
        help="with --discussion: the judged metric people also rate (engagement)",
    )
    add_judge_arguments(
        p,
        required=False,
        judge_help="with --discussion or --persona: the judge, recorded:CASSETTE (no call) "
        "or anthropic:MODEL / openai:MODEL (live; --record keeps its answers)",
    )


def _discussion_scores(args: argparse.Namespace) -> tuple[pl.DataFrame, str]:
    """The calibration frame of ``--discussion``: the judge's engagement per game and
    people's ratings of the same games (with notes, reasoning, evidence, source, anchor);
    and the judge's epoch (a short hash of its basis, :mod:`toolkit.epoch`).

    Raises:
        InputError: ``--ratings`` or ``--judge`` missing, or what the loaders refuse.
    """
    # the loaders and the judged rubric (polars, pydantic: 0.4 s of CPU): `toolkit --help`
    # imports this module
    from toolkit.epoch import short_hash
    from toolkit.load.discussion import load_discussions
    from toolkit.load.ratings import open_rating_source
    from toolkit.rubrics.discussion import (
        engagement_calibration_scores,
        judge_discussion,
    )

    for flag, value in (("--ratings", args.ratings), ("--judge", args.judge)):
        if not value:
            raise InputError(None, "--discussion needs it", field=flag, value=None)
    games = load_discussions(args.discussion)
    ratings = open_rating_source(args.ratings)
    judged = judge_discussion(
        games,
        judge_of(args),
        metrics=[args.metric],
        double_check=args.double_check,
        concurrency=args.judge_concurrency,
        max_cost=args.max_cost,
        prices=args.prices,
        progress=False if args.no_progress else None,
    )
    frame = engagement_calibration_scores(judged, games, ratings, judge_id=args.judge_id)
    return frame, short_hash(dict(judged.basis))


# -- a rated persona session: the judge held against people's ratings of the same items --


def _add_persona_arguments(p: argparse.ArgumentParser) -> None:
    """``--persona CHATS --propositions DIR --ratings FILE --judge SPEC``: the scores come
    from the session's ratings and from the judge asked about the same persona items
    (``--judge`` and ``--ratings`` are shared with any other block that asks for them)."""
    group = p.add_argument_group("a rated persona session (instead of SCORES_FILE)")
    add_argument_once(
        p, group, "--persona", nargs="+", metavar="CHAT",
        help="the session's chats (files or folders): their items are rebuilt and the judge "
        "is held against --ratings of them",
    )  # fmt: skip
    add_argument_once(
        p, group, "--propositions", metavar="DIR", help="with --persona: the proposition files"
    )
    add_argument_once(
        p, group, "--personas", metavar="FILE", help="with --persona: personas YAML/JSON"
    )
    add_argument_once(
        p, group, "--ratings", metavar="FILE",
        help="with --persona: the session's ratings store (ratings.db) or its CSV or JSON export",
    )  # fmt: skip
    add_judge_arguments(
        p,
        required=False,
        judge_help="with --persona: the judge, recorded:CASSETTE (no call) or "
        "anthropic:MODEL / openai:MODEL (live; --record keeps its answers)",
    )


def _persona_frame(args: argparse.Namespace, unrated: bool = False) -> tuple[pl.DataFrame, str]:
    """The calibration frame of ``--persona``: the session's items rebuilt from the chats,
    the judge asked about each rated item (a cassette: no call; ``unrated``: about every
    item), people's ratings joined on the hash of the text they rated; and the judge's
    epoch (a short hash of its basis and ``--double-check``, :mod:`toolkit.epoch`).

    Raises:
        InputError: SCORES_FILE as well, a part missing, or what the loaders refuse.
    """
    # the loaders, the folder walk and the persona rubric (polars, pydantic: 0.36 s of CPU):
    # `toolkit --help` imports this module
    from toolkit.epoch import short_hash
    from toolkit.fleet.find import chat_files
    from toolkit.judge.epoch import judge_basis
    from toolkit.load.item_ratings import load_item_ratings
    from toolkit.rubrics.persona_calibration import persona_calibration_frame
    from toolkit.rubrics.persona_items import items_of_files

    if args.scores is not None:
        raise InputError(None, "give SCORES_FILE or --persona CHATS, not both",
                         field="SCORES_FILE", value=args.scores)  # fmt: skip
    for flag, value in (
        ("--propositions", args.propositions),
        ("--ratings", args.ratings),
        ("--judge", args.judge),
    ):
        if not value:
            raise InputError(None, "--persona needs it", field=flag, value=None)
    ratings = load_item_ratings(args.ratings)
    judge = judge_of(args)
    chats = (f for c in args.persona for f in chat_files(c))  # listed after the propositions
    items = items_of_files(chats, args.propositions, personas=args.personas)
    frame = persona_calibration_frame(
        items, ratings, judge, judge_id=args.judge_id, ratings_name=args.ratings,
        double_check=args.double_check, concurrency=args.judge_concurrency,
        max_cost=args.max_cost, prices=args.prices,
        progress=False if args.no_progress else None, unrated=unrated,
    )  # fmt: skip
    return frame, short_hash({**judge_basis(judge), "double_check": args.double_check})


# -- an agent iteration log: the automated outcome score held against reviewers' labels --


def _add_outcome_arguments(p: argparse.ArgumentParser) -> None:
    """``--outcome LOG_DIR [--outcome-signal S] [--outcome-rubric R] [--repo DIR]
    [--transcripts DIR ...]``: the outcome rubric's score is the judge, each reviewer of
    the log's ``iter-N.labels.yaml`` a rater."""
    group = p.add_argument_group("an agent iteration log (instead of SCORES_FILE)")
    group.add_argument(
        "--outcome", metavar="LOG_DIR",
        help="an iteration log with reviewers' labels: its outcome score is the judge, each "
        "reviewer (a label's actor) a rater, on the 0-1 scale",
    )  # fmt: skip
    group.add_argument(
        "--outcome-signal", default="value", metavar="SIGNAL",
        help="with --outcome: the value (default) or one signal's sub-score",
    )  # fmt: skip
    group.add_argument(
        "--outcome-rubric", metavar="NAME|FILE",
        help="with --outcome: dot-agents-2.1.0 (default; no labels inside the score), "
        "dot-agents-3.0.0 (its value includes human_label itself) or a rubric file",
    )  # fmt: skip
    group.add_argument("--repo", metavar="DIR", help="with --outcome: the log's git repository")
    group.add_argument(
        "--transcripts", metavar="DIR", nargs="+", action="extend", default=[],
        help="with --outcome: Claude Code transcript folders",
    )  # fmt: skip


def _outcome_scores(
    args: argparse.Namespace, unrated: bool = False
) -> tuple[pl.DataFrame, str, list[tuple[str, str]], CalibrateRubric, str]:
    """The calibration frame of ``--outcome``, its label, sources, rubric (0-1) and the
    judge's epoch (the outcome score's: its rubric's data and options); ``unrated``: with
    the score of every iteration, labelled or not (the estimate's)."""
    # the loaders and the outcome rubric (polars, pydantic, git: 0.4 s of CPU): `toolkit
    # --help` imports this module
    from toolkit.load.iterlog import load_iteration_log
    from toolkit.load.outcome_evidence import check_local_evidence, collect_outcome_evidence
    from toolkit.rubrics.outcome import load_outcome_rubric, score_outcome
    from toolkit.rubrics.outcome.calibration import (
        outcome_calibrate_rubric,
        outcome_calibration_scores,
    )

    check_local_evidence(args.repo, args.transcripts)
    outcome_rubric = load_outcome_rubric(args.outcome_rubric)
    log = load_iteration_log(args.outcome)
    evidence = collect_outcome_evidence(log, repo=args.repo, transcripts=args.transcripts)
    result = score_outcome(log, evidence, outcome_rubric)
    frame = outcome_calibration_scores(
        result, signal=args.outcome_signal, judge_id=args.judge_id, unrated=unrated
    )
    what = "outcome value" if args.outcome_signal == "value" else args.outcome_signal
    label = f"{what} (rubric {outcome_rubric.version}) on {args.outcome}"
    sources = [("judge", f"{what}, rubric {outcome_rubric.version}")]
    sources.append(("labels", str(args.outcome)))
    return frame, label, sources, outcome_calibrate_rubric(result), result.epoch
