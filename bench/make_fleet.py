"""Write a deterministic fleet of token-world runs for benchmarks and the fleet notebook.

Usage:
    python bench/make_fleet.py OUT_DIR [--runs 1000] [--ticks 300] [--nights 10] [--seed 1]

Every run is written with sample_runs/make_universes.py's engine model, as tick files
(no batch compression: the worst case for a loader) plus a universe.db with the newest 50
graph snapshots. A run is healthy, degraded or failed by draw; from the last two nights
on, a "prompt change" makes degraded and failed runs three times as likely, so the fleet
has a trend to find. The same arguments always write the same bytes.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from datetime import timedelta
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def _engine() -> ModuleType:
    path = HERE.parent / "sample_runs" / "make_universes.py"
    spec = importlib.util.spec_from_file_location("make_universes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_universes"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def plans(runs: int, ticks: int, nights: int, seed: int) -> list[object]:
    """The fleet's run plans, drawn from ``random.Random(seed)``."""
    engine = _engine()
    rng = random.Random(seed)
    out = []
    for i in range(runs):
        night = i % nights
        changed = night >= nights - 2
        draw = rng.random() / (3 if changed else 1)
        base = {
            "slug": f"run-{i:04d}",
            "name": f"Run {i}",
            "seed": seed * 100_003 + i,
            "ticks": ticks,
            "start": engine.START - timedelta(days=nights - 1 - night),
            "verbs_from": 0,
        }
        if draw < 0.08:  # failed
            plan = engine.Plan(
                **base, schema=1, refuse_p=0.12, ungrounded_p=0.02, new_verb_every=0,
                edge_trend=0.3, breaks_from=ticks - 40, rollbacks_from=ticks - 45,
                wedge_from=ticks - 8, shrink_from=ticks - 55, shrink_rate=0.5,
            )  # fmt: skip
        elif draw < 0.25:  # degraded
            plan = engine.Plan(
                **base, schema=2, refuse_p=0.15, ungrounded_p=0.06, new_verb_every=9,
                edge_trend=0.2, shrink_from=ticks - 55, shrink_rate=0.08, subtype_every=13,
            )  # fmt: skip
        else:  # healthy
            plan = engine.Plan(
                **base, schema=1 if i % 2 else 2, refuse_p=0.02, ungrounded_p=0.01,
                new_verb_every=8, edge_trend=0.35, subtype_every=6,
            )  # fmt: skip
        out.append(plan)
    return out


def write_fleet(out: Path, runs: int, ticks: int, nights: int, seed: int) -> None:
    """Write the fleet into ``out`` (one folder per run)."""
    engine = _engine()
    out.mkdir(parents=True, exist_ok=True)
    for plan in plans(runs, ticks, nights, seed):
        engine.write_run(plan, out, compress=False)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--nights", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    write_fleet(args.out, args.runs, args.ticks, args.nights, args.seed)
    print(f"wrote {args.runs} runs x {args.ticks} ticks to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
