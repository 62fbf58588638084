"""Fleet benchmark: load and score a thousand simulation runs, against the I/O floor and a
naive reference, all measured in one process run.

Usage (the recorded run; about 10 minutes the first time, most of it generating data):
    python bench/bench_fleet.py --runs 1000 --ticks 300

Scale (issue 17), beside the local numbers in the same run:
    python bench/bench_fleet.py --runs 40 --ticks 100 --engine dask --source s3
--engine dask also scores the fleet on a LocalCluster (2 worker processes, 1 thread each);
--source s3 uploads the fleet to moto's S3 server on 127.0.0.1 and reads it from there,
also with the run cache in a local folder and in S3 (cold, writing it; then warm).

Prints a Markdown table and writes bench/out/results-<runs>x<ticks>.json. Data is
generated once into bench/out/ (git-ignored) by bench/make_fleet.py and reused.
Timings are the best of --repeat runs (the naive reference runs once: it is slow and its
spread is small); all reads are from the page cache, as the generator just wrote them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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
    p.add_argument("--engine", choices=("local", "dask"), default="local")
    p.add_argument("--source", choices=("disk", "s3"), default="disk")
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

    if args.engine == "dask" or args.source == "s3":
        results["scale"] = scale(fleet, args, local_cards=cards)

    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"results-{args.runs}x{args.ticks}.json"
    target.write_text(json.dumps(results, indent=2))
    print(report(results))
    if "scale" in results:
        print()
        print(scale_report(results["scale"], results["load_score_s"]))
    return 0


@contextlib.contextmanager
def moto_s3() -> Iterator[tuple[str, Any]]:
    """moto's S3 server on a free loopback port with a bucket ``bench``: yields its
    endpoint and a boto3 client; stopped on exit. Credentials go to the environment
    first (the usual chain), so processes started later (Dask workers) find them."""
    import socket

    import boto3

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1"
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = (
        "import logging; logging.getLogger('werkzeug').setLevel(logging.ERROR)\n"
        f"from moto.server import main; main(['-H', '127.0.0.1', '-p', '{port}'])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint)
        for _ in range(300):
            try:
                client.list_buckets()
                break
            except Exception:
                time.sleep(0.2)
        client.create_bucket(Bucket="bench")
        yield endpoint, client
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def upload(client: Any, folder: Path, prefix: str) -> int:
    """Every file under ``folder`` to ``s3://bench/<prefix>/`` (8 threads); the count."""
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".complete"]
    key = lambda p: f"{prefix}/{p.relative_to(folder).as_posix()}"  # noqa: E731
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda p: client.upload_file(str(p), "bench", key(p)), files))
    return len(files)


def scale(fleet: Path, args: argparse.Namespace, local_cards: Any) -> dict[str, Any]:
    """The engines and sources of issue 17, on the same fleet: Dask on a LocalCluster
    (2 workers x 1 thread) and reading from moto's S3 server on loopback."""
    from toolkit.engine import score_fleet

    out: dict[str, Any] = {}
    want = {c.subject: c.verdict for c in local_cards}
    t, local = best_of(args.repeat, lambda: score_fleet(fleet))
    out["local_disk_s"] = t
    client = cluster = None
    servers = contextlib.ExitStack()
    try:
        if args.source == "s3":  # started first: Dask workers inherit its credentials
            endpoint, s3 = servers.enter_context(moto_s3())
        if args.engine == "dask":
            import logging

            from distributed import Client, LocalCluster

            t0 = time.perf_counter()
            cluster = LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None, silence_logs=logging.ERROR,
            )  # fmt: skip
            client = Client(cluster)
            out["cluster_start_s"] = time.perf_counter() - t0
            for size in (args.runs // 4, args.runs // 2):
                t, got = best_of(
                    args.repeat,
                    lambda size=size: score_fleet(
                        fleet, engine="dask", client=client, partition_size=max(1, size)
                    ),
                )
                out[f"dask_disk_p{size}_s"] = t
                out["dask_agrees"] = got.ok and {c.subject: c.verdict for c in got.cards} == want
        if args.source == "s3":
            t0 = time.perf_counter()
            out["s3_objects"] = upload(s3, fleet, "fleet")
            out["s3_upload_s"] = time.perf_counter() - t0
            options = {"endpoint_url": endpoint}
            url = "s3://bench/fleet"

            def s3_floor() -> int:
                import fsspec

                fs = fsspec.filesystem("s3", **options)
                fs.invalidate_cache()
                names = [n for n in fs.find("bench/fleet") if "/ticks/tick_" in n]
                return sum(len(b) for b in fs.cat(names).values())

            t, _ = best_of(1, s3_floor)
            out["s3_floor_s"] = t
            t, got = best_of(1, lambda: score_fleet(url, storage_options=options))
            out["local_s3_s"] = t
            out["s3_agrees"] = {c.subject: c.verdict for c in got.cards} == want
            # The run cache for runs in S3: in a local folder and in S3 itself. The cold
            # call reads every object and writes the cache; the warm calls list the runs
            # and read the cache (two objects a run in S3), no tick object.
            with tempfile.TemporaryDirectory() as folder:
                for where, cache in (("local", folder), ("s3", "s3://bench/cache")):
                    t0 = time.perf_counter()
                    score_fleet(url, storage_options=options, cache=cache)
                    out[f"cache_{where}_cold_s3_s"] = time.perf_counter() - t0
                    t, got = best_of(
                        args.repeat,
                        lambda cache=cache: score_fleet(url, storage_options=options, cache=cache),
                    )
                    out[f"cache_{where}_warm_s3_s"] = t
                    agrees = {c.subject: c.verdict for c in got.cards} == want
                    out[f"cache_{where}_agrees"] = agrees
            if client is not None:
                t, got = best_of(
                    1,
                    lambda: score_fleet(
                        url, engine="dask", client=client, storage_options=options,
                        partition_size=max(1, args.runs // 4),
                    ),
                )  # fmt: skip
                out["dask_s3_s"] = t
                out["dask_s3_failures"] = [str(f) for f in got.failures]
                out["dask_s3_agrees"] = got.ok and {c.subject: c.verdict for c in got.cards} == want
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        servers.close()
    out["runs"] = args.runs
    out["ticks_per_run"] = args.ticks
    out["local_engine_runs"] = len(local.cards)
    return out


def scale_report(r: dict[str, Any], load_score_s: float) -> str:
    rows = [("local engine, disk (score_fleet)", r["local_disk_s"])]
    rows += [
        (f"Dask LocalCluster 2x1, disk, partitions of {k.split('_p')[1][:-2]} runs", v)
        for k, v in r.items()
        if k.startswith("dask_disk_p")
    ]
    for key, name in (
        ("cluster_start_s", "starting the LocalCluster (not in the rows above)"),
        ("s3_upload_s", f"uploading {r.get('s3_objects', 0)} objects to moto (boto3, 8 threads)"),
        ("s3_floor_s", "S3 floor: list + batched cat of every tick object"),
        ("local_s3_s", "local engine, S3 (moto on loopback)"),
        ("cache_local_cold_s3_s", "local engine, S3, writing a cache in a local folder"),
        ("cache_local_warm_s3_s", "local engine, S3, warm cache in a local folder"),
        ("cache_s3_cold_s3_s", "local engine, S3, writing a cache in S3"),
        ("cache_s3_warm_s3_s", "local engine, S3, warm cache in S3"),
        ("dask_s3_s", "Dask LocalCluster 2x1, S3"),
    ):
        if key in r:
            rows.append((name, r[key]))
    lines = [
        f"Scale: {r['runs']} runs x {r['ticks_per_run']} ticks (load + score, best of runs)",
        "",
        "| step | seconds |",
        "|---|---:|",
        *(f"| {name} | {secs:.2f} |" for name, secs in rows),
        "",
        "Same verdicts as the local engine: "
        + ", ".join(f"{k}={v}" for k, v in r.items() if k.endswith("agrees"))
        + "".join(f"\nfailed: {f}" for f in r.get("dask_s3_failures", [])),
        f"(load + score in the main table: {load_score_s:.2f} s)",
    ]
    return "\n".join(lines)


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
