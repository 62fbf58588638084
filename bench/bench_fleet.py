"""Fleet benchmark: load and score a fleet of simulation runs, against the I/O floor, a
naive reference and DuckDB's ``read_json``, all measured in one process run.

Usage (the recorded run; generated data goes to --out, keep it outside the repository):
    python bench/bench_fleet.py --runs 300 --ticks 300 --out /tmp/toolkit-bench

Every step is measured in CPU seconds (user + system, every thread of the process and its
reaped children) beside wall seconds, min / median / max over --rounds interleaved rounds
(A B C, A B C, ...: a busy spell of a shared machine falls on every step alike), with the
machine's load average. Ratios are of medians, CPU first: on a shared machine the wall
clock measures the neighbours as much as the code.

The I/O floor lists the run folders and reads every tick file whole with one
``os.read`` of 64 KiB (and, beside it, sized by ``fstat``): the cheapest way to get the
bytes. The files are in the page cache (the generator wrote them, every round reads
them), so the floor is the system calls and the copies, not the disk. (This machine's
proactive reclaim can evict the cache of files untouched for a while: the first round
after a pause may read some files from disk; the median of the rounds absorbs it.) The
floor recorded before issue 25 read with a 16 MiB buffer, which glibc maps and unmaps on
every read: it is still measured (``floor_16mib``) to show how much it inflated the floor.

Also measured: a --small-runs fleet (load + score against naive, in a fresh process of
its own), the cost per tick file of a cold load at each --scaling size, and (in a fresh
process) peak memory. DuckDB reads in fresh processes too.

Scale (issue 17), beside the local numbers in the same run:
    python bench/bench_fleet.py --runs 40 --ticks 100 --engine dask --source s3
--engine dask also scores the fleet on a LocalCluster (2 worker processes, 1 thread each);
--source s3 uploads the fleet to moto's S3 server on 127.0.0.1 and reads it from there,
also with the run cache in a local folder and in S3 (cold, writing it; then warm).

Prints Markdown tables and writes <out>/results-<runs>x<ticks>.json. Data is generated
once per size into --out by bench/make_fleet.py and reused.
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
from timing import best_of, interleaved, load_average, spread  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.io import edge  # noqa: E402
from toolkit.load import _ticks  # noqa: E402
from toolkit.rubrics.simulation import digests  # noqa: E402


def tick_files(fleet: Path) -> list[str]:
    files: list[str] = []
    for run in sorted(os.scandir(fleet), key=lambda e: e.name):
        if not run.is_dir():
            continue
        ticks = Path(run.path) / "tick_summaries" / "ticks"
        with os.scandir(ticks) as entries:
            files.extend(e.path for e in entries)
    return files


def _read_with(buffer: int) -> Any:
    def read(path: str) -> int:
        fd = os.open(path, os.O_RDONLY)
        try:
            return len(os.read(fd, buffer))
        finally:
            os.close(fd)

    return read


def _read_fstat_sized(path: str) -> int:
    fd = os.open(path, os.O_RDONLY)
    try:
        return len(os.read(fd, os.fstat(fd).st_size + 1))
    finally:
        os.close(fd)


_raw_read = _read_with(1 << 16)


def io_floor(fleet: Path, read: Any = _raw_read) -> int:
    """List the run folders and read every tick file's bytes (64 KiB ``os.read``)."""
    return sum(read(p) for p in tick_files(fleet))


def io_floor_threaded(fleet: Path) -> int:
    """The same with 8 threads (slower here: small files, the GIL, 2 cores)."""
    with ThreadPoolExecutor(8) as pool:
        return sum(pool.map(_raw_read, tick_files(fleet)))


#: DuckDB is asked for the columns the toolkit's bulk reader asks Polars for
#: (toolkit.load._ticks.RAW_TICK_SCHEMA): the same typed read, without the screen.
DUCKDB_COLUMNS = {
    "schema_version": "BIGINT", "tick_id": "VARCHAR", "timestamp_iso": "VARCHAR",
    "action_text": "VARCHAR",
    "classified_action": "STRUCT(verb VARCHAR, actor VARCHAR, target VARCHAR)",
    "matched_mechanic_id": "VARCHAR", "yielded": "BOOLEAN", "refused": "BOOLEAN",
    "refusal_reason": "VARCHAR", "mutations": "STRUCT(count BIGINT, list VARCHAR[][])",
    "observation_text": "VARCHAR", "duration_ms": "DOUBLE",
    "llm_tokens_by_stage": 'STRUCT(classifier STRUCT("in" DOUBLE, "out" DOUBLE), '
    'observer STRUCT("in" DOUBLE, "out" DOUBLE))',
    "llm_cost_usd_by_stage": "STRUCT(classifier DOUBLE, observer DOUBLE)",
    "actor_id": "VARCHAR", "kind": "VARCHAR", "conservation_verdict": "VARCHAR",
    "observation": "STRUCT(text VARCHAR, claimed_changes VARCHAR[][])", "cost_usd": "DOUBLE",
}  # fmt: skip


#: DuckDB's memory limit here. Its ``read_json`` keeps about 256 KiB of buffer memory
#: per file read (839 MiB peak RSS for 3,000 tick files, 2,377 MiB for 9,000): over the
#: 300-run fleet's 90,000 files that is about 23 GB, which is what filled this machine's
#: 24 GB when an earlier recording read the big fleet with DuckDB. Held to this limit it
#: fails with DuckDB's own out-of-memory error instead (recorded as such).
DUCKDB_MEMORY = "3GB"


def duckdb_reader() -> Any:
    """A function reading a fleet's tick files with DuckDB's ``read_json`` into a table
    (``None`` when duckdb is not installed: ``pip install duckdb``, the ``bench`` extra).

    Each read runs in a fresh process (capped like the cost-per-file loads) that times
    itself: DuckDB's threads and its gigabytes of buffers would otherwise stay in this
    process and slow the toolkit's steps interleaved after it. The function returns the
    rows read; its own CPU and wall seconds are appended to ``read.times``."""
    try:
        import duckdb  # noqa: F401
    except ImportError:
        return None
    spec = ", ".join(f"'{k}': '{v}'" for k, v in DUCKDB_COLUMNS.items())

    def read(fleet: Path) -> int:
        glob = f"{fleet}/run-*/tick_summaries/ticks/tick_*.json"
        sql = (
            f"CREATE TABLE ticks AS SELECT * FROM read_json('{glob}', "
            f"columns={{{spec}}}, format='unstructured', records=true, filename=true)"
        )
        code = (
            f"import json, time, sys; sys.path.insert(0, {str(HERE)!r})\n"
            "import duckdb, timing\n"
            f"con = duckdb.connect(config={{'memory_limit': {DUCKDB_MEMORY!r}}})\n"
            "c0, t0 = timing.cpu_seconds(), time.perf_counter()\n"
            f"con.execute({sql!r})\n"
            "rows = con.execute('SELECT count(*) FROM ticks').fetchone()[0]\n"
            "cpu, wall = timing.cpu_seconds() - c0, time.perf_counter() - t0\n"
            "print(json.dumps({'rows': rows, 'cpu': cpu, 'wall': wall}))\n"
        )
        got = run_child(code)
        read.times.append((got["cpu"], got["wall"]))  # type: ignore[attr-defined]
        return int(got["rows"])

    read.times = []  # type: ignore[attr-defined]
    return read


def own_times(reader: Any) -> dict[str, list[float]]:
    """The DuckDB step's times as its child process measured them (not its start-up)."""
    got, reader.times = reader.times, []
    return {"cpu": [c for c, _ in got], "wall": [w for _, w in got]}


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


#: Polars' allocator (jemalloc) returning freed pages at once instead of after 0.5-1 s;
#: Polars appends this variable to its own settings when it is set before its import.
RELEASE_AT_ONCE = "dirty_decay_ms:0,muzzy_decay_ms:0"


def child_peak(fleet: Path, window: int, allocator: str | None = None) -> dict[str, int]:
    """In a fresh process: RSS before (after a small warm-up load, so imports and thread
    pools are counted in the base), peak RSS after load+score, and the frames' size.
    ``allocator``: a ``_RJEM_MALLOC_CONF`` for that process."""
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
    env = dict(os.environ)
    if allocator is not None:
        env["_RJEM_MALLOC_CONF"] = allocator
    return run_child(code, env)  # type: ignore[no-any-return]


#: The address-space cap (bytes) of the processes that load the cost-per-file fleets: no
#: load may take this shared machine's memory (24 GB, no swap) whatever it does.
LOAD_CAP = 4 * 2**30


def _capped() -> None:  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (LOAD_CAP, LOAD_CAP))


def run_child(code: str, env: dict[str, str] | None = None) -> Any:
    """Run ``code`` in a fresh Python process capped at :data:`LOAD_CAP`; the JSON value
    of the last line it prints."""
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env,
        preexec_fn=_capped,
    ).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def child_load(fleet: Path) -> dict[str, float]:
    """One cold load of ``fleet`` in a fresh process whose address space is capped at
    :data:`LOAD_CAP`: its CPU and wall seconds (after a warm-up load of the sample run,
    so imports and thread pools are not counted), peak RSS and the ticks loaded."""
    code = (
        f"import json, resource, time, sys; sys.path.insert(0, {str(HERE)!r})\n"
        "import timing, toolkit as tk\n"
        f"tk.load_universe({str(SAMPLE)!r})\n"
        "c0, t0 = timing.cpu_seconds(), time.perf_counter()\n"
        f"u = tk.load_universes({str(fleet / 'run-*')!r}, progress=False)\n"
        "cpu, wall = timing.cpu_seconds() - c0, time.perf_counter() - t0\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'cpu': cpu, 'wall': wall, 'peak_kib': peak,"
        " 'ticks': u.ticks.height}))\n"
    )
    return run_child(code)  # type: ignore[no-any-return]


def child_small(fleet: Path, window: int, rounds: int) -> tuple[dict[str, Any], bool]:
    """The small fleet's load + score, naive load + score and cold load, interleaved over
    ``rounds`` in a fresh process capped like :func:`child_load` (after a warm-up load of
    the sample run): each step's times, and whether the naive reference's statuses equal
    the toolkit's for every run."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r})\n"
        "import bench_fleet as b, naive, toolkit as tk\n"
        "from timing import interleaved\n"
        f"tk.load_universe({str(SAMPLE)!r})\n"
        f"fleet, pattern, window = b.Path({str(fleet)!r}), {str(fleet / 'run-*')!r}, {window}\n"
        "steps = {\n"
        "    'load_score': lambda: tk.score_universe(\n"
        "        tk.load_universes(pattern, progress=False), window=window, series=False),\n"
        "    'naive_load_score': lambda: naive.score_fleet(naive.load_fleet(fleet), window),\n"
        "    'cold_load': lambda: tk.load_universes(pattern, progress=False),\n"
        "}\n"
        f"times, last, _ = interleaved(steps, {rounds})\n"
        "agrees = b.verdicts(last['load_score']) == last['naive_load_score']\n"
        "print(json.dumps({'times': times, 'agrees': agrees}))\n"
    )
    got = run_child(code)
    return got["times"], bool(got["agrees"])


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


def fleet_at(out: Path, runs: int, ticks: int, seed: int) -> Path:
    """The generated fleet of ``runs`` x ``ticks`` (written on first use)."""
    fleet = out / f"fleet-{runs}x{ticks}-seed{seed}"
    done = fleet / ".complete"
    if not done.exists():
        print(f"generating {fleet} ...", file=sys.stderr)
        t0 = time.perf_counter()
        make_fleet.write_fleet(fleet, runs, ticks, nights=10, seed=seed)
        done.write_text("")
        print(f"  generated in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return fleet


def verdicts(cards: Any) -> dict[str, dict[str, str]]:
    return {c.subject: dict(c.dimensions.select("dimension", "status").iter_rows()) for c in cards}


def measured(times: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """Per step: min / median / max of its CPU and wall seconds, and the raw rounds."""
    return {
        step: {"cpu": spread(t["cpu"]), "wall": spread(t["wall"]), "rounds": t}
        for step, t in times.items()
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--small-runs", type=int, default=30, help="the small fleet (0: skip)")
    p.add_argument(
        "--scaling", default="30,300,1000",
        help="fleet sizes (runs, comma-separated) for the cost per tick file ('' skips)",
    )  # fmt: skip
    p.add_argument("--scaling-ticks", type=int, default=None, help="(default: --ticks)")
    p.add_argument("--window", type=int, default=50)
    p.add_argument("--rounds", "--repeat", dest="rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--duckdb-fleet", action="store_true",
        help="also DuckDB over the main fleet, once (slow; always over the small fleet)",
    )  # fmt: skip
    p.add_argument("--out", type=Path, default=HERE / "out")
    p.add_argument("--engine", choices=("local", "dask"), default="local")
    p.add_argument("--source", choices=("disk", "s3"), default="disk")
    args = p.parse_args(argv)

    fleet = fleet_at(args.out, args.runs, args.ticks, args.seed)
    pattern = fleet / "run-*"
    results: dict[str, Any] = {"runs": args.runs, "ticks_per_run": args.ticks}
    results["machine"] = machine()
    results["load_average_start"] = load_average()
    # First, while this process is small: Linux carries a process's peak RSS across
    # fork+exec, so a child started after the naive reference would report ours.
    # Three fresh processes each, alternating: Polars' default allocator settings, and
    # freed memory released at once (RELEASE_AT_ONCE).
    peaks: dict[str, list[dict[str, int]]] = {"default": [], "release_at_once": []}
    for _ in range(args.rounds):
        peaks["default"].append(child_peak(fleet, args.window))
        peaks["release_at_once"].append(child_peak(fleet, args.window, RELEASE_AT_ONCE))
    results["memory_runs"] = peaks
    results["memory"] = peaks["default"][0]

    def load() -> Any:
        return tk.load_universes(pattern, progress=False)

    def load_score() -> Any:
        return tk.score_universe(load(), window=args.window, series=False)

    def naive_load_score() -> Any:
        return naive.score_fleet(naive.load_fleet(fleet), args.window)

    def pure(step: Any) -> Any:
        """``step`` with the C accelerator switched off (the pure-Python path)."""

        def run() -> Any:  # every C part off: the screen, the reader and listing, digests
            was = _ticks.ACCEL, edge.PACK_ACCEL, digests.ACCEL
            _ticks.ACCEL = edge.PACK_ACCEL = digests.ACCEL = False
            try:
                return step()
            finally:
                _ticks.ACCEL, edge.PACK_ACCEL, digests.ACCEL = was

        return run

    steps: dict[str, Any] = {
        "floor": lambda: io_floor(fleet),
        "floor_fstat": lambda: io_floor(fleet, _read_fstat_sized),
        "floor_16mib": lambda: io_floor(fleet, _read_with(1 << 24)),
        "cold_load": load,
        "load_score": load_score,
        "naive_load_score": naive_load_score,
    }
    results["accelerator"] = _ticks.ACCEL
    if _ticks.ACCEL:  # interleaved with the pure path, round by round
        steps["cold_load_pure"] = pure(load)
        steps["load_score_pure"] = pure(load_score)
    times, last, loads = interleaved(steps, args.rounds)
    results["steps"] = measured(times)
    results["load_averages"] = loads
    results["bytes"] = last["floor"]
    results["ticks"] = last["cold_load"].ticks.height
    results["naive_agrees"] = verdicts(last["load_score"]) == last["naive_load_score"]
    universe = last["cold_load"]
    last.clear()

    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        tk.load_universes(pattern, cache=cache, progress=False)
        results["cold_load_writing_cache_s"] = time.perf_counter() - t0
        more, _, _ = interleaved(
            {
                "warm_load": lambda: tk.load_universes(pattern, cache=cache, progress=False),
                "score": lambda: tk.score_universe(universe, window=args.window, series=False),
            },
            args.rounds,
        )
    results["steps"] |= measured(more)
    results["score_with_series_s"] = best_of(
        1, lambda: tk.score_universe(universe, window=args.window, series=True)
    )[0]

    read_duckdb = duckdb_reader()
    print("main fleet measured", file=sys.stderr)
    if read_duckdb is not None and args.duckdb_fleet:  # slow (~1 ms a file): one round
        read_duckdb.times.clear()
        once, _, _ = interleaved({"duckdb_read_json": lambda: read_duckdb(fleet)}, 1)
        once["duckdb_read_json"] = own_times(read_duckdb)
        results["steps"] |= measured(once)

    if args.small_runs:
        small = fleet_at(args.out, args.small_runs, args.ticks, args.seed)
        # In a fresh process of its own (as a command-line run is), so the big fleet's
        # steps before it (gigabytes of the naive reference's objects, a large Polars
        # heap) do not weigh on the small fleet's numbers; the naive reference runs
        # interleaved in the same process, under the same conditions.
        times, agrees = child_small(small, args.window, args.rounds)
        if read_duckdb is not None:
            read_duckdb.times.clear()
            for _ in range(args.rounds):
                read_duckdb(small)
            times["duckdb_read_json"] = own_times(read_duckdb)
        results["small"] = {"runs": args.small_runs, "steps": measured(times)}
        results["small"]["naive_agrees"] = agrees
        print("small fleet measured", file=sys.stderr)

    sizes = [int(n) for n in args.scaling.split(",") if n.strip()]
    if sizes:
        per_ticks = args.scaling_ticks or args.ticks
        fleets = {n: fleet_at(args.out, n, per_ticks, args.seed) for n in sizes}
        # Each load in a fresh process under an address-space cap (LOAD_CAP), sizes
        # interleaved round by round; its own CPU and wall time, and its peak RSS.
        runs: dict[str, list[dict[str, float]]] = {str(n): [] for n in sizes}
        for _ in range(args.rounds):
            for n, f in fleets.items():
                runs[str(n)].append(child_load(f))
        results["scaling"] = {
            "ticks_per_run": per_ticks,
            "files": {str(n): n * per_ticks for n in sizes},
            "cap_bytes": LOAD_CAP,
            "steps": {
                n: {
                    "cpu": spread([r["cpu"] for r in rs]),
                    "wall": spread([r["wall"] for r in rs]),
                    "peak_mib": spread([r["peak_kib"] / 1024 for r in rs]),
                    "rounds": rs,
                }
                for n, rs in runs.items()
            },
        }
        print("cost per tick file measured", file=sys.stderr)
    results["load_average_end"] = load_average()
    results["parent_peak_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    if args.engine == "dask" or args.source == "s3":
        cards = tk.score_universe(
            tk.load_universes(pattern, progress=False), window=args.window, series=False
        )
        results["scale"] = scale(fleet, args, local_cards=cards)

    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"results-{args.runs}x{args.ticks}.json"
    target.write_text(json.dumps(results, indent=2))
    print(report(results))
    if "scale" in results:
        print()
        print(scale_report(results["scale"], results["steps"]["load_score"]["wall"]["min"]))
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
    from toolkit.fleet.engine import score_fleet

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


def _ratio(steps: dict[str, Any], over: str, under: str, kind: str) -> float:
    return float(steps[over][kind]["median"] / steps[under][kind]["median"])


def _verdict(value: float, target: float, at_most: bool) -> str:
    met = value <= target if at_most else value >= target
    return "met" if met else "**missed**"


def _row(name: str, step: dict[str, Any]) -> str:
    c, w = step["cpu"], step["wall"]
    return (
        f"| {name} | {c['min']:.3f} | {c['median']:.3f} | {c['max']:.3f} "
        f"| {w['min']:.3f} | {w['median']:.3f} | {w['max']:.3f} |"
    )


def _targets(rows: list[tuple[str, float, float, str, float, bool]]) -> list[str]:
    out = [
        "| target | CPU | wall | result (CPU) |",
        "|---|---:|---:|---|",
    ]
    for name, cpu, wall, goal, target, at_most in rows:
        out.append(f"| {name} ({goal}) | {cpu:.2f}× | {wall:.2f}× | "
                   f"{_verdict(cpu, target, at_most)} |")  # fmt: skip
    return out


def memory_row(label: str, runs: list[dict[str, int]]) -> str:
    """One allocator setting's peaks: MiB above the base, and as a multiple of the frames."""
    grown = sorted((m["peak_kib"] - m["base_kib"]) / 1024 for m in runs)
    times = [g / (runs[0]["frames_bytes"] / 2**20) for g in grown]
    mid = len(grown) // 2
    return (
        f"* {label}: {grown[0]:.0f} / {grown[mid]:.0f} / {grown[-1]:.0f} MiB = "
        f"{times[0]:.1f}× / {times[mid]:.1f}× / {times[-1]:.1f}×: "
        f"{_verdict(times[mid], 3.0, True)}"
    )


def report(r: dict[str, Any]) -> str:
    st = r["steps"]
    mem = r["memory"]
    frames_mib = mem["frames_bytes"] / 2**20
    names = [
        ("floor", "I/O floor: list + 64 KiB `os.read` of every tick file"),
        ("floor_fstat", "I/O floor, `fstat`-sized reads"),
        ("floor_16mib", "the earlier floor: 16 MiB `os.read` buffer (inflated)"),
        ("cold_load", "cold load (files → typed frames)"),
        ("cold_load_pure", "cold load, accelerator off (the pure-Python path)"),
        ("warm_load", "warm load (Parquet cache)"),
        ("score", "scoring the fleet (`group_by` passes, about 16k ticks a pass)"),
        ("load_score", "load + score"),
        ("load_score_pure", "load + score, accelerator off"),
        ("naive_load_score", "naive load + score (`json.load` per file, Python loops)"),
        ("duckdb_read_json", "DuckDB `read_json` of the tick files"),
    ]
    head = [
        "| step | CPU min | CPU median | CPU max | wall min | wall median | wall max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines = [
        f"Accelerator (toolkit/load/_tickscan.c): {'on' if r.get('accelerator') else 'off'}.",
        "",
        f"{r['runs']} runs, {r['ticks']:,} ticks, {r['bytes'] / 2**20:.0f} MiB of tick files; "
        f"{r['machine']['cores']} cores, {r['machine']['cpu']}; load average "
        + ", ".join(f"{x:.1f}" for x in r["load_averages"])
        + f" at the start of each round ({r['load_average_end']:.1f} at the end)",
        "",
        *head,
        *(_row(label, st[k]) for k, label in names if k in st),
        f"| cold load, also writing the cache (once) | | | | | "
        f"{r['cold_load_writing_cache_s']:.3f} | |",
        f"| scoring with per-tick series (once) | | | | | {r['score_with_series_s']:.3f} | |",
        "",
    ]

    def target(
        steps: dict[str, Any], name: str, over: str, under: str, goal: str, at: float, most: bool
    ) -> tuple[str, float, float, str, float, bool]:
        cpu, wall = (_ratio(steps, over, under, kind) for kind in ("cpu", "wall"))
        return name, cpu, wall, goal, at, most

    targets = [
        target(st, "cold load ÷ floor", "cold_load", "floor", "≤ 3×", 3.0, True),
        target(st, f"naive ÷ load + score, {r['runs']} runs", "naive_load_score", "load_score",
               "≥ 3×", 3.0, False),
    ]  # fmt: skip
    if "cold_load_pure" in st:
        targets += [
            target(st, "cold load, accelerator off ÷ floor", "cold_load_pure", "floor", "≤ 3×",
                   3.0, True),
            target(st, f"naive ÷ load + score, accelerator off, {r['runs']} runs",
                   "naive_load_score", "load_score_pure", "≥ 3×", 3.0, False),
            target(st, "cold load: accelerator off ÷ on", "cold_load_pure", "cold_load",
                   "faster: > 1×", 1.0, False),
        ]  # fmt: skip
    if "small" in r:
        targets.append(
            target(r["small"]["steps"], f"naive ÷ load + score, {r['small']['runs']} runs",
                   "naive_load_score", "load_score", "≥ 2×", 2.0, False)
        )  # fmt: skip
    small_runs = r.get("small", {}).get("runs")
    if "small" in r and "duckdb_read_json" in r["small"]["steps"]:
        targets.append(
            target(r["small"]["steps"], f"DuckDB `read_json` ÷ cold load, {small_runs} runs",
                   "duckdb_read_json", "cold_load", "toolkit ahead: > 1×", 1.0, False)
        )  # fmt: skip
    if "duckdb_read_json" in st:
        targets.append(
            target(st, "DuckDB `read_json` ÷ cold load", "duckdb_read_json", "cold_load",
                   "toolkit ahead: > 1×", 1.0, False)
        )  # fmt: skip
    targets.append(
        target(st, "warm load, speed-up over cold", "cold_load", "warm_load", "≥ 20×", 20.0, False)
    )
    lines += _targets(targets)
    lines.append(
        f"\nThe earlier floor (16 MiB buffer) cost "
        f"{_ratio(st, 'floor_16mib', 'floor', 'cpu'):.1f}× the 64 KiB floor in CPU."
    )
    if "small" in r:
        sm = r["small"]["steps"]
        title = f"Small fleet: {r['small']['runs']} runs (same ticks per run; its own process)"
        lines += ["", title, "", *head]
        lines += [_row(label, sm[k]) for k, label in names if k in sm]
    if "scaling" in r:
        sc = r["scaling"]
        per = {
            n: {k: sc["steps"][n][k]["median"] / files * 1e6 for k in ("cpu", "wall")}
            for n, files in sc["files"].items()
        }
        cpus = [v["cpu"] for v in per.values()]
        lines += [
            "",
            f"Cold load, cost per tick file ({sc['ticks_per_run']} ticks a run; medians):",
            "",
            f"Each load in a fresh process with its address space capped at "
            f"{sc['cap_bytes'] / 2**30:.0f} GiB; peak RSS is the whole process's.",
            "",
            "| runs | tick files | CPU µs a file | wall µs a file | peak RSS (MiB) |",
            "|---:|---:|---:|---:|---:|",
            *(
                f"| {n} | {sc['files'][n]:,} | {v['cpu']:.1f} | {v['wall']:.1f} "
                f"| {sc['steps'][n]['peak_mib']['median']:.0f} |"
                for n, v in per.items()
            ),
            "",
            f"Largest ÷ smallest CPU cost a file: {max(cpus) / min(cpus):.2f}× "
            f"(flat: ≤ 1.2×, {_verdict(max(cpus) / min(cpus), 1.2, True)}).",
        ]
    lines += [
        "",
        f"Peak memory of load + score in a fresh process (min / median / max of "
        f"{len(r['memory_runs']['default'])}), above the interpreter's "
        f"{mem['base_kib'] / 1024:.0f} MiB, against the frames' {frames_mib:.1f} MiB "
        "(target ≤ 3×):",
        "",
        *(memory_row(label, runs) for label, runs in r["memory_runs"].items()),
        "",
        f"Naive reference and toolkit agree on every status of every run: {r['naive_agrees']}"
        + (f" (small fleet: {r['small']['naive_agrees']})." if "small" in r else "."),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
