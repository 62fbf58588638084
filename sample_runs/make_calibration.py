"""Write the sample calibration session in sample_runs/calibration/ (deterministic).

Usage: python sample_runs/make_calibration.py [OUT_DIR] [--seed 27]

Three human raters (ana, ben, chloe) and an LLM judge (``judge``) score the same 40
items on the persona propositions' 0-9 scale: ten propositions about each of four agents
(Ada, Bram, Cleo, Lenny). Each item has a true score (1 to 7); what is planted:

* **the humans** disagree around the truth: per item the three deviations are a shuffle
  of (d, -d, 0) with d drawn from 0, 1, 1, so the human mean is the true score;
* **the judge** reads the truth with an error of -1, 0 or +1 whose values are balanced
  within each agent (two of each sign, the rest 0: they sum to zero), so its
  only systematic error is the planted one:
* **lenient by +1 on Lenny** (every Lenny item one point higher);
* **six misreads** (two items each of Ada, Bram and Cleo: +4 on one, -4 on the other,
  so no agent's bias moves): the disagreements ``toolkit calibrate`` must list first.

The planted items are written to ``planted.json`` beside ``scores.csv``, so tests read
the truth from the generator, not from the code under test.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

AGENTS = ("Ada", "Bram", "Cleo", "Lenny")
HUMANS = ("ana", "ben", "chloe")
LENIENT = "Lenny"
BIAS = 1
MISREAD = 4
PROPOSITIONS = 10


def build(seed: int) -> tuple[list[dict[str, object]], dict[str, object]]:
    """The score rows and what was planted."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    misreads: list[str] = []
    for agent in AGENTS:
        picks = [] if agent == LENIENT else rng.sample(range(PROPOSITIONS), 2)
        errors = [-1, -1, 1, 1] + [0] * (PROPOSITIONS - 4 - len(picks))  # sum: 0
        rng.shuffle(errors)
        error = iter(errors)
        for k in range(PROPOSITIONS):
            item = f"p{k + 1:02d}-{agent.lower()}"
            prop = f"p{k + 1:02d}"
            if k in picks:  # room for the misread on the 0-9 scale
                true = rng.randint(1, 5) if picks.index(k) == 0 else rng.randint(4, 7)
            else:
                true = rng.randint(1, 7)
            d = rng.choice((0, 1, 1))
            devs = [d, -d, 0]
            rng.shuffle(devs)
            for human, dev in zip(HUMANS, devs, strict=True):
                rows.append(
                    {
                        "item": item,
                        "rater": human,
                        "score": true + dev,
                        "agent": agent,
                        "proposition": prop,
                    }
                )
            if k in picks:
                judge = true + (MISREAD if picks.index(k) == 0 else -MISREAD)
                misreads.append(item)
            else:
                judge = true + next(error) + (BIAS if agent == LENIENT else 0)
            rows.append(
                {
                    "item": item,
                    "rater": "judge",
                    "score": judge,
                    "agent": agent,
                    "proposition": prop,
                }
            )
    planted = {
        "seed": seed,
        "lenient_agent": LENIENT,
        "bias": BIAS,
        "misreads": misreads,
        "humans": list(HUMANS),
        "judge": "judge",
        "scale": [0, 9],
    }
    return rows, planted


def main() -> None:
    """Write scores.csv and planted.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(Path(__file__).parent / "calibration"))
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, planted = build(args.seed)
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, ["item", "rater", "score", "agent", "proposition"])
        writer.writeheader()
        writer.writerows(rows)
    (out / "planted.json").write_text(json.dumps(planted, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
