"""``toolkit quality RUN_A --diff RUN_B``: two runs' scorecards and graph changes."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from toolkit.cli._gate import finish
from toolkit.cli._scale import storage_options
from toolkit.errors import InputError
from toolkit.gate import checks_of
from toolkit.io.source import open_source
from toolkit.load.snapshots import GraphChange, read_snapshots, snapshot_ticks
from toolkit.load.universe import load_universe
from toolkit.rubrics.simulation import SimulationRubric, score_universe
from toolkit.scorecard import Scorecard
from toolkit.views.diff import render_diff_json, render_diff_text, render_tick_diff_text
from toolkit.views.text import terminal_style


def _window_ticks(card: Scorecard, ticks: list[int]) -> tuple[int, int] | None:
    """The first and last snapshot inside the card's window (else the nearest kept)."""
    first, last = card.meta.get("first_tick"), card.meta.get("last_tick")
    if first is None or last is None:
        return None
    inside = [t for t in ticks if first <= t <= last]
    if len(inside) < 2:
        return None
    return inside[0], inside[-1]


#: ``--diff A:B``: two ticks of RUN_DIR, not a second run.
TICK_SPAN = re.compile(r"^(\d+)(?::|\.\.)(\d+)$")


def diff_ticks(args: argparse.Namespace, first: int, last: int) -> int:
    """Two ticks of one run (token-world's ``diff SLUG A B``): the net graph change between
    the snapshots taken before ticks ``first`` and ``last``."""
    root = open_source(args.run_dir).disk
    if root is None:
        raise InputError(args.run_dir, "--diff A:B reads universe.db of a local run folder")
    first, last = min(first, last), max(first, last)  # as token-world: always forward
    db = root / "universe.db"
    if not db.is_file():
        raise InputError(root, "no universe.db: no graph snapshots to compare ticks with")
    ticks = snapshot_ticks(db)
    for tick in (first, last):
        if tick not in ticks:
            kept = f"{ticks[0]}..{ticks[-1]}" if ticks else "none"
            raise InputError(
                db, f"no snapshot at tick {tick} (snapshots kept: {kept})",
                field="--diff", value=args.diff,
            )  # fmt: skip
    graphs = read_snapshots(db, [first, last])
    change = GraphChange(graphs[first], graphs[last])
    if args.format == "json":
        print(json.dumps({"slug": root.name, **change.to_dict()}, indent=2, default=str))
    else:
        print(render_tick_diff_text(root.name, change, width=terminal_style()[0]))
    return 0


def is_tick_span(value: str | Path) -> bool:
    """Whether ``--diff VALUE`` names two ticks of one run (``A:B``), not a run: it has that
    shape and no folder of that name exists."""
    return TICK_SPAN.match(str(value)) is not None and not Path(value).exists()


def diff_runs(args: argparse.Namespace, rubric: SimulationRubric) -> int:
    """Score both runs, read their snapshots, print both side by side (or, with
    ``--diff A:B``, two ticks of one run)."""
    asked = TICK_SPAN.match(str(args.diff))
    if asked is not None and is_tick_span(args.diff):
        if args.gate is not None or args.junit:
            raise InputError(None, "a diff of two ticks is not scored: no --gate or --junit",
                             field="--diff", value=args.diff)  # fmt: skip
        return diff_ticks(args, int(asked.group(1)), int(asked.group(2)))
    cards: list[Scorecard] = []
    roots: list[Path] = []
    for path in (args.run_dir, args.diff):
        universe = load_universe(path, cache=args.cache, storage_options=storage_options(args))
        if not universe.loadable:
            raise InputError(path, "nothing loadable: no tick files and no batch records")
        cards.append(score_universe(universe, rubric, args.window, series=False)[0])
        roots.append(universe.paths[universe.slug])
    changes: dict[str, GraphChange | None] = {}
    reasons: dict[str, str] = {}
    lasts: list[int | None] = []
    for key, card, root in zip(("a", "b"), cards, roots, strict=True):
        db = root / "universe.db"
        changes[key] = None
        lasts.append(None)
        if not db.is_file():
            reasons[key] = "no universe.db"
            continue
        ticks = snapshot_ticks(db)
        if ticks:
            lasts[-1] = ticks[-1]
        span = _window_ticks(card, ticks)
        if span is None:
            reasons[key] = "fewer than two snapshots in the window"
            continue
        graphs = read_snapshots(db, span)
        changes[key] = GraphChange(graphs[span[0]], graphs[span[1]])
    changes["a_to_b"] = None
    if lasts[0] is None or lasts[1] is None:
        reasons["a_to_b"] = "a run has no snapshots"
    else:
        before = read_snapshots(roots[0] / "universe.db", [lasts[0]])[lasts[0]]
        after = read_snapshots(roots[1] / "universe.db", [lasts[1]])[lasts[1]]
        changes["a_to_b"] = GraphChange(before, after)
    a, b = cards
    if args.format == "json":
        print(render_diff_json(a, b, changes, reasons))
    else:
        print(render_diff_text(a, b, changes, reasons, width=terminal_style()[0]))
    return finish(args, "quality", cards, [c for card in cards for c in checks_of(card)])
