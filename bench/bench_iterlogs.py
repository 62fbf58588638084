"""Iteration-log benchmark: load and score 10,000 dot-agents iteration files (v1 and v2
mixed, in 200 logs) against the I/O floor and a naive reference, in one process run.

Usage: python bench/bench_iterlogs.py [--logs 200] [--iterations 50] [--repeat 3]
       python bench/bench_iterlogs.py --logs 40 --iterations 20 --source s3

--source s3 also uploads the logs to moto's S3 server on 127.0.0.1 and reads them from
there: the fetch floor, loading the logs in one batch and one log at a time, and scoring.

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
    fleet_log_names,
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
    p.add_argument("--source", choices=("disk", "s3"), default="disk")
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
    if args.source == "s3":
        r |= from_s3(folder, paths, args.repeat)
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
    if args.source == "s3":
        per = 1000 / r["s3_objects"]
        rows += [
            ("S3 fetch floor (one listing, one batched cat)", r["s3_floor_s"], f"{r['s3_floor_s'] * per:.1f} ms an object"),  # noqa: E501
            ("S3 load, all logs in one batch", r["s3_load_batched_s"], f"{r['s3_load_batched_s'] / r['s3_floor_s']:.2f}x S3 floor"),  # noqa: E501
            ("S3 load, one log at a time", r["s3_load_each_s"], ""),
            ("S3 load + evidence + score, 1 process", r["s3_load_score_s"], "same table as from disk" if r["s3_agrees"] else "DIFFERS from disk"),  # noqa: E501
        ]  # fmt: skip
    print(f"{r['logs']} logs, {r['files']:,} files; {r['cores']} cores\n")
    print("| step | seconds | note |\n|---|---:|---|")
    for name, secs, note in rows:
        print(f"| {name} | {secs:.3f} | {note} |")
    return 0


def from_s3(folder: Path, paths: list[Path] | list[str], repeat: int) -> dict[str, Any]:
    """The same logs read from moto's S3 server on loopback (these numbers measure moto's
    request handling as much as the toolkit: see docs/scale.md)."""
    from bench_fleet import moto_s3, upload

    out: dict[str, Any] = {}
    with moto_s3() as (endpoint, s3):
        out["s3_objects"] = upload(s3, folder, "logs")
        options = {"endpoint_url": endpoint}
        url = "s3://bench/logs"
        urls = find_iteration_logs(url, storage_options=options)

        def floor() -> int:
            import fsspec

            fs = fsspec.filesystem("s3", **options)
            fs.invalidate_cache()
            return sum(len(b) for b in fs.cat(fs.find("bench/logs")).values())

        out["s3_floor_s"] = best_of(repeat, floor)[0]
        out["s3_load_batched_s"] = best_of(
            repeat, lambda: tk.load_iteration_logs(urls, storage_options=options)
        )[0]
        out["s3_load_each_s"] = best_of(
            repeat,
            lambda: [tk.load_iteration_log(u, storage_options=options) for u in urls],
        )[0]
        t, got = best_of(
            repeat, lambda: score_outcome_logs(urls, workers=1, storage_options=options)
        )
        out["s3_load_score_s"] = t
        want = score_outcome_logs(paths, workers=1)
        named = dict(zip(urls, fleet_log_names(url, urls, storage_options=options), strict=True))
        on_disk = dict(zip(map(str, paths), fleet_log_names(folder, paths), strict=True))
        out["s3_agrees"] = outcome_fleet({named[k]: v for k, v in got.items()}).equals(
            outcome_fleet({on_disk[k]: v for k, v in want.items()})
        )
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
