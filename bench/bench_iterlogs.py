"""Iteration-log benchmark: load and score 10,000 dot-agents iteration files (v1 and v2
mixed, in 200 logs) against the I/O floor and a naive reference, in one process run.

Usage: python bench/bench_iterlogs.py [--logs 200] [--iterations 50] [--repeat 3]
       python bench/bench_iterlogs.py --logs 40 --iterations 20 --source s3

--source s3 also uploads the logs to moto's S3 server on 127.0.0.1 and reads them from
there: the fetch floor, loading the logs in one batch and one log at a time, and scoring.

Every step is measured in CPU seconds (user + system, all threads, and reaped worker
processes) beside wall seconds, min / median / max over --rounds interleaved rounds, with
the machine's load average. The I/O floor reads every file whole with one 64 KiB
``os.read`` from the page cache; the 16 MiB buffer of the floor recorded before issue 25
is still measured beside it, to show how much it inflated that floor.

Prints a Markdown table and writes bench/out/results-iterlogs-<logs>x<iterations>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_iterlogs  # noqa: E402
import naive_iterlogs  # noqa: E402
from timing import best_of, interleaved, load_average, spread  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.fleet.outcome import (  # noqa: E402
    find_iteration_logs,
    fleet_log_names,
    outcome_fleet,
    score_outcome_logs,
)


def io_floor(folder: Path, buffer: int = 1 << 16) -> int:
    """Read every file of every log: one ``os.read`` of ``buffer`` bytes a file."""
    total = 0
    for log in sorted(os.scandir(folder), key=lambda e: e.name):
        if not log.is_dir():
            continue
        with os.scandir(log.path) as entries:
            for e in entries:
                fd = os.open(e.path, os.O_RDONLY)
                try:
                    total += len(os.read(fd, buffer))
                finally:
                    os.close(fd)
    return total


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--logs", type=int, default=200)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--rounds", "--repeat", dest="rounds", type=int, default=3)
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

    def naive_load_score() -> None:
        for log in [naive_iterlogs.load_log(p) for p in paths]:
            naive_iterlogs.score_log(log)

    times, _, loads = interleaved(
        {
            "floor": lambda: io_floor(folder),
            "floor_16mib": lambda: io_floor(folder, 1 << 24),
            "load": lambda: [tk.load_iteration_log(p) for p in paths],
            "load_score_serial": lambda: outcome_fleet(score_outcome_logs(paths, workers=1)),
            "load_score_pooled": lambda: outcome_fleet(
                score_outcome_logs(paths, workers=os.cpu_count())
            ),
            "naive_load_score": naive_load_score,
        },
        args.rounds,
    )
    r["steps"] = {k: {"cpu": spread(t["cpu"]), "wall": spread(t["wall"]), "rounds": t}
                  for k, t in times.items()}  # fmt: skip
    r["load_averages"] = loads
    r["load_average_end"] = load_average()
    if args.source == "s3":
        r |= from_s3(folder, paths, args.rounds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"results-iterlogs-{args.logs}x{args.iterations}.json").write_text(
        json.dumps(r, indent=2)
    )
    st = r["steps"]

    def med(step: str, kind: str = "cpu") -> float:
        return float(st[step][kind]["median"])

    best = min(med("load_score_serial"), med("load_score_pooled"))
    best_wall = min(med("load_score_serial", "wall"), med("load_score_pooled", "wall"))
    rows = [
        ("floor", "I/O floor: 64 KiB `os.read` of every file", ""),
        ("floor_16mib", "the earlier floor: 16 MiB buffer (inflated)",
         f"{med('floor_16mib') / med('floor'):.1f}× the floor"),
        ("load", "load (typed frames, C YAML parser)",
         f"{med('load') / med('floor'):.0f}× the floor"),
        ("load_score_serial", "load + evidence + score, 1 process", ""),
        ("load_score_pooled", f"load + evidence + score, {r['cores']} processes", ""),
        ("naive_load_score", "naive load + score (`yaml.safe_load`, Python loops)",
         f"toolkit {med('naive_load_score') / best:.1f}× faster in CPU, "
         f"{med('naive_load_score', 'wall') / best_wall:.1f}× in wall time"),
    ]  # fmt: skip
    print(
        f"{r['logs']} logs, {r['files']:,} files; {r['cores']} cores; load average "
        + ", ".join(f"{x:.1f}" for x in r["load_averages"])
        + f" at the start of each round ({r['load_average_end']:.1f} at the end)\n"
    )
    print("| step | CPU min | CPU median | CPU max | wall min | wall median | wall max | note |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for key, name, note in rows:
        c, w = st[key]["cpu"], st[key]["wall"]
        print(
            f"| {name} | {c['min']:.3f} | {c['median']:.3f} | {c['max']:.3f} | {w['min']:.3f} "
            f"| {w['median']:.3f} | {w['max']:.3f} | {note} |"
        )
    if args.source == "s3":
        per = 1000 / r["s3_objects"]
        s3_rows = [
            ("S3 fetch floor (one listing, one batched cat)", r["s3_floor_s"], f"{r['s3_floor_s'] * per:.1f} ms an object"),  # noqa: E501
            ("S3 load, all logs in one batch", r["s3_load_batched_s"], f"{r['s3_load_batched_s'] / r['s3_floor_s']:.2f}x S3 floor"),  # noqa: E501
            ("S3 load, one log at a time", r["s3_load_each_s"], ""),
            ("S3 load + evidence + score, 1 process", r["s3_load_score_s"], "same table as from disk" if r["s3_agrees"] else "DIFFERS from disk"),  # noqa: E501
        ]  # fmt: skip
        print("\n| step (S3, best of rounds) | seconds | note |\n|---|---:|---|")
        for name, secs, note in s3_rows:
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
