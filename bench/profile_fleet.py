"""Where a cold fleet load's CPU goes, stage by stage (issue 25), and then its scoring's
(issue 38).

Usage:
    python bench/profile_fleet.py /tmp/toolkit-bench/fleet-300x300-seed1 [--rounds 3]

Each stage of ``load_universes`` is run on its own over the whole fleet, in the chunks
the loader uses, and timed in CPU seconds (user + system, every thread; the fastest of
--rounds, so the neighbours of a shared machine weigh as little as they can); the whole
load is timed beside it. Prints µs per tick file and each stage's share of the load. A
profiler would charge its own overhead to the Python-heavy stages; this does not.

The scoring of the loaded fleet (``score_universe(..., series=False)``, as the benchmark
scores it) is split the same way, into the stages ``score_universe`` runs one after the
other: the run history, the window scores (one ``collect_all`` a chunk), the fan-out, the
dimension rows and their frames, the input digests, and the cards.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import polars as pl  # noqa: E402
from timing import cpu_seconds  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.io import edge  # noqa: E402
from toolkit.io.source import open_source  # noqa: E402
from toolkit.load import (  # noqa: E402
    _run_build,
    _run_listing,
    _run_parts,
    _ticks,
)
from toolkit.rubrics.simulation import score as sim_score  # noqa: E402
from toolkit.rubrics.simulation._values import DEFAULT_VALUES  # noqa: E402
from toolkit.rubrics.simulation.digests import input_digests  # noqa: E402
from toolkit.rubrics.simulation.dimensions import (  # noqa: E402
    dimension_ranges,
    dimension_rows,
    grounded_source_of,
)
from toolkit.rubrics.simulation.features import run_history  # noqa: E402
from toolkit.scorecard import Scorecard  # noqa: E402

SCAN = "screen + projection of each chunk (C accelerator)"
ESCAPES = "scan for escapes and -0 (Polars)"
DECODE = "decode + colon count (msgspec)"
READ = "read the tick files (open, read, close)"


def fastest(rounds: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(rounds):
        gc.collect()
        c0 = cpu_seconds()
        out = fn()
        best = min(best, cpu_seconds() - c0)
    return best, out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("fleet", type=Path)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    fleet = open_source(args.fleet)
    dirs = fleet.glob(fleet.join(fleet.root, "run-*"))
    listings = _run_listing.list_runs(fleet, dirs, stat=False)
    limit = edge.limits().max_file_bytes
    groups = _run_build._chunks(listings)
    chunks = []
    for group in groups:
        files = [path for listing in group for path in listing.ticks]
        slugs = [listing.slug for listing in group for _ in listing.ticks]
        blobs = edge.read_packed(files, limit)  # one buffer, as the load reads (fetch_packed)
        chunks.append((slugs, files, blobs))
    count = sum(len(f) for _, f, _ in chunks)

    def decode() -> None:
        for _, _, blobs in chunks:
            with _ticks.collector_paused():
                for a in range(0, len(blobs), _ticks.BATCH_FILES):
                    _ticks._decoded(blobs[a : a + _ticks.BATCH_FILES])

    def fast() -> list[Any]:
        out = []
        for _, _, blobs in chunks:
            with _ticks.collector_paused():
                frame, _, _, vouched = _ticks._batch(blobs)
                out.append((frame, vouched))
        return out

    def accel_scan() -> None:  # over the packed buffer where scan_packed is built
        assert _ticks._accel_scan is not None
        for _, _, blobs in chunks:
            with _ticks.collector_paused():
                if _ticks._accel_scan_packed is not None:
                    _ticks._accel_scan_packed(blobs.data, blobs.ends)
                else:
                    _ticks._accel_scan(list(blobs))

    stages: dict[str, Callable[[], Any]] = {
        "list the runs' folders": lambda: _run_listing.list_runs(fleet, dirs, stat=False),
        # as the load reads: each chunk's files into one buffer (edge.read_packed: the C
        # reader where built, else read_many_fast's loop), kept until the chunk is parsed
        READ: lambda: [fleet.fetch_packed(files, _run_build.CHUNK_BYTES) for _, files, _ in chunks],
    }
    if _ticks.ACCEL:  # the C accelerator (TOOLKIT_ACCEL=0: the pure path)
        stages[SCAN] = accel_scan
        before_frame = (SCAN,)
        frame_stage = "frame from the Arrow buffers (Polars takes them)"
    else:
        stages[ESCAPES] = lambda: [_ticks._unsafe(b) for _, _, b in chunks]
        stages[DECODE] = decode
        before_frame = (ESCAPES, DECODE)
        frame_stage = "frame from the structs written back (Polars' JSON reader)"
    times: dict[str, float] = {}
    for name, fn in stages.items():
        times[name], _ = fastest(args.rounds, fn)
    both, frames = fastest(args.rounds, fast)
    times[frame_stage] = max(0.0, both - sum(times[name] for name in before_frame))

    def checks() -> None:  # not run where the C screen vouched for every row
        for (_, files, _), (raw, vouched) in zip(chunks, frames, strict=True):
            if vouched is None:
                _ticks._problems(raw, _ticks._texts("source_file", files))

    def normalised() -> None:  # as the load does: the chunks' rows together (NORMALISE_ROWS)
        held: list[Any] = []
        for (slugs, files, _), (raw, vouched) in zip(chunks, frames, strict=True):
            held.append(_ticks.Parsed(raw, pl.Series(slugs), pl.Series(files), vouched))
            if sum(part.raw.height for part in held) >= _run_build.NORMALISE_ROWS:
                _ticks.normalised(held)
                held = []
        if held:
            _ticks.normalised(held)

    times["column-wise checks (Polars)"], _ = fastest(args.rounds, checks)
    times["normalise (Polars)"], _ = fastest(args.rounds, normalised)
    times["each run's universe.db, YAML, small frames"], _ = fastest(
        args.rounds,
        lambda: [
            _run_parts.run_parts(listing, _run_parts.fetch_parts([listing])) for listing in listings
        ],
    )
    whole, _ = fastest(args.rounds, lambda: tk.load_universes(args.fleet / "run-*", progress=False))
    rest = whole - sum(times.values())
    print(f"accelerator: {'on' if _ticks.ACCEL else 'off'}; "
          f"C reader: {'on' if edge.PACK_ACCEL else 'off'}")  # fmt: skip
    print(f"{len(dirs)} runs, {count:,} tick files; cold load {whole:.3f} s CPU "
          f"({whole / count * 1e6:.1f} µs a file), fastest of {args.rounds}")  # fmt: skip
    print()
    print("| stage | CPU s | µs a file | share |")
    print("|---|---:|---:|---:|")
    for name, secs in [*times.items(), ("the rest (assembly, sorting, concatenation)", rest)]:
        print(f"| {name} | {secs:.3f} | {secs / count * 1e6:.1f} | {secs / whole:.0%} |")
    print()
    scoring(tk.load_universes(args.fleet / "run-*", progress=False), count, args.rounds)
    return 0


def scoring(universe: Any, count: int, rounds: int, window: int = 50) -> None:
    """Print the scoring's stages (``score_universe`` with ``series=False``, the window
    the benchmark uses), each timed on its own as :func:`main` times the load's."""
    rubric = DEFAULT_VALUES
    w = window
    last, _ = sim_score._last_windows(universe, rubric, w)
    fan_at = sim_score._fanout_at(last, universe, rubric)
    fans = {r["slug"]: r for r in fan_at.iter_rows(named=True)}
    rows = {r["slug"]: r for r in last.iter_rows(named=True)}
    slugs = universe.slugs

    def dims() -> dict[str, Any]:  # as score_universe: the ranges built once a fleet
        ranges = dimension_ranges(rubric)
        return {
            s: dimension_rows(
                rows.get(s), fans.get(s), rubric, grounded_source_of(rows.get(s)), ranges
            )
            for s in slugs
        }

    made = dims()
    pairs = [(s, made[s]) for s in slugs]
    stages: dict[str, Callable[[], Any]] = {
        "run history (new subtypes, one pass)": lambda: run_history(universe, rubric),
        "window scores + extents (collect_all a chunk; history included)": lambda: (
            sim_score._last_windows(universe, rubric, w)
        ),
        "graph fan-out at the last window": lambda: sim_score._fanout_at(last, universe, rubric),
        "dimension rows (Python, a run at a time; ranges once)": dims,
        "dimension and measure frames": lambda: (
            Scorecard.dimensions_frames(pairs),
            Scorecard.measures_frames(pairs),
        ),
        "input digests (hash of every row)": lambda: input_digests(universe),
        "issues and warnings by run": lambda: (
            sim_score._issues_by_run(universe),
            sim_score._warnings_by_run(universe),
        ),
    }
    times = {name: fastest(rounds, fn)[0] for name, fn in stages.items()}
    whole, _ = fastest(rounds, lambda: sim_score.score_universe(universe, rubric, w, series=False))
    named = sum(t for n, t in times.items() if not n.startswith("run history"))
    print(f"scoring (series=False, window {w}): {whole:.3f} s CPU, fastest of {rounds}")
    print()
    print("| stage | CPU s | µs a tick | share |")
    print("|---|---:|---:|---:|")
    rest = ("the rest (cards, stamps, dicts of rows)", whole - named)
    for name, secs in [*times.items(), rest]:
        print(f"| {name} | {secs:.3f} | {secs / count * 1e6:.1f} | {secs / whole:.0%} |")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
