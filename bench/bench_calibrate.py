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

At scale (issue 38), the whole command in a child process per size, under a memory cap:
    python bench/bench_calibrate.py --scale 10000 100000 1000000 [--rounds 3] [--cap-gib 2]

For each size N a scores CSV of N ratings (N/4 items, three humans and the judge, an
agent group) is written, then ``toolkit calibrate FILE --format json`` runs in a child
whose address space is capped (``RLIMIT_AS``, ``--cap-gib``); its peak resident memory
and its CPU (user + system, children included) come from ``wait4``. Rounds interleave
the sizes; the median is reported with min and max, the committed 160-row sample too,
and the growth exponent of CPU and of memory above the sample's (least squares of log
against log N). Writes bench/out/results-calibrate-scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
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


def scale_scores(path: Path, ratings: int) -> None:
    """A scores CSV of ``ratings`` rows: ratings/4 items, three noisy humans and a judge
    (+1 lenient), each item in one of the four agents."""
    rng = np.random.default_rng(5)
    items = ratings // 4
    true = rng.integers(1, 8, items)
    agents = np.array(AGENTS)[rng.integers(0, 4, items)]
    ids = [f"item-{k}" for k in range(items)]
    parts = []
    for rater, sd, lenient in (
        ("ana", 0.8, 0),
        ("ben", 0.8, 0),
        ("chloe", 0.8, 0),
        ("judge", 0.6, 1),
    ):
        score = np.clip(np.round(true + rng.normal(0, sd, items)) + lenient, 0, 9)
        parts.append(pl.DataFrame({"item": ids, "rater": rater, "score": score, "agent": agents}))
    pl.concat(parts).sort("item").write_csv(path)


#: Stands for the floor in :func:`scale` (``import numpy, polars, pydantic`` alone).
FLOOR = Path("import numpy, polars, pydantic")


def _child(path: Path, cap: int) -> dict[str, Any]:
    """``toolkit calibrate PATH --format json`` in a child capped at ``cap`` bytes of
    address space: its exit code, peak RSS (MiB) and CPU seconds (user + system)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    code = "import sys; from toolkit.cli import main; sys.exit(main())"
    words = ["calibrate", str(path), "--format", "json"]
    if path == FLOOR:  # the floor: the libraries every calibration imports, nothing run
        code, words = "import numpy, polars, pydantic", []
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *words],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limit,
    )  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode() if proc.stderr else ""
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "rss_mib": usage.ru_maxrss / 1024,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "stderr": err[-300:],
    }


def _exponent(sizes: list[int], values: list[float]) -> float:
    """The slope of log(value) against log(size), least squares."""
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def scale(sizes: list[int], rounds: int, cap_gib: float) -> None:
    """Memory and CPU of the whole command at each size (see the module docs)."""
    folder = HERE / "out"
    folder.mkdir(exist_ok=True)
    files = {
        "floor: import numpy, polars, pydantic": FLOOR,
        "sample (160 rows)": HERE.parent / "sample_runs" / "calibration" / "scores.csv",
    }
    for n in sizes:
        files[f"{n:,}"] = folder / f"calibrate-scale-{n}.csv"
        scale_scores(files[f"{n:,}"], n)
    cap = int(cap_gib * (1 << 30))
    got: dict[str, list[dict[str, Any]]] = {name: [] for name in files}
    for _ in range(rounds):  # interleaved: each round runs every size once
        for name, path in files.items():
            got[name].append(_child(path, cap))
    print(f"load average {os.getloadavg()[0]:.1f}; cap {cap_gib:g} GiB of address space")
    print("\n| ratings | exit | CPU s, median (min-max) | peak RSS MiB, median (min-max) |")
    print("|---:|---:|---:|---:|")
    out: dict[str, Any] = {"rounds": rounds, "cap_gib": cap_gib, "sizes": {}}
    for name, runs in got.items():
        cpu = [r["cpu_s"] for r in runs]
        rss = [r["rss_mib"] for r in runs]
        exits = sorted({r["exit"] for r in runs})
        out["sizes"][name] = {"runs": runs, "cpu_median": statistics.median(cpu),
                              "rss_median": statistics.median(rss)}  # fmt: skip
        print(f"| {name} | {','.join(map(str, exits))} | {statistics.median(cpu):.2f} "
              f"({min(cpu):.2f}-{max(cpu):.2f}) | {statistics.median(rss):.0f} "
              f"({min(rss):.0f}-{max(rss):.0f}) |")  # fmt: skip
    base = out["sizes"]["sample (160 rows)"]
    cpu = [out["sizes"][f"{n:,}"]["cpu_median"] - base["cpu_median"] for n in sizes]
    rss = [out["sizes"][f"{n:,}"]["rss_median"] - base["rss_median"] for n in sizes]
    if len(sizes) > 1 and min(cpu) > 0 and min(rss) > 0:
        out["cpu_exponent"] = _exponent(sizes, cpu)
        out["rss_exponent"] = _exponent(sizes, rss)
        print(f"\ngrowth above the sample's cost: CPU ~ N^{out['cpu_exponent']:.2f}, "
              f"memory ~ N^{out['rss_exponent']:.2f}")  # fmt: skip
    out["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    (folder / "results-calibrate-scale.json").write_text(json.dumps(out, indent=2) + "\n")
    for n in sizes:
        files[f"{n:,}"].unlink()


def main() -> None:
    """Run the sessions, time the sizes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--items", type=int, default=10, help="items per agent")
    parser.add_argument("--misreads", type=int, default=2, help="per agent but Lenny")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--scale",
        type=int,
        nargs="+",
        metavar="N",
        help="instead: the whole command at N ratings each, in capped children",
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --scale: rounds")
    parser.add_argument("--cap-gib", type=float, default=2.0, help="with --scale: RLIMIT_AS")
    args = parser.parse_args()
    if args.scale:
        scale(args.scale, args.rounds, args.cap_gib)
        return
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
