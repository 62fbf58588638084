"""Calibrate benchmark: does ``toolkit calibrate`` recover a planted judge, and how fast?

Usage (the recorded run; about a minute on an idle machine):
    python bench/bench_calibrate.py --sessions 200 --seed 1

A benchmark: it prints numbers and asserts nothing. Unlike the committed sample (whose
judge errors cancel exactly within each agent), every session here is *noisy*: four
agents, ``--items`` items each, a true score per item (1 to 7), three humans who each add
their own rounded Normal(0, 0.8) error, and a judge that adds a rounded Normal(0, 0.6)
error, is lenient by +1 on one agent and misreads ``--misreads`` items of the other
agents by +4 or -4. Per session it records the lenient agent's recovered bias, whether
its bootstrap interval covers the planted +1, the bias found on the other agents (their
misreads excluded, where the planted bias is 0), and the share of the planted misreads in
the top of the disagreement list. Then it times :func:`calibrate` on sessions of growing
size. Prints Markdown tables and writes bench/out/results-calibrate.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from timing import timings  # noqa: E402

from toolkit.rubrics.calibrate import calibrate  # noqa: E402

AGENTS = ("Ada", "Bram", "Cleo", "Lenny")


def session(rng: np.random.Generator, items: int, misreads: int) -> tuple[pl.DataFrame, set[str]]:
    """One noisy session and its planted misreads."""
    rows: list[dict[str, Any]] = []
    planted: set[str] = set()
    for agent in AGENTS:
        picks = set() if agent == "Lenny" else set(rng.choice(items, misreads, replace=False))
        for k in range(items):
            item = f"{agent}-{k}"
            true = int(rng.integers(1, 8))
            for human in ("ana", "ben", "chloe"):
                score = np.clip(round(true + rng.normal(0, 0.8)), 0, 9)
                rows.append({"item": item, "rater": human, "score": float(score), "agent": agent})
            judge = true + round(rng.normal(0, 0.6)) + (1 if agent == "Lenny" else 0)
            if k in picks:
                judge = true + (4 if true <= 4 else -4)
                planted.add(item)
            rows.append(
                {
                    "item": item,
                    "rater": "judge",
                    "score": float(np.clip(judge, 0, 9)),
                    "agent": agent,
                }
            )
    return pl.DataFrame(rows), planted


def redo(folder: Path) -> list[dict[str, Any]]:
    """What a changed threshold or gate costs: the stored scores file (with the judge's
    reasoning, the notes and the evidence) read again and calibrated at a new threshold,
    and the HTML page drawn, for the committed sample and for a session of 4,000 items
    with 200-character texts. No judge is asked: the scores file is the judge's record."""
    from toolkit.load.calibration import load_calibration_scores
    from toolkit.rubrics.calibrate import DEFAULT_CALIBRATE_RUBRIC
    from toolkit.views.calibration_page import render_calibration_page

    big, _ = session(np.random.default_rng(0), 1000, 2)
    words = "the judge read this window as steady and in character; one line is off. " * 3
    big = big.with_columns(
        pl.when(pl.col("rater") == "judge").then(pl.lit(words[:200])).alias("reasoning"),
        pl.lit(words[:200]).alias("evidence"),
    )
    folder.mkdir(exist_ok=True)
    big_path = folder / "calibrate-redo-scores.csv"
    big.write_csv(big_path)
    sample = HERE.parent / "sample_runs" / "calibration" / "scores.csv"
    rows = []
    print("\n| scores file | rows | re-read + calibrate at a new threshold | HTML page |")
    print("|---|---:|---:|---:|")
    for name, path in (("sample (40 items)", sample), ("4,000 items, 200-char texts", big_path)):
        rubric = DEFAULT_CALIBRATE_RUBRIC.model_copy(update={"threshold": 6.0})

        def again(p: Path = path, r: Any = rubric) -> Any:
            return calibrate(load_calibration_scores(p), rubric=r)

        t_redo, result = timings(3, again)
        t_page, _ = timings(3, lambda res=result: render_calibration_page(res, "s", top=10))
        rows.append(
            {"scores": name, "rows": result.items * 4, "redo_s": min(t_redo),
             "page_s": min(t_page)}
        )  # fmt: skip
        print(f"| {name} | {result.items * 4:,} | {min(t_redo) * 1000:.0f} ms "
              f"| {min(t_page) * 1000:.0f} ms |")  # fmt: skip
    big_path.unlink()
    return rows


def main() -> None:
    """Run the sessions, time the sizes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--items", type=int, default=10, help="items per agent")
    parser.add_argument("--misreads", type=int, default=2, help="per agent but Lenny")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    lenny, covered, others, precision = [], 0, [], []
    for s in range(args.sessions):
        frame, planted = session(rng, args.items, args.misreads)
        result = calibrate(frame, seed=s)
        row = result.bias.filter((pl.col("group") == "agent") & (pl.col("value") == "Lenny"))
        lenny.append(row["bias"][0])
        covered += int(row["low"][0] <= 1 <= row["high"][0])
        d = result.disagreements.filter(~pl.col("item").is_in(list(planted)))
        others.extend(
            d.filter(pl.col("agent") != "Lenny")
            .group_by("agent")
            .agg(pl.col("diff").mean())["diff"]
            .to_list()
        )
        top = set(result.disagreements.head(len(planted))["item"].to_list())
        precision.append(len(top & planted) / len(planted))
    err = [abs(b - 1) for b in lenny]
    out: dict[str, Any] = {
        "sessions": args.sessions,
        "items_per_agent": args.items,
        "misreads": args.misreads,
        "lenny_bias_mean": statistics.mean(lenny),
        "lenny_abs_error_median": statistics.median(err),
        "lenny_within_0_1": sum(e <= 0.1 for e in err) / len(err),
        "lenny_interval_covers_1": covered / args.sessions,
        "others_bias_mean": statistics.mean(others),
        "others_within_0_25": sum(abs(o) <= 0.25 for o in others) / len(others),
        "precision_mean": statistics.mean(precision),
        "precision_at_least_0_9": sum(p >= 0.9 for p in precision) / len(precision),
    }
    print(f"| {args.sessions} noisy sessions, {args.items} items per agent | value |")
    print("|---|---:|")
    for key, value in out.items():
        if isinstance(value, float):
            print(f"| {key} | {value:.3f} |")
    sizes = []
    for per_agent in (10, 100, 1000):
        frame, _ = session(np.random.default_rng(0), per_agent, 2)
        times, _ = timings(3, lambda f=frame: calibrate(f))
        sizes.append({"items": 4 * per_agent, "rows": frame.height, "best_s": min(times)})
    print("\n| items (4 raters) | rows | calibrate, best of 3 |\n|---:|---:|---:|")
    for row in sizes:
        print(f"| {row['items']:,} | {row['rows']:,} | {row['best_s'] * 1000:.0f} ms |")
    out["timings"] = sizes
    out["redo"] = redo(HERE / "out")
    out["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    (HERE / "out").mkdir(exist_ok=True)
    (HERE / "out" / "results-calibrate.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
