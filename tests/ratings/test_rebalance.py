"""Raters added or a rater's remaining games given to others mid-session
(:func:`toolkit.ratings.assign.rebalance`): only games not yet rated, drafted or skipped
move; every game keeps its overlap; the open loads are as even as who rated what allows,
checked against an exhaustive search over every possible assignment of small sessions."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.ratings.assign import assign_games, rebalance


def _open(queues: Mapping[str, Sequence[str]], fixed: Mapping[str, set[str]]) -> dict[str, int]:
    return {r: sum(1 for g in q if g not in fixed.get(r, set())) for r, q in queues.items()}


def _best_possible(
    games: Sequence[str],
    fixed: Mapping[str, set[str]],
    overlap: int,
    active: Sequence[str],
) -> tuple[int, int]:
    """(the least max open load, the least sum of squared open loads) over every way of
    giving each game the raters it still needs: an exhaustive search, independent of the
    code under test."""
    choices = []
    for g in games:
        have = {r for r, f in fixed.items() if g in f}
        need = overlap - len(have)
        free = [r for r in active if r not in have]
        choices.append(list(itertools.combinations(free, need)))
    best_max, best_sq = 10**9, 10**9
    for combo in itertools.product(*choices):
        load = dict.fromkeys(active, 0)
        for chosen in combo:
            for r in chosen:
                load[r] += 1
        best_max = min(best_max, max(load.values()))
        best_sq = min(best_sq, sum(v * v for v in load.values()))
    return best_max, best_sq


@st.composite
def sessions(draw: st.DrawFn) -> tuple[dict[str, tuple[str, ...]], dict[str, set[str]], int,
                                        list[str], int]:  # fmt: skip
    """A session's queues part rated (fixed), then one or two raters added and maybe one
    rater taken off."""
    n_games = draw(st.integers(1, 5))
    n_raters = draw(st.integers(1, 3))
    raters = [f"r{i}" for i in range(n_raters)]
    overlap = draw(st.integers(1, n_raters))
    seed = draw(st.integers(0, 2**31))
    queues = assign_games([f"g{i}" for i in range(n_games)], raters, overlap, seed)
    fixed = {
        r: {g for g in q if draw(st.booleans())} for r, q in queues.items()
    }  # rated, drafted or skipped
    added = [f"new{i}" for i in range(draw(st.integers(0, 2)))]
    all_raters = raters + added
    removed = draw(st.sampled_from([None, *raters]))
    active = [r for r in all_raters if r != removed]
    full = {**queues, **{r: () for r in added}}
    return full, fixed, overlap, active, seed


def _check(queues, fixed, overlap, active, seed, keep=None) -> dict[str, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    out = rebalance(queues, fixed, overlap, active, seed, keep)
    games = sorted({g for q in queues.values() for g in q})
    # every game with exactly ``overlap`` different raters (as many as the fixed allow)
    for g in games:
        holders = [r for r, q in out.items() if g in q]
        assert len(holders) == len(set(holders))
        fixed_holders = [r for r, f in fixed.items() if g in f]
        assert len(holders) == max(overlap, len(fixed_holders)), (g, holders)
    for r, q in out.items():
        assert len(q) == len(set(q))
        # what was rated, drafted or skipped never moves, and keeps its order
        kept = [g for g in queues.get(r, ()) if g in fixed.get(r, set())]
        assert [g for g in q if g in fixed.get(r, set())] == kept
        if r not in active:
            assert set(q) == set(kept)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_rebalance_keeps_overlap_and_fixed_and_is_as_even_as_possible(case) -> None:  # type: ignore[no-untyped-def]
    queues, fixed, overlap, active, seed = case
    if len(active) < overlap:
        with pytest.raises(InputError):
            rebalance(queues, fixed, overlap, active, seed)
        return
    games = sorted({g for q in queues.values() for g in q})
    feasible_fixed = {r: f for r, f in fixed.items()}
    # a game whose fixed holders already use every active rater cannot be given out
    blocked = any(
        len([r for r in active if g not in feasible_fixed.get(r, set())])
        < overlap - len([r for r, f in fixed.items() if g in f])
        for g in games
    )
    if blocked:
        with pytest.raises(InputError):
            rebalance(queues, fixed, overlap, active, seed)
        return
    out = _check(queues, fixed, overlap, active, seed)
    load = _open(out, fixed)
    active_load = [load[r] for r in active]
    best_max, best_sq = _best_possible(games, fixed, overlap, active)
    assert max(active_load) == best_max
    assert sum(v * v for v in active_load) == best_sq
    if not any(fixed.values()):  # nothing rated yet: balanced to within one
        assert max(active_load) - min(active_load) <= 1


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 30), st.integers(2, 6), st.integers(1, 3), st.integers(0, 2**31),
    st.integers(1, 3), st.data(),
)  # fmt: skip
def test_adding_raters_keeps_each_raters_next_game(
    n_games: int, n_raters: int, overlap: int, seed: int, n_new: int, data: st.DataObject
) -> None:
    """Larger sessions, raters added only, each rater's next game kept: no single move
    evens the open loads further, and each existing rater's next open game is the one it
    was."""
    overlap = min(overlap, n_raters)
    raters = [f"r{i}" for i in range(n_raters)]
    queues = assign_games([f"g{i}" for i in range(n_games)], raters, overlap, seed)
    fixed = {r: set(q[: data.draw(st.integers(0, len(q)))]) for r, q in queues.items()}
    new = [f"new{i}" for i in range(n_new)]
    full = {**queues, **{r: () for r in new}}
    nxt = {r: {g for g in q if g not in fixed[r]} for r, q in queues.items()}
    nxt = {
        r: {next(g for g in queues[r] if g in left)} if left else set() for r, left in nxt.items()
    }
    out = _check(full, fixed, overlap, raters + new, seed, nxt)
    load = _open(out, fixed)
    everyone = raters + new
    # no single move evens it out: a rater with two open games more than another holds
    # none that the other could take
    for a in everyone:
        for b in everyone:
            if load[a] >= load[b] + 2:
                stay = fixed.get(a, set()) | nxt.get(a, set())
                assert all(g in out[b] for g in out[a] if g not in stay), (a, b)
    for r in raters:
        before = [g for g in queues[r] if g not in fixed[r]]
        after = [g for g in out[r] if g not in fixed[r]]
        if after and before:
            assert after[0] == before[0]


def test_a_hand_worked_case() -> None:
    """Six games, two raters, overlap 1, three each; ana rated g1, ben nothing. Dana
    joins: five open games over three raters, 2-2-1 (ana 2 open as she rated one)."""
    queues = {"ana": ("g1", "g2", "g3"), "ben": ("g4", "g5", "g6"), "dana": ()}
    fixed = {"ana": {"g1"}, "ben": set()}
    out = rebalance(queues, fixed, 1, ["ana", "ben", "dana"], seed=3)
    assert out["ana"] == ("g1", "g2", "g3")
    assert out["ben"] == ("g4", "g5")
    assert out["dana"] == ("g6",)


def test_reassigning_a_raters_remaining_games() -> None:
    """Ben leaves after rating g4: g5 and g6 go to the others, g4 stays his."""
    queues = {"ana": ("g1", "g2", "g3"), "ben": ("g4", "g5", "g6"), "chidi": ()}
    fixed = {"ana": set(), "ben": {"g4"}, "chidi": set()}
    out = rebalance(queues, fixed, 1, ["ana", "chidi"], seed=1)
    assert out["ben"] == ("g4",)
    assert sorted(out["ana"] + out["chidi"]) == ["g1", "g2", "g3", "g5", "g6"]
    assert out["ana"][:2] == ("g1", "g2")
    assert sorted(len(out[r]) for r in ("ana", "chidi")) == [2, 3]
