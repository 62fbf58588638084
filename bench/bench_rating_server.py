"""The rating server under a team: save latency and memory with 50 raters at once.

Usage (the recorded run; about a minute):
    python bench/bench_rating_server.py [--raters 50] [--waves 3] [--think-ms 0]

Starts ``toolkit rate`` (one uvicorn process) on 127.0.0.1 over generated games (each
rater's queue holds 10; every game is rated by 2 raters), then, in each wave, 50
simulated raters (httpx, async, all at once, each with its own connection pool) open
their page, and for each of their 10 games save 2 drafts and submit the rating: 20
drafts and 10 ratings each, 1,500 saves per wave. The raters leave after each wave and
new clients come for the next one.

Reports p50/p95/max latency of the saves (drafts and submits, as the client sees them;
target p95 < 100 ms), the server's CPU per save, the share of a core the simulated
raters themselves used (near 1.0: the client, not the server, set the pace), and the
server's resident memory (VmRSS from /proc) before the first wave and after each one
(target < 250 MB, flat across waves). ``--think-ms`` paces each rater like a person
(a pause of 0.5x to 1.5x that after each save); 0 sends the next save as soon as the
last is answered (saturation). Every request is
bounded by a timeout and the run by --deadline; the server is stopped by its own process
id. Prints a Markdown table and writes bench/out/results-rating-server.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAMES_PER_RATER = 10
OVERLAP = 2
DRAFTS_PER_GAME = 2
REQUEST_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_games(folder: Path, count: int) -> None:
    """``count`` games: copies of the sample's passing game under new ids."""
    template = json.loads((ROOT / "sample_runs" / "discussions" / "game-pass.json").read_text())
    folder.mkdir(parents=True)
    for i in range(count):
        template["gameId"] = f"bench-{i:04d}"
        (folder / f"bench-{i:04d}.json").write_text(json.dumps(template))


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (VmRSS)."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
    assert found is not None
    return round(int(found.group(1)) / 1024, 1)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(games: Path, store: Path, raters: list[str], port: int, log: Path) -> Any:
    command = [
        sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())",
        "rate", str(games), "--store", str(store), "--raters", ",".join(raters),
        "--overlap", str(OVERLAP), "--seed", "1", "--port", str(port),
    ]  # fmt: skip
    out = log.with_suffix(".out")
    with out.open("wb") as stdout, log.open("wb") as stderr:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"toolkit rate exited: {log.read_text()}")
        if "Organiser:" in out.read_text():
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
        time.sleep(0.1)
    else:
        raise SystemExit("toolkit rate did not listen")
    links = {}
    for line in out.read_text().splitlines():
        parts = line.split()
        if line.startswith("  ") and len(parts) == 2:
            links[parts[0]] = parts[1]
    return proc, links


async def one_rater(link: str, think_s: float, latencies: list[float], errors: list[str]) -> None:
    """One rater: open the page, then per game 2 drafts and a submit."""
    import httpx

    origin = "/".join(link.split("/")[:3])
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT_S) as client:
        page = await client.get(f"{link}/1")
        found = re.search(r'name="csrf-token" content="([0-9a-f]+)"', page.text)
        if page.status_code != 200 or found is None:
            errors.append(f"page {page.status_code}")
            return
        headers = {"X-CSRF-Token": found.group(1), "Origin": origin}
        total = int(re.search(r"Game 1 of (\d+)", page.text).group(1))  # type: ignore[union-attr]
        for n in range(1, total + 1):
            saves = [("draft", {"score": 3, "answers": {"watch_another": True}, "notes": "a"})]
            saves.append(("draft", {"score": 4, "answers": {"watch_another": True}, "notes": "ab"}))
            saves.append(
                ("submit", {"score": 4, "answers": {"watch_another": True}, "notes": "ab"})
            )
            for action, body in saves[: DRAFTS_PER_GAME + 1]:
                t0 = time.perf_counter()
                response = await client.post(f"{link}/{n}/{action}", json=body, headers=headers)
                latencies.append(time.perf_counter() - t0)
                if response.status_code != 200:
                    errors.append(f"{action} {response.status_code}: {response.text[:80]}")
                if think_s:  # a person's pace: 0.5x to 1.5x the think time, never in step
                    await asyncio.sleep(think_s * random.uniform(0.5, 1.5))


async def wave(links: dict[str, str], think_s: float) -> tuple[list[float], list[str], float]:
    latencies: list[float] = []
    errors: list[str] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(one_rater(link, think_s, latencies, errors) for link in links.values()))
    return latencies, errors, time.perf_counter() - t0


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--waves", type=int, default=3)
    parser.add_argument(
        "--think-ms", type=float, default=0.0, help="mean pause after each save (0.5x-1.5x)"
    )
    parser.add_argument("--deadline", type=float, default=600.0, help="seconds for the run")
    args = parser.parse_args()
    random.seed(22)
    raters = [f"rater{i:02d}" for i in range(args.raters)]
    out_dir = HERE / "out"
    out_dir.mkdir(exist_ok=True)
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}",
        "raters": args.raters,
        "think_ms": args.think_ms,
        "waves": [],
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench-rating-"))
    proc = None
    try:
        games = tmp / "games"
        make_games(games, args.raters * GAMES_PER_RATER // OVERLAP)
        proc, links = start_server(games, tmp / "ratings.db", raters, _free_port(), tmp / "log")
        results["rss_start_mb"] = rss_mb(proc.pid)
        print(f"server up: RSS {results['rss_start_mb']} MB", flush=True)
        started = time.monotonic()
        for i in range(args.waves):
            left = args.deadline - (time.monotonic() - started)
            cpu_before = cpu_s(proc.pid)
            client_before = time.process_time()
            latencies, errors, wall = asyncio.run(
                asyncio.wait_for(wave(links, args.think_ms / 1000), timeout=max(left, 1))
            )
            row = {
                "wave": i + 1,
                "saves": len(latencies),
                "errors": len(errors),
                "first_errors": errors[:3],
                "wall_s": round(wall, 2),
                "saves_per_s": round(len(latencies) / wall, 1),
                "p50_ms": round(percentile(latencies, 50) * 1000, 1),
                "p95_ms": round(percentile(latencies, 95) * 1000, 1),
                "max_ms": round(max(latencies) * 1000, 1),
                "rss_after_mb": rss_mb(proc.pid),
                "client_cpu_share": round((time.process_time() - client_before) / wall, 2),
                "server_cpu_ms_per_save": round(
                    (cpu_s(proc.pid) - cpu_before) * 1000 / max(len(latencies), 1), 2
                ),
                "load": round(os.getloadavg()[0], 1),
            }
            results["waves"].append(row)
            print(json.dumps(row), flush=True)
            time.sleep(1)
        results["rss_end_mb"] = rss_mb(proc.pid)
        from toolkit.ratings.store import RatingStore

        store = RatingStore(tmp / "ratings.db")
        results["rating_events"] = store.events().height
        results["ratings_that_count"] = store.latest().height
    finally:
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    (out_dir / "results-rating-server.json").write_text(json.dumps(results, indent=2) + "\n")
    print(
        f"\n{args.raters} raters, think {args.think_ms} ms; RSS at start "
        f"{results['rss_start_mb']} MB; {results['rating_events']} rating events, "
        f"{results['ratings_that_count']} that count"
    )
    print(
        "| wave | saves | errors | wall s | saves/s | p50 ms | p95 ms | max ms | server CPU "
        "ms/save | client CPU share | RSS after MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results["waves"]:
        print(
            f"| {r['wave']} | {r['saves']} | {r['errors']} | {r['wall_s']} | {r['saves_per_s']} "
            f"| {r['p50_ms']} | {r['p95_ms']} | {r['max_ms']} | {r['server_cpu_ms_per_save']} "
            f"| {r['client_cpu_share']} | {r['rss_after_mb']} |"
        )
    print(results["machine"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
