"""``toolkit rate --order informative --judge-scores FILE --budget N``: which units go
into the raters' queues, drawn with probabilities that favour the units whose rating
shrinks the estimate's interval most (:mod:`toolkit.ratings.informative`).

``random`` (the default) queues every unit, in a shuffled order, each with probability
1. ``informative`` draws about ``--budget`` units, each with a probability proportional
to the judge's predicted error of it (the ``uncertainty`` column of ``--judge-scores``)
mixed with uniform; only the drawn units are queued. Either way the order and every
unit's probability are recorded in the store, so the estimate weighs each rated unit by
the inverse of its probability (docs/ratings.md, docs/rubrics/estimate.md).
"""

from __future__ import annotations

import argparse
import math
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolkit.errors import InputError

#: The orders ``--order`` takes (toolkit.ratings.informative.ORDERS).
ORDER_CHOICES = ("random", "informative")


def add_order_arguments(p: argparse.ArgumentParser) -> None:
    """``--order``, ``--judge-scores`` and ``--budget``."""
    p.add_argument(
        "--order", choices=ORDER_CHOICES,
        help="how units come into the queues (a new session; recorded): random (default: "
        "every unit, shuffled) or informative (about --budget units, drawn favouring those "
        "the judge is least sure of; needs --judge-scores)",
    )  # fmt: skip
    p.add_argument(
        "--judge-scores", metavar="FILE",
        help="CSV or Parquet with columns item, uncertainty (the judge's predicted error, "
        ">= 0) and optionally score (the judge's): the informative order draws by it",
    )  # fmt: skip
    p.add_argument(
        "--budget", type=int, metavar="N",
        help="with --order informative: how many units people should rate, in expectation "
        "(default: a quarter of the units, at least 2)",
    )  # fmt: skip


def session_draws(
    args: argparse.Namespace, unit_ids: Sequence[str], seed: int | None
) -> tuple[str | None, list[Any] | None]:
    """(the order asked for, each unit's draw) for a new session; (None, None) when no
    ``--order`` was given and no ``--judge-scores`` (the random order, or a resumed
    session's own).

    Raises:
        InputError: informative without ``--judge-scores``; ``--budget`` without
            informative; a judge-scores file that is unreadable, lacks a column, holds a
            bad value or misses a unit of the session.
    """
    # the store's draw and the sampler (polars: 0.17 s of CPU): `toolkit --help` imports this
    from toolkit.ratings.informative import informative_probabilities, poisson_draw
    from toolkit.ratings.store.draws import Draw

    order = args.order
    if args.budget is not None and order != "informative":
        raise InputError(None, "is for --order informative", field="--budget", value=args.budget)
    if order == "informative" and args.judge_scores is None:
        raise InputError(None, "the informative order draws by the judge's predicted error: "
                         "give --judge-scores FILE", field="--order", value=order)  # fmt: skip
    if args.judge_scores is None:
        return order, None
    scores, uncertainty = read_judge_scores(args.judge_scores, unit_ids)
    units = sorted(set(unit_ids))
    if order != "informative":
        return order, [Draw(u, 1.0, True, scores.get(u), uncertainty[u]) for u in units]
    budget = args.budget if args.budget is not None else min(len(units), max(2, len(units) // 4))
    # only the session's units share the budget: the file may score a larger pool
    ours = {u: uncertainty[u] for u in units}
    probability = informative_probabilities(ours, budget)  # refuses one over the units
    drawn = poisson_draw(probability, seed if seed is not None else 0)
    return order, [
        Draw(u, probability[u], u in drawn, scores.get(u), uncertainty[u]) for u in units
    ]


def read_judge_scores(
    path: str, unit_ids: Sequence[str]
) -> tuple[dict[str, float], dict[str, float]]:
    """(unit -> the judge's score, unit -> its predicted error) from ``path``.

    Raises:
        InputError: unreadable; no ``item`` or ``uncertainty`` column; a value that is
            not a finite number (an error below 0); a unit of the session missing.
    """
    # the file's frame (polars: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.io import edge

    kind = "parquet" if Path(path).suffix.lower() == ".parquet" else "csv"
    frame = edge.read_frame(edge.read_bytes(path), path, kind)
    for column in ("item", "uncertainty"):
        if column not in frame.columns:
            raise InputError(path, "the judge's scores need the columns item and uncertainty",
                             field="columns", value=",".join(frame.columns))  # fmt: skip
    scores: dict[str, float] = {}
    errors: dict[str, float] = {}
    has_score = "score" in frame.columns
    for line, rec in enumerate(frame.iter_rows(named=True), start=2):
        item = str(rec["item"])
        if item in errors:  # the last row would win silently
            raise InputError(f"{path}:{line}", "a unit named twice", field="item", value=item)
        errors[item] = _number(path, rec["uncertainty"], "uncertainty", line, at_least=0.0)
        if has_score and rec["score"] not in (None, ""):
            scores[item] = _number(path, rec["score"], "score", line)
    missing = sorted(set(unit_ids) - set(errors))
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(path, f"no row for {missing[0]}{more} of the session: every unit "
                         "needs the judge's predicted error", field="item",
                         value=missing[0])  # fmt: skip
    return scores, errors


def _number(path: str, value: Any, field: str, line: int, at_least: float | None = None) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or (at_least is not None and number < at_least):
        rule = "a finite number >= 0" if at_least is not None else "a finite number"
        raise InputError(path, f"must be {rule}", field=field, value=value, line=line)
    return number


def open_arguments(args: argparse.Namespace, store: Any, unit_ids: Sequence[str]) -> dict[str, Any]:
    """The seed, order and draws :meth:`RatingStore.open_session` is given: for a new
    session the draw (seeded by ``--seed``, else a random seed kept with the session);
    for a resumed one only the order, which must be the one it was created in."""
    if store.session() is not None:
        if args.judge_scores is not None or args.budget is not None:
            flag = "--judge-scores" if args.judge_scores is not None else "--budget"
            raise InputError(store.path, "the store holds a session already: its draw was "
                             "made when it was created", field=flag)  # fmt: skip
        return {"seed": args.seed, "order": args.order}
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    order, draws = session_draws(args, unit_ids, seed)
    return {"seed": seed, "order": order, "draws": draws}
