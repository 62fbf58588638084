"""What a command's Polars queries cost on their own, replayed in a bare ``import polars``.

Issue 38 asks ``toolkit discussion`` and ``toolkit quality RUN`` to cost at most 1.3x the
CPU of ``python -c "import polars"``. This benchmark separates Polars' share of that from
the toolkit's: it runs the command once with every query plan it collects captured
(serialised, with the frames they scan), then, in fresh processes and interleaved rounds,
times

* the floor, ``python -c "import polars"``;
* ``deserialise``: ``import polars`` and every captured plan read back, none run;
* ``replay``: the same, and every plan collected as the command collected it (eager or
  lazy optimisation flags).

``replay - deserialise`` is the CPU of the command's queries alone, with no toolkit code:
no module of the toolkit imported, no expression built in Python, nothing loaded or
printed. Its ratio to the floor is the part of the 1.3x budget the queries take whatever
the toolkit does around them. Plans Polars cannot serialise (a sink into an in-memory
buffer) are left out and counted, so the figure is a lower bound.

Usage:
    python bench/bench_query_replay.py [--rounds 15] [--tree DIR] -- COMMAND ARGS...
    (e.g. ``-- discussion sample_runs/discussions``)

The capture hooks ``polars.lazyframe.engine._LocalEngine.collect`` (a private name of
Polars 2.x: this is a measuring tool, not the toolkit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CAPTURE = """
import io, pickle, sys
import polars.lazyframe.engine as engine
plans, skipped = [], []
collect = engine._LocalEngine.collect
def capturing(self, lf, *, optimizations, **kw):
    try:
        plans.append((lf.serialize(), bool(optimizations._pyoptflags.eager)))
    except Exception as exc:
        skipped.append(str(exc).splitlines()[-1][:80])
    return collect(self, lf, optimizations=optimizations, **kw)
engine._LocalEngine.collect = capturing
from toolkit.cli import main
out, sys.argv = sys.argv[1], ["toolkit", *sys.argv[2:]]
sys.stdout = io.StringIO()
try:
    main()
except SystemExit:
    pass
with open(out, "wb") as f:
    pickle.dump({"plans": plans, "skipped": skipped}, f)
"""

RUN = """
import io, pickle, sys
import polars as pl
with open(sys.argv[1], "rb") as f:
    plans = pickle.load(f)["plans"]
frames = [(pl.LazyFrame.deserialize(io.BytesIO(b)), eager) for b, eager in plans]
if sys.argv[2] == "replay":
    for lf, eager in frames:
        lf.collect(optimizations=pl.QueryOptFlags._eager() if eager else pl.QueryOptFlags())
"""


def capture(command: Sequence[str], tree: Path, out: Path) -> tuple[int, list[str]]:
    """Run ``toolkit COMMAND`` from ``tree`` with its plans written to ``out``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(
        [sys.executable, "-c", CAPTURE, str(out), *command], cwd=tree, env=env, check=True
    )
    import pickle

    with out.open("rb") as f:
        found = pickle.load(f)
    return len(found["plans"]), found["skipped"]


def cpu_of(command: Sequence[str]) -> float:
    """The CPU seconds (user + system) of one fresh process running ``command``."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {command}")
    return usage.ru_utime + usage.ru_stime


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to capture from")
    parser.add_argument("command", nargs="+", help="the toolkit command's arguments")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        plans = Path(scratch) / "plans.pkl"
        count, skipped = capture(args.command, args.tree.resolve(), plans)
        steps = {
            "floor": [sys.executable, "-c", "import polars"],
            "deserialise": [sys.executable, "-c", RUN, str(plans), "load"],
            "replay": [sys.executable, "-c", RUN, str(plans), "replay"],
        }
        load = os.getloadavg()
        times: dict[str, list[float]] = {name: [] for name in steps}
        for done in range(args.rounds + 1):
            for name, command in steps.items():
                cpu = cpu_of(command)
                if done:  # round 0 warms the page cache
                    times[name].append(cpu)
    floor = statistics.median(times["floor"])
    queries = [r - d for r, d in zip(times["replay"], times["deserialise"], strict=True)]
    print(f"`toolkit {' '.join(args.command)}`: {count} plans replayed", end="")
    print(f", {len(skipped)} left out ({'; '.join(sorted(set(skipped)))})" if skipped else "")
    print("\n| step | CPU min | CPU median | CPU max | × floor (median) |")
    print("|---|---:|---:|---:|---:|")
    for name, values in [*times.items(), ("queries alone (replay - deserialise)", queries)]:
        print(
            f"| {name} | {min(values):.3f} | {statistics.median(values):.3f} | "
            f"{max(values):.3f} | {statistics.median(values) / floor:.2f}× |"
        )
    print(f"\nload average (1, 5, 15 min) at the start: {load}; rounds: {args.rounds}")


if __name__ == "__main__":
    main()
