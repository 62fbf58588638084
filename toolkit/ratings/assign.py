"""Which rater rates which game in a rating session: balanced, seeded, shuffled.

:func:`assign_games` gives each game to ``overlap`` different raters so that every rater
gets the same number of games (give or take one), and shuffles each rater's queue; the
same games, raters, overlap and seed always give the same assignment, so a session
restarted from its store hands every rater the same queue.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from toolkit.errors import InputError

__all__ = ["assign_games", "parse_raters"]


def parse_raters(text: str) -> tuple[str, ...]:
    """Rater names from ``ana,ben,chidi`` (spaces around names dropped).

    Raises:
        InputError: an empty name, or the same name twice (capitals do not matter).
    """
    names = tuple(part.strip() for part in text.split(","))
    if not names or any(not n for n in names):
        raise InputError(None, "rater names must be non-empty", field="--raters", value=text)
    folded = [n.casefold() for n in names]
    twice = sorted({n for n in names if folded.count(n.casefold()) > 1})
    if twice:
        raise InputError(None, "a rater is named twice", field="--raters", value=",".join(twice))
    return names


def assign_games(
    game_ids: Sequence[str], raters: Sequence[str], overlap: int, seed: int
) -> dict[str, tuple[str, ...]]:
    """Each game to ``overlap`` raters, balanced, each rater's queue in a seeded order.

    Games are taken in a seeded order and each goes to the ``overlap`` raters holding the
    fewest games so far (ties broken at random, seeded), so the raters' queue lengths
    differ by at most one and every game is rated by exactly ``overlap`` different raters.

    Args:
        game_ids: the games (distinct).
        raters: the raters (distinct).
        overlap: how many raters rate each game (1 to the number of raters).
        seed: the seed; the same inputs and seed give the same assignment.

    Returns:
        rater -> the game ids of their queue, in the order they are shown.

    Raises:
        InputError: no games, no raters, or an overlap outside 1..len(raters).
    """
    if not game_ids:
        raise InputError(None, "a rating session needs at least one game")
    if not raters:
        raise InputError(None, "a rating session needs at least one rater", field="--raters")
    if not 1 <= overlap <= len(raters):
        raise InputError(
            None,
            f"overlap must be from 1 to the number of raters ({len(raters)})",
            field="--overlap",
            value=overlap,
        )
    rng = random.Random(seed)
    games = sorted(set(game_ids))
    rng.shuffle(games)
    load = dict.fromkeys(raters, 0)
    queues: dict[str, list[str]] = {r: [] for r in raters}
    for game in games:
        tie = {r: rng.random() for r in raters}
        for rater in sorted(raters, key=lambda r: (load[r], tie[r]))[:overlap]:
            queues[rater].append(game)
            load[rater] += 1
    for queue in queues.values():
        rng.shuffle(queue)
    return {r: tuple(q) for r, q in queues.items()}
