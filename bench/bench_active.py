"""Active inference benchmark: how many fewer ratings does the informative queue need?

Usage (the recorded run; about a minute on an idle machine):
    python bench/bench_active.py --seed 1

A benchmark: it prints numbers and asserts nothing. Planted data: ``--items`` items
whose people's score is Normal(5, 2.5); a judge +0.8 too high, off by Normal(0, 0.2) on
most items and by Normal(0, 3) on the ``--hard`` share, which it flags (its predicted
error: 3 there, 0.2 elsewhere). The informative order draws each item with
:func:`toolkit.ratings.informative.informative_probabilities` (budget ``--budget``) and
the estimate weighs the rated items by 1/p, the unrated by 1/(1-p)
(:func:`toolkit.rubrics.estimate.ppi_mean`); the random order draws every item with the
same probability and gives today's unweighted estimate. For each order: the mean 95 %
interval width over ``--draws`` worlds and how often it covers the planted mean; then the
random budget that reaches the informative width (random's width at budgets from the
informative budget up, interpolated), and the share of ratings saved. The same for a
second world where the judge's predicted error tells less (hard share 0.3, error 1 vs
0.5), so the gain is seen to depend on it. Writes bench/out/results-active.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from toolkit.ratings.informative import informative_probabilities
from toolkit.rubrics.estimate import power_lambda, ppi_mean

TRUTH, BIAS = 5.0, 0.8


def world(
    rng: np.random.Generator, n: int, hard: float, errors: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(people's scores, judge's scores, judge's predicted error) of ``n`` items."""
    u = np.where(rng.random(n) < hard, errors[1], errors[0])
    y = rng.normal(TRUTH, 2.5, n)
    return y, y + BIAS + rng.normal(0, u), u


def one_draw(
    rng: np.random.Generator, args: argparse.Namespace, budget: int, informative: bool,
    hard: float, errors: tuple[float, float],
) -> tuple[bool, float, int]:  # fmt: skip
    """(covers the truth, interval width, items rated) of one world and one draw."""
    y, f, u = world(rng, args.items, hard, errors)
    if informative:
        probs = informative_probabilities({str(k): float(x) for k, x in enumerate(u)}, budget)
        p = np.array([probs[str(k)] for k in range(args.items)])
    else:
        p = np.full(args.items, budget / args.items)
    r = rng.random(args.items) < p
    w, v = (1 / p[r], 1 / (1 - p[~r])) if informative else (None, None)
    lam = float(power_lambda(y[r], f[r], f[~r], w))
    _point, low, high = ppi_mean(y[r], f[r], f[~r], lam, w=w, v=v)
    return bool(low <= TRUTH <= high), float(high - low), int(r.sum())


def run_world(args: argparse.Namespace, hard: float, errors: tuple[float, float]) -> dict:
    """The two orders at the budget, and the random budget matching informative's width."""
    rng = np.random.default_rng(args.seed)
    out: dict = {"hard_share": hard, "errors": list(errors), "budget": args.budget}
    for name, informative in (("informative", True), ("random", False)):
        runs = [one_draw(rng, args, args.budget, informative, hard, errors)
                for _ in range(args.draws)]  # fmt: skip
        out[name] = {
            "coverage": float(np.mean([c for c, _, _ in runs])),
            "width": float(np.mean([w for _, w, _ in runs])),
            "rated": float(np.mean([n for _, _, n in runs])),
        }
    target = out["informative"]["width"]
    grid, widths = [], []
    for n in range(args.budget, 4 * args.budget + 1, args.budget // 10):
        grid.append(n)
        widths.append(float(np.mean([one_draw(rng, args, n, False, hard, errors)[1]
                                     for _ in range(args.grid_draws)])))  # fmt: skip
        if widths[-1] < target:
            break
    # width falls with n: interpolate n at the informative width (1/width^2 ~ linear in n)
    inv = [1 / w**2 for w in widths]
    needed = float(np.interp(1 / target**2, inv, grid))
    out["random_budget_for_same_width"] = needed
    out["ratings_saved"] = 1 - out["informative"]["rated"] / needed
    out["random_widths"] = dict(zip(grid, widths, strict=True))
    return out


def main() -> None:
    """Run both worlds, print Markdown tables, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--grid-draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = [run_world(args, 0.1, (0.2, 3.0)), run_world(args, 0.3, (0.5, 1.0))]
    print("| world | order | rated | 95 % width | coverage |")
    print("| --- | --- | --- | --- | --- |")
    for r in results:
        label = f"hard {r['hard_share']:.0%}, error {r['errors'][0]} / {r['errors'][1]}"
        for name in ("informative", "random"):
            o = r[name]
            print(f"| {label} | {name} | {o['rated']:.1f} | {o['width']:.4f} "
                  f"| {o['coverage']:.1%} |")  # fmt: skip
        print(f"| {label} | random, same width | {r['random_budget_for_same_width']:.0f} | "
              f"{r['informative']['width']:.4f} | saved {r['ratings_saved']:.0%} |")  # fmt: skip
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    (out / "results-active.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
