"""One run (and one comparison) on the command line against ``python -c "import polars"``.

Issue 38's targets: ``toolkit quality RUN`` and ``toolkit discussion`` within 1.3x the
floor; ``toolkit compare`` of the sample pair (12 pairs, 36 runs) within 1.5 s of CPU.

Usage:
    python bench/bench_one_run.py [--rounds 7] [--tree DIR ...]

Each round runs, in fresh processes and in this order, the floor and then every command
below once per toolkit tree (``--tree``: a checkout whose ``toolkit`` package is put first
on ``PYTHONPATH``; by default this one), so a busy spell on the shared machine falls on
all of them alike (interleaved rounds). Bytecode is cached first by one untimed round, as
in an installed package. The measure is the CPU time (user + system) of the whole process,
from ``wait4``; a command's ratio is its CPU median over the floor's (and the min and max
of the per-round ratios beside it, and their median: each round's command over the same
round's floor, which a slow spell of the shared machine moves less than it moves the
medians of whole columns). Prints a Markdown table with the load average; ``--json``
keeps every round's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = ROOT / "sample_runs" / "universes" / "ashfall"
GAMES = ROOT / "sample_runs" / "discussions"
PAIR = ROOT / "sample_runs" / "compare"
CLI = "import sys; from toolkit.cli import main; sys.exit(main())"

#: (label, arguments of the toolkit command line)
COMMANDS: list[tuple[str, list[str]]] = [
    ("`toolkit quality ashfall`", ["quality", str(RUN)]),
    ("`toolkit quality ashfall --format json`", ["quality", str(RUN), "--format", "json"]),
    ("`toolkit discussion discussions/`", ["discussion", str(GAMES)]),
    ("`toolkit compare compare/a compare/b`", ["compare", str(PAIR / "a"), str(PAIR / "b")]),
]


def cpu_of(command: Sequence[str], tree: Path | None) -> float:
    """The CPU seconds (user + system) of one fresh process running ``command``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if tree is not None:
        tree = tree.resolve()
        env["PYTHONPATH"] = str(tree)
    # Run in the tree: ``python -c`` puts its working folder first on sys.path, before
    # PYTHONPATH, so from this checkout every tree would import this checkout's toolkit.
    proc = subprocess.Popen(
        command, cwd=tree or ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: a gate that did not pass is still a run
        raise SystemExit(f"failed ({proc.returncode}): {command}")
    return usage.ru_utime + usage.ru_stime


def measure(rounds: int, trees: Sequence[Path | None]) -> dict[str, list[float]]:
    """CPU seconds of every step in every round, the steps interleaved."""
    steps: list[tuple[str, list[str], Path | None]] = [
        ("floor", [sys.executable, "-c", "import polars"], None)
    ]
    for tree in trees:
        tag = "" if len(trees) == 1 else f" [{tree}]"
        steps += [(label + tag, [sys.executable, "-c", CLI, *a], tree) for label, a in COMMANDS]
    times: dict[str, list[float]] = {name: [] for name, _, _ in steps}
    for done in range(rounds + 1):
        for name, command, tree in steps:
            cpu = cpu_of(command, tree)
            if done:  # round 0 caches bytecode and warms the page cache
                times[name].append(cpu)
    return times


def report(times: dict[str, list[float]], load: tuple[float, ...]) -> str:
    """A Markdown table: CPU min / median / max and the ratio to the floor."""
    floor = times["floor"]
    lines = [
        "| command | CPU min | CPU median | CPU max | × floor (median) | × floor per round, "
        "median | × floor per round, min-max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, values in times.items():
        ratios = [v / f for v, f in zip(values, floor, strict=True)]
        lines.append(
            f"| {name} | {min(values):.3f} | {statistics.median(values):.3f} | "
            f"{max(values):.3f} | {statistics.median(values) / statistics.median(floor):.2f}× | "
            f"{statistics.median(ratios):.2f}× | {min(ratios):.2f}-{max(ratios):.2f}× |"
        )
    lines.append(f"\nload average (1, 5, 15 min) at the start: {load}; rounds: {len(floor)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to measure")
    parser.add_argument("--json", type=Path, help="also write every round's CPU seconds here")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    times = measure(args.rounds, args.tree or [None])
    if args.json is not None:
        args.json.write_text(json.dumps({"load": load, "cpu_seconds": times}, indent=1))
    print(report(times, load))


if __name__ == "__main__":
    main()
