"""Which rater rates which game in a rating session: balanced, seeded, shuffled.

:func:`assign_games` gives each game to ``overlap`` different raters so that every rater
gets the same number of games (give or take one), and shuffles each rater's queue; the
same games, raters, overlap and seed always give the same assignment, so a session
restarted from its store hands every rater the same queue.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence, Set

from toolkit.errors import InputError

__all__ = ["assign_games", "parse_raters", "rebalance"]


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


def rebalance(
    queues: Mapping[str, Sequence[str]],
    fixed: Mapping[str, Set[str]],
    overlap: int,
    active: Sequence[str],
    seed: int,
    keep: Mapping[str, Set[str]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """The queues after raters were added or a rater's remaining games given to others:
    only the **open** part moves (a game not in ``fixed[rater]``), so every rating,
    draft and skip stays where it is.

    ``queues`` holds every rater's queue (a new rater: an empty one). A rater not in
    ``active`` keeps their fixed games and gives up the rest. Then each game is brought
    up to ``overlap`` different raters (the least loaded active rater that does not hold
    it yet takes it, at the end of their queue), and games move from the raters with the
    most open games to those with the fewest, along chains of moves (a gives a game to c,
    c gives another to b...), until no move can make the open loads more even: the
    active raters' open loads then differ by at most one whenever who already rated what
    allows it. Games leave a queue from its end, so a rater's next games stay as they
    were; the games a new rater receives are shuffled (seeded).

    Args:
        queues: rater -> their queue, in order (every game of the session is in
            ``overlap`` of them, or fewer after a rater's removal).
        fixed: rater -> the games that must stay in their queue (rated, drafted, skipped).
        overlap: how many raters rate each game.
        active: the raters who take open games.
        seed: the seed of the tie-breaks and of the new raters' order.
        keep: rater -> open games that stay theirs all the same (their next game, so the
            page they are on does not change under them); counted as open.

    Returns:
        rater -> their new queue (the fixed games keep their order).

    Raises:
        InputError: fewer active raters than the overlap, or a game that no active rater
            can take (every one of them holds it already).
    """
    if len(active) < overlap:
        raise InputError(None, f"an overlap of {overlap} needs at least {overlap} raters "
                         "taking games", field="raters", value=len(active))  # fmt: skip
    rng = random.Random(seed)
    tie = {r: rng.random() for r in queues}
    on = set(active)
    new = {r for r in active if not queues.get(r)}
    out = {r: [g for g in q if r in on or g in fixed.get(r, set())] for r, q in queues.items()}
    for r in active:
        out.setdefault(r, [])
    holders: dict[str, set[str]] = {}
    for r, q in out.items():
        for g in q:
            holders.setdefault(g, set()).add(r)
    games = sorted({g for q in queues.values() for g in q})
    rng.shuffle(games)

    def open_load(r: str) -> int:
        return sum(1 for g in out[r] if g not in fixed.get(r, set()))

    for game in games:
        have = holders.setdefault(game, set())
        while len(have) < overlap:
            free = [r for r in active if r not in have]
            if not free:
                raise InputError(None, "no rater left who can take this game",
                                 field="game", value=game)  # fmt: skip
            taker = min(free, key=lambda r: (open_load(r), tie[r]))
            out[taker].append(game)
            have.add(taker)
    _even_out(out, fixed, keep or {}, holders, active, tie)
    for r in new:
        rng.shuffle(out[r])
    return {r: tuple(q) for r, q in out.items()}


def _even_out(
    out: dict[str, list[str]],
    fixed: Mapping[str, Set[str]],
    keep: Mapping[str, Set[str]],
    holders: dict[str, set[str]],
    active: Sequence[str],
    tie: Mapping[str, float],
) -> None:
    """Move open games from the most loaded active raters to the least, along chains of
    moves found breadth first, until no chain lowers the spread (in place)."""

    def movable(r: str) -> list[str]:  # open games, from the end of the queue
        stay = fixed.get(r, set()) | keep.get(r, set())
        return [g for g in reversed(out[r]) if g not in stay]

    while True:
        load = {r: sum(1 for g in out[r] if g not in fixed.get(r, set())) for r in active}
        moved = False
        for start in sorted(active, key=lambda r: (-load[r], tie[r])):
            path = _chain(start, load, movable, holders, active)
            if path is None:
                continue
            for giver, game, taker in path:
                out[giver].remove(game)
                out[taker].append(game)
                holders[game].discard(giver)
                holders[game].add(taker)
            moved = True
            break
        if not moved:
            return


def _chain(
    start: str,
    load: Mapping[str, int],
    movable: Callable[[str], list[str]],
    holders: Mapping[str, set[str]],
    active: Sequence[str],
) -> list[tuple[str, str, str]] | None:
    """A chain of moves (giver, game, taker) from ``start`` to a rater with at least two
    open games fewer, each taker an active rater not holding that game; None if none."""
    came: dict[str, tuple[str, str] | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for giver in frontier:
            for game in movable(giver):
                for taker in active:
                    if taker in came or taker in holders[game]:
                        continue
                    came[taker] = (giver, game)
                    if load[taker] <= load[start] - 2:
                        path: list[tuple[str, str, str]] = []
                        at = taker
                        while came[at] is not None:
                            prev, moved = came[at]  # type: ignore[misc]
                            path.append((prev, moved, at))
                            at = prev
                        return path[::-1]
                    nxt.append(taker)
        frontier = nxt
    return None
