"""One run (and one comparison) on the command line against ``python -c "import polars"``.

Issue 38's targets: ``toolkit quality RUN`` and ``toolkit discussion`` within 1.3x the
floor; ``toolkit compare`` of the sample pair (12 pairs, 36 runs) within 1.5 s of CPU.

Usage:
    python bench/bench_one_run.py [--rounds 7] [--tree DIR ...] [--instructions]

Each round runs, in fresh processes and in this order, the floor and then every command
below once per toolkit tree (``--tree``: a checkout whose ``toolkit`` package is put first
on ``PYTHONPATH``, the floor with the first tree's too; by default this one, as installed,
with none), so a busy spell on the shared machine falls on all of them alike (interleaved
rounds). Bytecode is cached first by one untimed round, as in an installed package. The
measure is the CPU time (user + system) of the whole process, from ``wait4``; a command's
ratio is its CPU median over the floor's (and the min and max of the per-round ratios
beside it, and their median: each round's command over the same round's floor, which a
slow spell of the shared machine moves less than it moves the medians of whole columns),
with a 95 % interval for that median (:func:`median_interval`: whether the rounds tell a
ratio near a target apart from it). Prints a Markdown table with the load average;
``--json`` keeps every round's CPU seconds.

``--instructions`` counts instead the instructions each process executes, under Valgrind's
callgrind (Debian's ``valgrind``), floor included, with one Polars thread and a fixed hash
seed (``POLARS_MAX_THREADS=1``, ``PYTHONHASHSEED=0``): Polars caches compiled regexes per
worker thread, so with its pool the count moves by ±0.5 % with which thread ran a match;
so pinned it repeats to ~0.05 % on a host with a core to spare, and one round is enough to
read a ratio to the floor where CPU seconds swing by a fifth. With every core busy (a
concurrent test run) the counts of one command moved by up to 2 %: callgrind runs one
thread at a time, and a thread that spins while it waits is counted. It misses what
instructions do not show (cache misses, page faults, the kernel, the pool's spinning), so
the CPU ratio stays the target's measure; the two side by side tell a change's effect from
the host's noise.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import math
import os
import pty
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = ROOT / "sample_runs" / "universes" / "ashfall"
GAMES = ROOT / "sample_runs" / "discussions"
PAIR = ROOT / "sample_runs" / "compare"
CLI = "import sys; from toolkit.cli import main; sys.exit(main())"

#: (label, arguments of the toolkit command line, run at a terminal): piped (as in CI, and
#: the targets' measure) unless the last field says a terminal of 80 columns (a pty: text
#: wrapped to its width and coloured, as a person at a prompt sees it)
COMMANDS: list[tuple[str, list[str], bool]] = [
    ("`toolkit quality ashfall`", ["quality", str(RUN)], False),
    ("`toolkit quality ashfall --format json`", ["quality", str(RUN), "--format", "json"], False),
    ("`toolkit discussion discussions/`", ["discussion", str(GAMES)], False),
    ("`toolkit compare compare/a compare/b`", ["compare", str(PAIR / "a"), str(PAIR / "b")], False),
    ("`toolkit quality ashfall` at a terminal", ["quality", str(RUN)], True),
    ("`toolkit discussion discussions/` at a terminal", ["discussion", str(GAMES)], True),
]


@contextlib.contextmanager
def _output(terminal: bool) -> Iterator[int]:
    """Where a command writes: ``subprocess.DEVNULL``, or a pseudo-terminal's end whose
    other end is read (and dropped) until the command closes it."""
    if not terminal:
        yield subprocess.DEVNULL
        return
    main_end, command_end = pty.openpty()
    fcntl.ioctl(command_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

    def drain() -> None:
        with contextlib.suppress(OSError):  # EIO once the command's end is closed
            while os.read(main_end, 65536):
                pass

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        yield command_end
    finally:
        os.close(command_end)
        reader.join()
        os.close(main_end)


def _env(tree: Path | None, terminal: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "NO_COLOR")}
    if terminal:
        env |= {"TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree.resolve())
    return env


def cpu_of(command: Sequence[str], tree: Path | None, terminal: bool = False) -> float:
    """The CPU seconds (user + system) of one fresh process running ``command`` (its
    output to a terminal of 80 columns with ``terminal``)."""
    env = _env(tree, terminal)
    # Run in the tree: ``python -c`` puts its working folder first on sys.path, before
    # PYTHONPATH, so from this checkout every tree would import this checkout's toolkit.
    with _output(terminal) as out:
        proc = subprocess.Popen(
            command, cwd=tree.resolve() if tree else ROOT, env=env, stdout=out,
            stderr=subprocess.PIPE if not terminal else out,
        )  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: a gate that did not pass is still a run
        raise SystemExit(f"failed ({proc.returncode}): {command}")
    return usage.ru_utime + usage.ru_stime


def instructions_of(command: Sequence[str], tree: Path | None, terminal: bool = False) -> int:
    """The instructions one fresh process running ``command`` executes (callgrind's
    ``Collected``), its bytecode cached by an untimed run first."""
    env = _env(tree, terminal) | {"POLARS_MAX_THREADS": "1", "PYTHONHASHSEED": "0"}
    cwd = tree.resolve() if tree else ROOT
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    with tempfile.TemporaryDirectory() as scratch, _output(terminal) as out:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out",
             f"--log-file={scratch}/log", *command],
            cwd=cwd, env=env, stdout=out, stderr=out, check=False,
        )  # fmt: skip
        text = Path(f"{scratch}/log").read_text()
    found = re.search(r"Collected : (\d+)", text)
    if proc.returncode not in (0, 1) or found is None:
        raise SystemExit(f"failed under callgrind ({proc.returncode}): {command}")
    return int(found.group(1))


def measure(rounds: int, trees: Sequence[Path | None]) -> dict[str, list[float]]:
    """CPU seconds of every step in every round, the steps interleaved."""
    steps = _steps(trees)
    times: dict[str, list[float]] = {name: [] for name, _, _, _ in steps}
    for done in range(rounds + 1):
        for name, command, tree, terminal in steps:
            cpu = cpu_of(command, tree, terminal)
            if done:  # round 0 caches bytecode and warms the page cache
                times[name].append(cpu)
    return times


def _steps(trees: Sequence[Path | None]) -> list[tuple[str, list[str], Path | None, bool]]:
    """(label, command line, tree, at a terminal) of the floor, then of every command in
    every tree."""
    # The floor runs as the commands do: a tree's checkout first on ``PYTHONPATH`` costs
    # every import of the process a look in one more folder (~6 M instructions, 0.9 % of
    # ``import polars`` itself), which a floor without it would charge to the command.
    steps: list[tuple[str, list[str], Path | None, bool]] = [
        ("floor", [sys.executable, "-c", "import polars"], trees[0], False)
    ]
    for tree in trees:
        tag = "" if len(trees) == 1 else f" [{tree}]"
        steps += [
            (label + tag, [sys.executable, "-c", CLI, *a], tree, terminal)
            for label, a, terminal in COMMANDS
        ]
    return steps


def instructions_report(trees: Sequence[Path | None]) -> str:
    """A Markdown table of each step's instructions and their ratio to the floor's."""
    counts = {
        name: instructions_of(command, tree, terminal)
        for name, command, tree, terminal in _steps(trees)
    }
    lines = ["| command | instructions (M) | × floor |", "|---|---:|---:|"]
    lines += [
        f"| {name} | {n / 1e6:,.1f} | {n / counts['floor']:.3f}× |" for name, n in counts.items()
    ]
    return "\n".join(lines)


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """A distribution-free confidence interval for the median of ``values`` (SciPy's
    ``quantile_test``: two order statistics chosen by the binomial distribution, coverage
    at least ``level`` for independent rounds from any continuous distribution). NaN at
    both ends when there are too few values for that coverage (fewer than six at 95 %)."""
    from scipy.stats import quantile_test  # only here: the bench's own imports stay light

    ci = quantile_test(values, q=statistics.median(values), p=0.5).confidence_interval(level)
    return float(ci.low), float(ci.high)


def report(times: dict[str, list[float]], load: tuple[float, ...]) -> str:
    """A Markdown table: CPU min / median / max and the ratio to the floor, and the
    per-round ratios' median with its 95 % interval (:func:`median_interval`), which says
    whether a ratio near a target is told apart from it by these rounds."""
    floor = times["floor"]
    lines = [
        "| command | CPU min | CPU median | CPU max | × floor (median) | × floor per round, "
        "median | per-round median, 95 % interval | × floor per round, min-max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, values in times.items():
        ratios = [v / f for v, f in zip(values, floor, strict=True)]
        low, high = median_interval(ratios)
        interval = (
            f"{low:.3f}-{high:.3f}×"
            if math.isfinite(low) and math.isfinite(high)
            else "too few rounds"
        )
        lines.append(
            f"| {name} | {min(values):.3f} | {statistics.median(values):.3f} | "
            f"{max(values):.3f} | {statistics.median(values) / statistics.median(floor):.2f}× | "
            f"{statistics.median(ratios):.2f}× | {interval} | "
            f"{min(ratios):.2f}-{max(ratios):.2f}× |"
        )
    lines.append(f"\nload average (1, 5, 15 min) at the start: {load}; rounds: {len(floor)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to measure")
    parser.add_argument("--json", type=Path, help="also write every round's CPU seconds here")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under callgrind (one round) instead of timing CPU",
    )
    args = parser.parse_args(argv)
    if args.instructions:
        if shutil.which("valgrind") is None:
            raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
        print(instructions_report(args.tree or [None]))
        return
    load = os.getloadavg()
    times = measure(args.rounds, args.tree or [None])
    if args.json is not None:
        args.json.write_text(json.dumps({"load": load, "cpu_seconds": times}, indent=1))
    print(report(times, load))


if __name__ == "__main__":
    main()
