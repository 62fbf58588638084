"""Reading 2L's messages from PostgreSQL: rows a second against the COPY floor, and peak
memory (prints, asserts nothing).

Starts a throwaway cluster (``tests/pg_cluster.py``: Debian's server binaries, run as the
``postgres`` user under root), loads 2L's Prisma schema (``sample_runs/discussions/
2l-postgres.sql``) and fills ``"DiscussionMessage"`` with ``--messages`` rows (games of
200 messages, six players each) with ``generate_series``, then measures, each in a fresh
process so its peak RSS is its own:

* ``copy``: ``COPY (SELECT <the loader's columns> …) TO STDOUT`` through psycopg, bytes
  counted and dropped: the floor of any reader;
* ``select``: :meth:`PostgresSource.select` of the same columns, batches of Polars frames
  (the driver and the frames, nothing else);
* ``load``: ``load_discussion(url)`` of ``--load-messages`` rows (the whole loader:
  validation, nesting, the frames), when that is not 0.

Usage::

    .venv/bin/python bench/bench_postgres.py --messages 1000000 --load-messages 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from pg_cluster import Cluster, server_bin  # noqa: E402

COLUMNS = ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp",
           "turn")  # fmt: skip

FILL = """
INSERT INTO "Game" SELECT 'g' || g, 'GAME_OVER', 'GAME_OVER', 5, 'VILLAGERS', 6,
    timestamp '2026-11-01' + g * interval '1 minute' FROM generate_series(0, {games} - 1) g;
INSERT INTO "Player" SELECT 'g' || g || '-p' || p, 'g' || g, 'Player ' || p,
    CASE WHEN p < 2 THEN 'MAFIA' ELSE 'VILLAGER' END, 'analytical', true, p
    FROM generate_series(0, {games} - 1) g, generate_series(0, 5) p;
INSERT INTO "DiscussionMessage" SELECT 'm' || i, 'g' || (i / 200), (i % 200) / 40 + 1,
    'g' || (i / 200) || '-p' || (i % 6),
    'I think Player ' || (i % 5) || ' is hiding something because the vote in round '
      || ((i % 200) / 40) || ' does not add up. Why did you change your mind?',
    CASE WHEN i % 3 = 0 AND i % 200 > 0 THEN 'm' || (i - 1) END,
    timestamp '2026-11-01' + i * interval '1 second', i % 200 + 1
    FROM generate_series(0, {messages} - 1) i;
INSERT INTO "Vote" SELECT 'v' || g || '-' || p, 'g' || g, 1, 'g' || g || '-p' || p,
    'g' || g || '-p' || ((p + 1) % 6), 'Seemed off.', 'VOTING', p + 1,
    timestamp '2026-11-01' + g * interval '1 minute'
    FROM generate_series(0, {games} - 1) g, generate_series(0, 5) p;
ANALYZE;
"""


def child(step: str, url: str) -> None:
    """One measurement in this process; prints a JSON line."""
    # everything each step needs is imported before the baseline is taken
    import psycopg

    from toolkit.io.source import open_source
    from toolkit.io.source_postgres import PostgresSource
    from toolkit.load.discussion import load_discussion

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    rows = 0
    if step == "copy":
        cols = ", ".join(f'"{c}"' for c in COLUMNS)
        with psycopg.connect(url) as con, con.cursor() as cur:
            query = f'COPY (SELECT {cols} FROM "DiscussionMessage") TO STDOUT'
            with cur.copy(query) as copy:
                for data in copy:
                    rows += bytes(data).count(b"\n")
    elif step == "select":
        src = open_source(url)
        assert isinstance(src, PostgresSource)
        with src:
            for batch in src.select("DiscussionMessage", COLUMNS):
                rows += batch.height
    else:
        rows = load_discussion(url).messages.height
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"step": step, "rows": rows, "seconds": seconds,
                      "peak_mib": peak / 1024, "base_mib": base / 1024}))  # fmt: skip


def measure(step: str, url: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", step, url],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def filled(cluster: Cluster, name: str, messages: int) -> str:
    schema = (ROOT / "sample_runs" / "discussions" / "2l-postgres.sql").read_text()
    schema = schema.split('INSERT INTO "Game"', 1)[0] + "COMMIT;\n"
    work = cluster.folder / f"{name}.sql"
    work.write_text(schema + FILL.format(games=max(1, messages // 200), messages=messages))
    return cluster.make_database(name, [work])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--load-messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--child", nargs=2, metavar=("STEP", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    bindir = server_bin()
    if bindir is None:
        sys.exit("no PostgreSQL server in /usr/lib/postgresql/*/bin")
    cluster = Cluster(bindir)
    try:
        t0 = time.perf_counter()
        big = filled(cluster, "bench_big", args.messages)
        print(f"filled {args.messages:,} messages in {time.perf_counter() - t0:.1f} s "
              f"(load average {os.getloadavg()[0]:.1f})")  # fmt: skip
        steps = [("copy", big), ("select", big)]
        if args.load_messages:
            steps.append(("load", filled(cluster, "bench_load", args.load_messages)))
        for round_no in range(args.repeat):
            for step, url in steps:
                r = measure(step, url)
                print(
                    f"round {round_no + 1} {step:6s} {int(r['rows']):>9,} rows "
                    f"{r['seconds']:6.2f} s {r['rows'] / r['seconds'] / 1000:7.0f} k rows/s  "
                    f"peak RSS {r['peak_mib']:5.0f} MiB (+{r['peak_mib'] - r['base_mib']:.0f} "
                    f"over the imports)",
                    flush=True,
                )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
