"""The time of one ``toolkit compare``, against ``import polars`` and split by stage (issue 38).

Usage:
    python sample_runs/make_compare.py /tmp/cmp100 --scenarios 100   # and 300, once
    python bench/bench_compare_time.py [--rounds 3] [PAIR_DIR ...]

A PAIR_DIR holds the arms ``a`` and ``b`` as ``sample_runs/make_compare.py`` writes them
(default: ``sample_runs/compare``, its 12 scenarios). Each round runs, in fresh processes
and interleaved (every step once per round, so a busy spell on the shared machine falls on
all alike): the floor ``python -c "import polars"``; for every PAIR_DIR the whole command
``toolkit compare A B`` (CPU time, user + system, of the process from ``wait4``); and a
child that does the command's steps one after another, timing each with
``time.process_time``: start-up and imports, loading and scoring both arms
(:func:`toolkit.fleet.compare.arm_scores`), and the statistics
(:func:`toolkit.rubrics.compare.compare_scores`). Bytecode is cached first by an untimed
round. Prints Markdown tables (min / median / max, ratios of medians to the floor) and
the growth exponent of each stage in the number of pairs (least squares of log CPU on log
pairs), with the load average.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from toolkit.cli import main; sys.exit(main())"

#: The command's steps one at a time; prints the CPU seconds of each as JSON.
STAGES = """
import json, os, sys, time
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as toolkit.cli.main does
t0 = time.process_time()
from toolkit.fleet.compare import arm_scores, epoch_fence
from toolkit.rubrics.compare import compare_scores
import toolkit.cli.compare
t1 = time.process_time()
a = arm_scores(sys.argv[1])
b = arm_scores(sys.argv[2], a.family)
t2 = time.process_time()
fence = epoch_fence(a, b)
result = compare_scores(a.frame, b.frame, family=a.family, labels=(a.label, b.label),
                        notes=(*fence, *a.notes, *b.notes))
t3 = time.process_time()
pairs = result.dimensions["n_pairs"].max() if "n_pairs" in result.dimensions.columns else None
print(json.dumps({"start_and_imports": t1, "load_and_score": t2 - t1, "statistics": t3 - t2,
                  "pairs": pairs}))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cpu_of(command: Sequence[str]) -> tuple[float, str]:
    """CPU seconds (user + system) of one fresh process, and its standard output."""
    proc = subprocess.Popen(
        command, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: a gate that did not pass
        raise SystemExit(f"failed ({code}): {command}")
    return usage.ru_utime + usage.ru_stime, out


def pairs_of(folder: Path) -> int:
    """Scenarios of arm ``b`` (one run each): the pairs compared."""
    return sum(1 for p in (folder / "b").iterdir() if p.is_dir())


def measure(folders: Sequence[Path], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Every step's CPU seconds in every round (round 0, the warm-up, dropped)."""
    times: dict[str, dict[str, list[float]]] = {"floor": {"whole": []}}
    for f in folders:
        times[str(f)] = {k: [] for k in ("whole", "start_and_imports", "load_and_score",
                                         "statistics")}  # fmt: skip
    for done in range(rounds + 1):
        cpu, _ = cpu_of([sys.executable, "-c", "import polars"])
        if done:
            times["floor"]["whole"].append(cpu)
        for f in folders:
            a, b = str(f / "a"), str(f / "b")
            cpu, _ = cpu_of([sys.executable, "-c", CLI, "compare", a, b])
            _, out = cpu_of([sys.executable, "-c", STAGES, a, b])
            if done:
                times[str(f)]["whole"].append(cpu)
                for key, value in json.loads(out).items():
                    if key in times[str(f)]:
                        times[str(f)][key].append(value)
    return times


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log y on log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def report(times: dict[str, dict[str, list[float]]], folders: Sequence[Path]) -> str:
    floor = statistics.median(times["floor"]["whole"])
    f = times["floor"]["whole"]
    lines = [
        "| pairs | step | CPU min | CPU median | CPU max | × `import polars` |",
        "|---:|---|---:|---:|---:|---:|",
        f"| | floor: `import polars` | {min(f):.3f} | {floor:.3f} | {max(f):.3f} | 1.00× |",
    ]
    sizes = [pairs_of(p) for p in folders]
    for n, p in zip(sizes, folders, strict=True):
        for step, values in times[str(p)].items():
            med = statistics.median(values)
            lines.append(
                f"| {n} | {step} | {min(values):.3f} | {med:.3f} | {max(values):.3f} | "
                f"{med / floor:.2f}× |"
            )
    if len(folders) > 1:
        lines += ["", "| step | growth exponent in pairs (medians) |", "|---|---:|"]
        for step in ("whole", "load_and_score", "statistics"):
            meds = [statistics.median(times[str(p)][step]) for p in folders]
            lines.append(f"| {step} | {slope(sizes, meds):.2f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "sample_runs" / "compare"])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    times = measure(args.folders, args.rounds)
    print(report(times, args.folders))
    print(f"\nload average (1, 5, 15 min) at the start: {load}, at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
