"""Fleet benchmark: load and score a thousand simulation runs, against the I/O floor and a
naive reference, all measured in one process run.

Usage (the recorded run; about 10 minutes the first time, most of it generating data):
    python bench/bench_fleet.py --runs 1000 --ticks 300

Prints a Markdown table and writes bench/out/results-<runs>x<ticks>.json. Data is
generated once into bench/out/ (git-ignored) by bench/make_fleet.py and reused.
Timings are the best of --repeat runs (the naive reference runs once: it is slow and its
spread is small); all reads are from the page cache, as the generator just wrote them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "sample_runs" / "universes" / "ashfall"
sys.path.insert(0, str(HERE))

import make_fleet  # noqa: E402
import naive  # noqa: E402
from timing import best_of  # noqa: E402

import toolkit as tk  # noqa: E402


def tick_files(fleet: Path) -> list[str]:
    files: list[str] = []
    for run in sorted(os.scandir(fleet), key=lambda e: e.name):
        if not run.is_dir():
            continue
        ticks = Path(run.path) / "tick_summaries" / "ticks"
        with os.scandir(ticks) as entries:
            files.extend(e.path for e in entries)
    return files


def _raw_read(path: str) -> int:
    fd = os.open(path, os.O_RDONLY)
    try:
        return len(os.read(fd, 1 << 24))
    finally:
        os.close(fd)


def io_floor(fleet: Path) -> int:
    """List the run folders and read every tick file's bytes: raw os.read, nothing else."""
    return sum(_raw_read(p) for p in tick_files(fleet))


def io_floor_threaded(fleet: Path) -> int:
    """The same with 8 threads (slower here: small files, the GIL, 2 cores)."""
    with ThreadPoolExecutor(8) as pool:
        return sum(pool.map(_raw_read, tick_files(fleet)))


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def child_peak(fleet: Path, window: int) -> dict[str, int]:
    """In a fresh process: RSS before (after a small warm-up load, so imports and thread
    pools are counted in the base), peak RSS after load+score, and the frames' size."""
    code = (
        f"import json, resource, sys; sys.path.insert(0, {str(HERE)!r})\n"
        "import bench_fleet as b, toolkit as tk\n"
        f"tk.score_universe(tk.load_universe({str(SAMPLE)!r}))\n"
        "base = b.rss_kib()\n"
        f"u = tk.load_universes({str(fleet / 'run-*')!r}, progress=False)\n"
        f"cards = tk.score_universe(u, window={window}, series=False)\n"
        "size = sum(f.estimated_size() for f in (u.ticks, u.batches, u.checkpoints))\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'base_kib': base, 'peak_kib': peak, 'frames_bytes': size}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def machine() -> dict[str, Any]:
    import polars as pl

    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "platform": platform.platform(),
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--window", type=int, default=50)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=HERE / "out")
    args = p.parse_args(argv)

    fleet = args.out / f"fleet-{args.runs}x{args.ticks}-seed{args.seed}"
    done = fleet / ".complete"
    if not done.exists():
        print(f"generating {fleet} ...", file=sys.stderr)
        t0 = time.perf_counter()
        make_fleet.write_fleet(fleet, args.runs, args.ticks, nights=10, seed=args.seed)
        done.write_text("")
        print(f"  generated in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    pattern = fleet / "run-*"
    results: dict[str, Any] = {"runs": args.runs, "ticks_per_run": args.ticks}
    results["machine"] = machine()
    # First, while this process is small: Linux carries a process's peak RSS across
    # fork+exec, so a child started after the naive reference would report ours.
    results["memory"] = child_peak(fleet, args.window)

    t, nbytes = best_of(args.repeat, lambda: io_floor(fleet))
    results["io_floor_s"] = t
    results["bytes"] = nbytes
    results["io_floor_threaded_s"] = best_of(args.repeat, lambda: io_floor_threaded(fleet))[0]

    t, universe = best_of(args.repeat, lambda: tk.load_universes(pattern, progress=False))
    results["cold_load_s"] = t
    results["ticks"] = universe.ticks.height
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        tk.load_universes(pattern, cache=cache, progress=False)
        results["cold_load_writing_cache_s"] = time.perf_counter() - t0
        results["warm_load_s"] = best_of(
            args.repeat, lambda: tk.load_universes(pattern, cache=cache, progress=False)
        )[0]

    t, cards = best_of(
        args.repeat, lambda: tk.score_universe(universe, window=args.window, series=False)
    )
    results["score_s"] = t
    results["score_with_series_s"] = best_of(
        1, lambda: tk.score_universe(universe, window=args.window, series=True)
    )[0]
    results["load_score_s"] = best_of(
        args.repeat,
        lambda: tk.score_universe(
            tk.load_universes(pattern, progress=False), window=args.window, series=False
        ),
    )[0]

    t, naive_runs = best_of(1, lambda: naive.load_fleet(fleet))
    results["naive_load_s"] = t
    t, expected = best_of(1, lambda: naive.score_fleet(naive_runs, args.window))
    results["naive_score_s"] = t
    results["naive_total_s"] = results["naive_load_s"] + t
    got = {c.subject: dict(c.dimensions.select("dimension", "status").iter_rows()) for c in cards}
    results["naive_agrees"] = got == expected
    naive_runs = None
    results["parent_peak_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"results-{args.runs}x{args.ticks}.json"
    target.write_text(json.dumps(results, indent=2))
    print(report(results))
    return 0


def report(r: dict[str, Any]) -> str:
    mem = r["memory"]
    grown_mib = (mem["peak_kib"] - mem["base_kib"]) / 1024
    frames_mib = mem["frames_bytes"] / 2**20
    rows = [
        ("I/O floor (list + read every tick file)", r["io_floor_s"], ""),
        ("cold load (files → typed frames)", r["cold_load_s"],
         f"{r['cold_load_s'] / r['io_floor_s']:.1f}x the floor (target <= 2x)"),
        ("cold load, writing the cache", r["cold_load_writing_cache_s"], ""),
        ("warm load (Parquet cache)", r["warm_load_s"],
         f"{r['cold_load_s'] / r['warm_load_s']:.1f}x faster than cold (target >= 20x)"),
        ("scoring the fleet (one group_by pass)", r["score_s"],
         f"{r['naive_score_s'] / r['score_s']:.0f}x faster than naive (target >= 50x)"),
        ("scoring with per-tick series (rolling)", r["score_with_series_s"], ""),
        ("load + score", r["load_score_s"],
         f"{r['naive_total_s'] / r['load_score_s']:.1f}x faster than naive (target >= 3x)"),
        ("naive load (json.load per file)", r["naive_load_s"], ""),
        ("naive scoring (Python loops)", r["naive_score_s"], ""),
        ("naive load + score", r["naive_total_s"], ""),
    ]  # fmt: skip
    lines = [
        f"{r['runs']} runs, {r['ticks']:,} ticks, {r['bytes'] / 2**20:.0f} MiB of tick files; "
        f"{r['machine']['cores']} cores, {r['machine']['cpu']}",
        "",
        "| step | seconds | against the target |",
        "|---|---:|---|",
        *(f"| {name} | {secs:.3f} | {note} |" for name, secs, note in rows),
        "",
        f"Peak memory of load + score in a fresh process: {grown_mib:.0f} MiB above the "
        f"interpreter's {mem['base_kib'] / 1024:.0f} MiB; the frames hold {frames_mib:.0f} MiB "
        f"({grown_mib / frames_mib:.1f}x, target < 3x).",
        f"Naive reference and toolkit agree on every status of every run: {r['naive_agrees']}.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
