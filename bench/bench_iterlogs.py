"""Iteration-log benchmark: load and score 10,000 dot-agents iteration files (v1 and v2
mixed, in 200 logs) against the I/O floor and a naive reference, in one process run.

Usage: python bench/bench_iterlogs.py [--logs 200] [--iterations 50] [--repeat 3]

Prints a Markdown table and writes bench/out/results-iterlogs-<logs>x<iterations>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_iterlogs  # noqa: E402
import naive_iterlogs  # noqa: E402
from timing import best_of  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.rubrics.outcome_fleet import (  # noqa: E402
    find_iteration_logs,
    outcome_fleet,
    score_outcome_logs,
)


def io_floor(folder: Path) -> int:
    total = 0
    for log in sorted(os.scandir(folder), key=lambda e: e.name):
        if not log.is_dir():
            continue
        with os.scandir(log.path) as entries:
            for e in entries:
                fd = os.open(e.path, os.O_RDONLY)
                try:
                    total += len(os.read(fd, 1 << 24))
                finally:
                    os.close(fd)
    return total


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--logs", type=int, default=200)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", type=Path, default=HERE / "out")
    args = p.parse_args(argv)
    folder = args.out / f"iterlogs-{args.logs}x{args.iterations}"
    if not (folder / ".complete").exists():
        files = make_iterlogs.write_logs(folder, args.logs, args.iterations, seed=1)
        (folder / ".complete").write_text(str(files))
    files = int((folder / ".complete").read_text())
    paths = find_iteration_logs(folder)
    r: dict[str, Any] = {"logs": len(paths), "files": files, "cores": os.cpu_count()}
    r["io_floor_s"] = best_of(args.repeat, lambda: io_floor(folder))[0]
    r["load_s"] = best_of(args.repeat, lambda: [tk.load_iteration_log(p) for p in paths])[0]
    r["load_score_serial_s"] = best_of(
        args.repeat, lambda: outcome_fleet(score_outcome_logs(paths, workers=1))
    )[0]
    r["load_score_pooled_s"] = best_of(
        args.repeat, lambda: outcome_fleet(score_outcome_logs(paths, workers=os.cpu_count()))
    )[0]
    t0 = time.perf_counter()
    logs = [naive_iterlogs.load_log(p) for p in paths]
    r["naive_load_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    for log in logs:
        naive_iterlogs.score_log(log)
    r["naive_score_s"] = time.perf_counter() - t0
    r["naive_total_s"] = r["naive_load_s"] + r["naive_score_s"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"results-iterlogs-{args.logs}x{args.iterations}.json").write_text(
        json.dumps(r, indent=2)
    )
    best = min(r["load_score_serial_s"], r["load_score_pooled_s"])
    rows = [
        ("I/O floor (read every file)", r["io_floor_s"], ""),
        ("load (typed frames, C YAML parser)", r["load_s"], f"{r['load_s'] / r['io_floor_s']:.0f}x floor"),  # noqa: E501
        ("load + evidence + score, 1 process", r["load_score_serial_s"], ""),
        (f"load + evidence + score, {r['cores']} processes", r["load_score_pooled_s"], ""),
        ("naive load (yaml.safe_load per file)", r["naive_load_s"], ""),
        ("naive scoring (Python loops)", r["naive_score_s"], ""),
        ("naive load + score", r["naive_total_s"], f"toolkit {r['naive_total_s'] / best:.1f}x faster"),  # noqa: E501
    ]  # fmt: skip
    print(f"{r['logs']} logs, {r['files']:,} files; {r['cores']} cores\n")
    print("| step | seconds | note |\n|---|---:|---|")
    for name, secs, note in rows:
        print(f"| {name} | {secs:.3f} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
