"""The informative order of a rating session: which units people rate, drawn with
probabilities that favour the units whose rating shrinks the estimate's interval most.

Active inference (Zrnic & Candès 2024): the PPI++ estimate's interval is widest where the
judge errs most, so a unit's rating is worth most where the judge's predicted error is
largest. Each unit ``i`` gets the probability

    p_i = b * (s + (1 - s) * u_i / mean(u)),   b = budget / units,

(``u_i`` the judge's predicted error, ``s`` the uniform share) with the part above 1 given
to the others until none exceeds 1, so the probabilities add up to the budget and none
falls below the floor ``b * s``: every unit can be drawn, which is what keeps the
inverse-probability-weighted estimate unbiased. Each unit is then drawn on its own, with
its probability (Poisson sampling, seeded); the drawn units are what the balanced
assignment (:func:`toolkit.ratings.assign.assign_games`) shares among the raters, so the
overlap guarantee holds over them. The probabilities are recorded in the store
(``draw_events``) and :func:`toolkit.rubrics.estimate.estimate` weighs each rated unit by
their inverse.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

from toolkit.errors import InputError

__all__ = ["DEFAULT_UNIFORM_SHARE", "ORDERS", "informative_probabilities", "poisson_draw"]

#: The orders a session hands out its units in.
ORDERS: tuple[str, ...] = ("random", "informative")
#: The share of each probability that is uniform (the floor is ``budget/units`` times it).
DEFAULT_UNIFORM_SHARE = 0.2


def informative_probabilities(
    uncertainty: Mapping[str, float], budget: int, uniform_share: float = DEFAULT_UNIFORM_SHARE
) -> dict[str, float]:
    """Each unit's probability of being drawn: proportional to the judge's predicted
    error, mixed with uniform, capped at 1, adding up to ``budget`` (see the module docs).

    Args:
        uncertainty: unit -> the judge's predicted error (>= 0, finite).
        budget: how many units people should rate, in expectation (1 to the units).
        uniform_share: the uniform part of each probability, in (0, 1].

    Raises:
        InputError: no unit, a budget outside 1..units, a negative or non-finite error,
            a uniform share outside (0, 1].
    """
    units = sorted(uncertainty)
    if not units:
        raise InputError(None, "no unit to draw from", field="--judge-scores")
    if not 1 <= budget <= len(units):
        raise InputError(None, f"must be from 1 to the number of units ({len(units)})",
                         field="--budget", value=budget)  # fmt: skip
    if not 0 < uniform_share <= 1:
        raise InputError(None, "must be in (0, 1]", field="uniform_share", value=uniform_share)
    for unit in units:
        u = uncertainty[unit]
        if not (math.isfinite(u) and u >= 0):
            raise InputError(None, f"the judge's predicted error of {unit} must be a finite "
                             "number >= 0", field="uncertainty", value=u)  # fmt: skip
    # each error over the largest first: a mean of errors near 1e308 would overflow to inf
    # and make every share 0 (a uniform draw, silently)
    top = max(uncertainty.values())
    scaled = {u: uncertainty[u] / top if top > 0 else 1.0 for u in units}
    mean = sum(scaled.values()) / len(units)
    raw = {u: uniform_share + (1 - uniform_share) * scaled[u] / mean for u in units}
    return _capped(raw, float(budget))


def _capped(raw: Mapping[str, float], budget: float) -> dict[str, float]:
    """``raw`` scaled to add up to ``budget``, each capped at 1 (the excess given to the
    uncapped units in proportion, until none exceeds 1)."""
    capped: set[str] = set()
    while True:
        free = [u for u in raw if u not in capped]
        if not free:  # a budget of every unit: each is drawn for certain
            return dict.fromkeys(raw, 1.0)
        scale = (budget - len(capped)) / sum(raw[u] for u in free)
        over = {u for u in free if raw[u] * scale >= 1}
        if not over:
            return {u: 1.0 if u in capped else raw[u] * scale for u in raw}
        capped |= over


def poisson_draw(probabilities: Mapping[str, float], seed: int) -> set[str]:
    """The units drawn, each on its own with its probability (seeded: the same
    probabilities and seed always draw the same units)."""
    rng = random.Random(seed)
    return {u for u in sorted(probabilities) if rng.random() < probabilities[u]}
