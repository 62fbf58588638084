"""Write the sample pair of fleets in sample_runs/compare/ (deterministic).

Usage: python sample_runs/make_compare.py [OUT_DIR] [--scenarios 12]

Two versions of an agent, ``a`` (before) and ``b`` (after a change), each run on the same
scenarios; every run's universe.yaml names its ``scenario`` (the pairing key of
``toolkit compare``) and has its own seed. A scenario fixes how hard the world is (its
refusal, ungrounded-claim and edge-growth rates); a run adds its own luck on top. Version
``a`` runs each scenario twice, so its noise floor (how far two runs of one scenario land
apart by chance) shows; ``b`` runs each once.

The change, planted on purpose:

* **better** in B: groundedness (a fifth of the ungrounded claims) and graph fan-out (edges
  grow faster);
* **worse** in B: character stability (the agent breaks character once or twice near
  the end of each run);
* unchanged: everything else.

Runs are written with sample_runs/make_universes.py's engine model (tick schema v1, 55
ticks, so the default window of 50 is full), tick files written compactly and
universe.db keeping only the checkpoint snapshots the rubric reads (every 10th tick),
so the pair stays small (about 3.5 MB of files).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
TICKS = 55


def _engine() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_universes", HERE / "make_universes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_universes"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def plans(scenarios: int, seed: int = 26) -> dict[str, list[object]]:
    """The runs of each version, drawn from ``random.Random(seed)``."""
    engine = _engine()
    rng = random.Random(seed)
    out: dict[str, list[object]] = {"a": [], "b": []}
    for s in range(1, scenarios + 1):
        scenario = f"s{s:02d}"
        hard = rng.random()  # how hard this scenario is, shared by both versions
        base = engine.Plan(
            slug="", name="", seed=0, ticks=TICKS, schema=1,
            refuse_p=0.02 + 0.05 * hard, ungrounded_p=0.05 + 0.1 * hard,
            new_verb_every=7 + int(4 * hard), edge_trend=0.15 + 0.25 * (1 - hard),
            subtype_every=6, verbs_from=0,
        )  # fmt: skip
        for version, repeats in (("a", 2), ("b", 1)):
            for r in range(1, repeats + 1):
                plan = replace(
                    base,
                    slug=f"{scenario}-r{r}",
                    name=f"Scenario {s} run {r} ({version.upper()})",
                    seed=seed * 1_000 + s * 10 + r + (500 if version == "b" else 0),
                )
                if version == "b":  # the change: grounded and growing, but it breaks character
                    plan = replace(
                        plan,
                        ungrounded_p=plan.ungrounded_p / 5,
                        edge_trend=plan.edge_trend + 0.2,
                        breaks_from=TICKS - rng.choice((3, 6, 9)),
                    )
                out[version].append((scenario, plan))
    return out


def _compact(root: Path) -> None:
    """Tick files as compact JSON; universe.db with the checkpoint snapshots only."""
    for tick in (root / "tick_summaries" / "ticks").glob("tick_*.json"):
        tick.write_text(json.dumps(json.loads(tick.read_text()), separators=(",", ":")))
    db = root / "universe.db"
    conn = sqlite3.connect(db)
    try:
        conn.execute("DELETE FROM graph_snapshots WHERE tick_id % 10 != 0")
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()


def write(out: Path, scenarios: int) -> None:
    """Write ``out/a`` and ``out/b``."""
    engine = _engine()
    for version, runs in plans(scenarios).items():
        folder = out / version
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for scenario, plan in runs:
            engine.write_run(plan, folder, compress=False)
            root = folder / plan.slug  # type: ignore[attr-defined]
            config = root / "universe.yaml"
            config.write_text(config.read_text() + f"scenario: {scenario}\n")
            _compact(root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=HERE / "compare")
    parser.add_argument("--scenarios", type=int, default=12)
    args = parser.parse_args(argv)
    write(args.out, args.scenarios)
    print(f"wrote {args.out / 'a'} and {args.out / 'b'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
