"""Vocabulary novelty is decided in tick order whatever the engine and its threads: with
mechanic ids as the unit, the batch records' ids joined in once reordered the ticks
(Polars' joins keep no order by default), so the streaming engine's threads decided which
use of a mechanic came first (with 8 threads, 32 of 200 collects of the three runs below
were wrong; 1 to 6 of 20 over the sample universes)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

from conftest import ROOT

#: Scores three runs of 100 ticks, each tick using one of 40 mechanics (the batch records
#: of each run list m1), 200 times with the streaming engine on 8 threads (set before
#: Polars is imported); prints each collect's novel flags.
CHILD = """
import json, sys
import polars as pl
from toolkit.rubrics.simulation.features import tick_features
from toolkit.rubrics.simulation.spec import DEFAULT_RUBRIC
rubric = DEFAULT_RUBRIC.model_copy(update={"vocabulary_growth": DEFAULT_RUBRIC
    .vocabulary_growth.model_copy(update={"unit": "mechanic"})})
slugs, ticks, mechanics = json.loads(sys.argv[1])
frame = pl.DataFrame({"slug": slugs, "tick": ticks, "mechanic": mechanics, "verb": "look",
                      "action_text": "look", "continuation": False, "status": "executed",
                      "subtypes": [[] for _ in slugs]})
history = pl.DataFrame({"slug": sorted(set(slugs)), "unit": "m1"})
plan = tick_features(frame, rubric, history).select("novel")
print(json.dumps([plan.collect(engine="streaming")["novel"].to_list() for _ in range(200)]))
"""


def test_mechanic_novelty_follows_tick_order_on_every_collect() -> None:
    rng = random.Random(1)
    slugs = [f"run-{r}" for r in range(3) for _ in range(100)]
    ticks = [t for _ in range(3) for t in range(1, 101)]
    mechanics = [f"m{rng.randrange(40)}" for _ in slugs]
    expected: list[bool] = []  # novel: not m1 (listed), not used before in the run
    used: set[tuple[str, str]] = set()
    for slug, mechanic in zip(slugs, mechanics, strict=True):
        expected.append(mechanic != "m1" and (slug, mechanic) not in used)
        used.add((slug, mechanic))
    assert 40 <= sum(expected) < 120
    env = {**os.environ, "POLARS_MAX_THREADS": "8", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([slugs, ticks, mechanics])],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    collects = json.loads(done.stdout)
    assert len(collects) == 200
    assert sum(flags != expected for flags in collects) == 0
