"""Each family's scores as compare's long frame (pure: from what the family's rubric
returns; :mod:`toolkit.fleet.compare` loads and scores the folders)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from toolkit.frames import COMPARE_SCORES_SCHEMA
from toolkit.rubrics.compare.rubric import EVAL_PASSED, PAIR_KEYS, VERDICT


def _frame(rows: list[dict[str, Any]], keys: Sequence[str]) -> pl.DataFrame:
    schema = dict(COMPARE_SCORES_SCHEMA) | {k: pl.String() for k in keys}
    return pl.DataFrame(rows, schema=schema)


def simulation_scores(
    cards: Sequence[Any], keys: Mapping[str, Mapping[str, str]] | None = None
) -> pl.DataFrame:
    """Simulation scorecards (one per run) as compare's long frame.

    Each dimension's value is a numeric row; the verdict is a pass/fail row (HEALTHY
    passes). The unit is the run's ``scenario``, else its ``seed`` (both from
    universe.yaml, given in ``keys`` by slug), else its slug; all three are kept as
    columns for ``--pair-by``.
    """
    rows: list[dict[str, Any]] = []
    for card in cards:
        slug = str(card.subject)
        extra = dict((keys or {}).get(slug, {}))
        found = {"scenario": extra.get("scenario"), "seed": extra.get("seed"), "slug": slug}
        unit = next(v for k in PAIR_KEYS["simulation"] if (v := found.get(k)) is not None)
        base = {"family": "simulation", "unit": unit, "run": slug, **found}
        for dim, value in card.dimensions.select("dimension", "value").iter_rows():
            rows.append(base | {"dimension": dim, "value": value, "passed": None})
        rows.append(
            base | {"dimension": VERDICT, "value": None, "passed": card.verdict == "HEALTHY"}
        )
    return _frame(rows, ("scenario", "seed", "slug"))


def outcome_scores(log: str, result: Any, iterations: pl.DataFrame) -> pl.DataFrame:
    """One iteration log's outcome scores as compare's long frame.

    A run is an iteration (``log#iter-N``), its unit the iteration's task (``task_id``;
    an iteration without one keeps its run id and stays unpaired). Numeric rows: each
    present signal's sub-score and the weighted ``score``; the pass/fail row passes
    unless the iteration lands in the rubric's lowest band.
    """
    lowest = result.rubric.bands[-1].band
    tasks = dict(iterations.select("iteration", "task_id").iter_rows())
    rows: list[dict[str, Any]] = []

    def base(n: int) -> dict[str, Any]:
        run = f"{log}#iter-{n}"
        task = tasks.get(n)
        return {"family": "outcome", "unit": task or run, "run": run, "task": task}

    for n, signal, present, sub in result.breakdown.select(
        "iteration", "signal", "present", "sub_score"
    ).iter_rows():
        rows.append(base(n) | {"dimension": signal, "value": sub if present else None,
                               "passed": None})  # fmt: skip
    for n, scored, value, band in result.scores.select(
        "iteration", "scored", "value", "band"
    ).iter_rows():
        rows.append(base(n) | {"dimension": "score", "value": value, "passed": None})
        rows.append(
            base(n) | {"dimension": VERDICT, "value": None,
                       "passed": (band != lowest) if scored else None}
        )  # fmt: skip
    return _frame(rows, ("task",))


def discussion_scores(report: Any) -> pl.DataFrame:
    """Discussion games as compare's long frame: a game is a run, its unit the game id
    (the transcript formats carry no scenario); each metric's score is a numeric row,
    the verdict a pass/fail row (PASS passes; PENDING_RATING is left out)."""
    rows: list[dict[str, Any]] = []
    for game, key, score in report.metrics.select("game_id", "key", "score").iter_rows():
        rows.append({"family": "discussion", "unit": game, "run": game, "game_id": game,
                     "dimension": key, "value": score, "passed": None})  # fmt: skip
    for card in report.scorecards:
        verdict = card.verdict
        passed = None if verdict == "PENDING_RATING" else verdict == "PASS"
        rows.append({"family": "discussion", "unit": card.subject, "run": card.subject,
                     "game_id": card.subject, "dimension": VERDICT, "value": None,
                     "passed": passed})  # fmt: skip
    return _frame(rows, ("game_id",))


def persona_scores(result: Any) -> pl.DataFrame:
    """A persona result as compare's long frame: the unit is proposition x agent (the
    whole run's window), the dimension the proposition's, the value its judged score."""
    scores = result.scores.filter(pl.col("window") == 0)
    rows: list[dict[str, Any]] = []
    for run, agent, prop, dim, score in scores.select(
        "run", "agent_name", "proposition", "dimension", "score"
    ).iter_rows():
        who = agent or "environment"
        rows.append({"family": "persona", "unit": f"{prop} x {who}", "run": str(run),
                     "proposition_agent": f"{prop} x {who}", "dimension": dim,
                     "value": score, "passed": None})  # fmt: skip
    return _frame(rows, ("proposition_agent",))


#: The numeric dimensions of an eval-harness run, from its row (toolkit score first).
EVAL_DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("score", "value"),
    ("retries", "retries"),
    ("duration_s", "duration_s"),
)


def eval_scores(runs: pl.DataFrame) -> pl.DataFrame:
    """Eval-harness runs as compare's long frame: a run is a run folder (``run_id``), its
    unit the task (``task_id``: runs of one task are replicates, the same task in two arms a
    pair). Numeric rows: the toolkit's score of the run's iteration, the agent's retries
    and its duration in seconds; the pass/fail row ``passed`` is the verifier's
    ``verify.passed``. ``difficulty``, ``language``, ``harness`` and ``model`` are kept
    as columns (the comparison is split by the first two).

    Args:
        runs: one row per run: :data:`toolkit.frames.EVAL_RUNS_SCHEMA` plus ``value``.
    """
    keys = ("task", "difficulty", "language", "harness", "model")
    rows: list[dict[str, Any]] = []
    for r in runs.iter_rows(named=True):
        base = {"family": "eval", "unit": r["task_id"], "run": r["run_id"], "task": r["task_id"],
                "difficulty": r["difficulty"], "language": r["language"],
                "harness": r["harness"], "model": r["model"]}  # fmt: skip
        for dim, col in EVAL_DIMENSIONS:
            value = r.get(col)
            rows.append(base | {"dimension": dim, "value": None if value is None else float(value),
                                "passed": None})  # fmt: skip
        rows.append(base | {"dimension": EVAL_PASSED, "value": None, "passed": r["passed"]})
    return _frame(rows, keys)
