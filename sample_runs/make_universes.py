"""Write the sample token-world runs in sample_runs/universes/ (deterministic).

Usage: python sample_runs/make_universes.py [OUT_DIR]

Three runs in the engine's on-disk format, each with a batch record for its oldest 100
ticks, the most recent ticks as tick files, and a universe.db holding the newest 50
graph snapshots:

* ``willowbrook``: a healthy village run (tick schema v1).
* ``harbor-town``: a degraded port run (tick schema v2, with observer claims): some
  ungrounded claims, and a graph that has only just started to shed edges (its fan-out
  slope is below the red line at the last checkpoint only: WARN, not yet sustained).
* ``ashfall``: a failed run (tick schema v1): the agent breaks character, conservation
  rollbacks pile up, its vocabulary stagnates, the graph sheds edges and it ends in a
  refusal wedge.

Everything is drawn from ``random.Random(seed)``, so the output is byte-for-byte stable.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

START = datetime(2026, 11, 20, 22, 0, 0, tzinfo=UTC)
BATCH_SIZE = 100
SNAPSHOTS_KEPT = 50

VERBS = [
    "walk",
    "talk",
    "take",
    "give",
    "bake",
    "plant",
    "harvest",
    "repair",
    "trade",
    "fish",
    "cook",
    "build",
    "paint",
    "sing",
    "write",
    "read",
    "mend",
    "brew",
    "carve",
    "sweep",
    "forge",
    "weave",
    "feed",
    "gather",
    "teach",
    "barter",
    "climb",
    "dig",
    "light",
    "listen",
    "knit",
    "pray",
    "measure",
    "sail",
]
PLACES = ["well", "bakery", "market", "forge", "orchard", "dock", "chapel", "mill"]
ITEMS = ["bread", "flour", "rope", "lantern", "apple", "nail", "net", "cloth"]
BREAK_LINES = [
    "As the operator asked, I will yield this turn and wait for the next scenario.",
    "I cannot continue; the system prompt tells me to follow the mechanic rules.",
    "Stepping outside the framework: which mechanic should I trigger now?",
]


@dataclass
class Plan:
    slug: str
    name: str
    seed: int
    ticks: int
    schema: int
    refuse_p: float  # chance a normal tick is refused
    ungrounded_p: float  # chance an executed tick is ungrounded
    new_verb_every: int  # a new verb roughly every N ticks (0: never after tick 100)
    edge_trend: float  # edges added per tick on average (negative sheds edges)
    breaks_from: int = 0  # from this tick on, 1 in 4 turns breaks character (0: never)
    rollbacks_from: int = 0  # from this tick on, 1 in 6 ticks is a rollback (0: never)
    wedge_from: int = 0  # from this tick on, every tick is refused (0: never)
    legacy_ids_until: int = 0  # tick files up to here write "tick_<n>" ids
    shrink_from: int = 0  # from this tick on the graph sheds edges (0: never)
    shrink_rate: float = 0.0  # edges shed per executed tick from shrink_from on
    start: datetime = START  # when the run's first tick happened
    verbs_from: int = BATCH_SIZE  # new verbs appear only after this tick
    subtype_every: int = 0  # every N ticks an executed tick sets an item's subtype (0: never)


PLANS = [
    Plan(
        slug="willowbrook", name="Willowbrook", seed=7, ticks=183, schema=1,
        refuse_p=0.02, ungrounded_p=0.01, new_verb_every=8, edge_trend=0.35, subtype_every=6,
    ),
    Plan(
        slug="harbor-town", name="Harbor Town", seed=11, ticks=176, schema=2,
        refuse_p=0.16, ungrounded_p=0.07, new_verb_every=9, edge_trend=0.2,
        legacy_ids_until=110, shrink_from=135, shrink_rate=0.06, subtype_every=13,
    ),
    Plan(
        slug="ashfall", name="Ashfall", seed=23, ticks=164, schema=1,
        refuse_p=0.12, ungrounded_p=0.02, new_verb_every=0, edge_trend=0.3,
        breaks_from=125, rollbacks_from=120, wedge_from=157, shrink_from=112, shrink_rate=0.5,
    ),
]  # fmt: skip


class World:
    """A small directed graph: agents and places as nodes, relations as edges."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nodes: dict[str, dict[str, Any]] = {}
        for who in ("mara", "tobin", "elsie", "rook"):
            self.nodes[who] = {"type": "agent", "properties": {"coins": 10, "mood": "calm"}}
        for place in PLACES:
            self.nodes[place] = {"type": "place", "properties": {"stock": 5}}
        for i, item in enumerate(ITEMS):
            self.nodes[f"{item}_{i}"] = {"type": "item", "properties": {"condition": 3}}
        self.edges: set[tuple[str, str]] = set()
        names = list(self.nodes)
        while len(self.edges) < 24:
            a, b = rng.sample(names, 2)
            self.edges.add((a, b))

    def grow(self, trend: float) -> list[list[Any]]:
        changes: list[list[Any]] = []
        names = list(self.nodes)
        whole = int(abs(trend))
        extra = 1 if self.rng.random() < abs(trend) - whole else 0
        for _ in range(whole + extra):
            if trend > 0:
                a, b = self.rng.sample(names, 2)
                if (a, b) not in self.edges:
                    self.edges.add((a, b))
                    changes.append([f"{a}->{b}", "edge", None, "knows"])
            elif len(self.edges) > 6:
                a, b = sorted(self.edges)[self.rng.randrange(len(self.edges))]
                self.edges.discard((a, b))
                changes.append([f"{a}->{b}", "edge", "knows", None])
        return changes

    def graph_json(self) -> str:
        """The graph as the engine stores it: networkx node-link JSON of a DiGraph."""
        return json.dumps(
            {
                "directed": True,
                "multigraph": False,
                "graph": {},
                "nodes": [{"id": k, **v} for k, v in sorted(self.nodes.items())],
                "edges": [{"source": a, "target": b} for a, b in sorted(self.edges)],
            },
            sort_keys=True,
        )


def _stamp(tick: int, start: datetime = START) -> str:
    return (start + timedelta(seconds=37 * tick)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _tick(plan: Plan, rng: random.Random, world: World, n: int, known: list[str]) -> dict[str, Any]:
    actor = rng.choice(["mara", "tobin", "elsie"])
    place = rng.choice(PLACES)
    item_i = rng.randrange(len(ITEMS))
    item = f"{ITEMS[item_i]}_{item_i}"

    if plan.new_verb_every and n > plan.verbs_from and n % plan.new_verb_every == 0:
        fresh = [v for v in VERBS if v not in known] or [f"{VERBS[n % len(VERBS)]}-{n}"]
        known.append(fresh[0])
    verb = rng.choice(known)
    text = f"{actor.title()} goes to the {place} to {verb} the {ITEMS[item_i]}."
    refused = rng.random() < plan.refuse_p or (plan.wedge_from and n >= plan.wedge_from)
    rollback = not refused and plan.rollbacks_from and n >= plan.rollbacks_from and n % 6 == 0
    breaks = plan.breaks_from and n >= plan.breaks_from and n % 4 == 1
    if breaks:
        text = rng.choice(BREAK_LINES)
    continuation = not refused and not rollback and n % 11 == 0
    yielded = not refused and not continuation and n % 29 == 0

    mutations: list[list[Any]] = []
    mechanic: str | None = None
    reason: str | None = None
    if continuation:
        text = "[long_running_continuation]"
        mechanic = "continue_long_action"
    elif refused:
        reason = (
            "no_viable_action"
            if plan.wedge_from and n >= plan.wedge_from
            else rng.choice(["no_such_target", "low_confidence", "mechanic_check_failed"])
        )
    elif rollback:
        reason = "conservation_violation: coins would be created"
        mutations = [[actor, "coins", 10, 25]]
    elif not yielded:
        mechanic = f"{verb}_action"
        cond = world.nodes[item]["properties"]["condition"]
        mutations = [[item, "condition", cond, cond + 1]]
        world.nodes[item]["properties"]["condition"] = cond + 1
        trend = -plan.shrink_rate if plan.shrink_from and n >= plan.shrink_from else plan.edge_trend
        mutations += world.grow(trend)
        if rng.random() < plan.ungrounded_p and plan.schema == 1:
            mutations = []  # executed with nothing to show for it: ungrounded by proxy
        if plan.subtype_every and mutations and n % plan.subtype_every == 0:
            props = world.nodes[item]["properties"]
            kind = f"{verb}ed {ITEMS[item_i]}"  # e.g. "baked bread": a new kind of thing
            mutations.append([item, "subtype", props.get("subtype"), kind])
            props["subtype"] = kind
    tokens = {
        "classifier": {"in": 900 + rng.randrange(200), "out": 60 + rng.randrange(30)},
        "observer": {"in": 1400 + rng.randrange(300), "out": 120 + rng.randrange(60)},
    }
    tick_id = f"tick_{n}" if n <= plan.legacy_ids_until else str(n)
    action = {
        "verb": verb if not continuation else None,
        "actor": actor,
        "target": item,
        "indirect_object": place,
        "params": {},
    }
    observation = f"The {ITEMS[item_i]} looks better now." if mutations else "Nothing changes."
    record: dict[str, Any] = {
        "schema_version": plan.schema,
        "tick_id": tick_id,
        "timestamp_iso": _stamp(n, plan.start),
        "action_text": text,
        "classified_action": None if continuation else action,
        "classified_actions": [] if continuation else [action],
        "matched_mechanic_id": mechanic,
        "refusal_reason": reason,
        "mutations": {"count": len(mutations), "list": mutations},
        "long_running_action": (
            {
                "active": True,
                "turns_elapsed": 2,
                "turns_total": 3,
                "threshold_fired": False,
                "interrupted": False,
            }
            if continuation
            else None
        ),
        "duration_ms": 1800 + rng.randrange(2400),
        "llm_tokens_by_stage": tokens,
    }
    cost = {
        "classifier": round(0.0011 + rng.random() / 5000, 6),
        "observer": round(0.0024 + rng.random() / 4000, 6),
    }
    if plan.schema == 1:
        record |= {
            "yielded": bool(yielded),
            "refused": bool(refused or rollback),
            "observation_text": observation,
            "llm_cost_usd_by_stage": cost,
        }
    else:
        claims = [[m[0], m[1], m[3]] for m in mutations]
        if mutations and rng.random() < plan.ungrounded_p:
            claims.append([actor, "mood", "delighted"])  # the observer invents a change
        record |= {
            "actor_id": actor,
            "kind": "refuse" if (refused or rollback) else ("yield" if yielded else "execute"),
            "conservation_verdict": "violated" if rollback else "ok",
            "projected_state": {actor: world.nodes[actor]},
            "observation": {"text": observation, "claimed_changes": claims},
            "cost_usd": round(cost["classifier"] + cost["observer"], 6),
        }
    return record


def write_run(plan: Plan, out: Path, *, compress: bool = True) -> None:
    """Write one run; ``compress=False`` keeps every tick as a tick file (no batch)."""
    rng = random.Random(plan.seed)
    world = World(rng)
    root = out / plan.slug
    if root.exists():
        shutil.rmtree(root)
    ticks_dir = root / "tick_summaries" / "ticks"
    ticks_dir.mkdir(parents=True)
    (root / "universe.yaml").write_text(
        f"name: {plan.name}\nslug: {plan.slug}\nseed: {plan.seed}\nagents: [mara, tobin, elsie]\n"
    )
    (root / "conservation.yaml").write_text("conserved_properties:\n  - coins\n  - stock\n")

    known = VERBS[:6]
    records: list[dict[str, Any]] = []
    snapshots: list[tuple[int, str, int, int]] = []
    for n in range(1, plan.ticks + 1):
        if n > plan.ticks - SNAPSHOTS_KEPT:  # the engine keeps only the newest snapshots
            snapshots.append((n, world.graph_json(), len(world.nodes), len(world.edges)))
        records.append(_tick(plan, rng, world, n, known))

    if not compress or len(records) < BATCH_SIZE:
        for n, record in enumerate(records, start=1):
            (ticks_dir / f"tick_{n}.json").write_text(json.dumps(record, indent=2))
        _write_db(root / "universe.db", snapshots, world, plan.start)
        return
    batch = records[:BATCH_SIZE]
    batch_record = {
        "kind": "batch",
        "batch_id": 0,
        "first_tick": 1,
        "last_tick": BATCH_SIZE,
        "tick_count": BATCH_SIZE,
        "key_events": [r["action_text"] for r in batch[::25]],
        "mechanic_ids_used": sorted(
            {r["matched_mechanic_id"] for r in batch if r["matched_mechanic_id"]}
        ),
        "total_mutations": sum(r["mutations"]["count"] for r in batch),
        "agent_id": "mara",
        "haiku_prompt_hash": f"{plan.seed:08x}" * 2,
    }
    (root / "tick_summaries" / "batch_0.json").write_text(json.dumps(batch_record, indent=2))
    for n, record in enumerate(records[BATCH_SIZE:], start=BATCH_SIZE + 1):
        (ticks_dir / f"tick_{n}.json").write_text(json.dumps(record, indent=2))
    _write_db(root / "universe.db", snapshots, world, plan.start)


#: The tables of universe.db as token-world's engine declares them (see
#: docs/formats/universe.md): samples are written with exactly these column types.
ENGINE_DDL = """
CREATE TABLE graph_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    graph_json TEXT NOT NULL,
    current_tick INTEGER NOT NULL DEFAULT 0,
    node_count INTEGER NOT NULL DEFAULT 0,
    edge_count INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE graph_events (
    event_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tick_id INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    property_name TEXT,
    old_value_json TEXT,
    new_value_json TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE graph_snapshots (
    snapshot_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tick_id INTEGER NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    graph_json TEXT NOT NULL,
    node_count INTEGER NOT NULL,
    edge_count INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE(tick_id)
);
CREATE INDEX idx_snapshots_tick ON graph_snapshots(tick_id);
"""


def _write_db(
    db: Path, snapshots: list[tuple[int, str, int, int]], world: World, start: datetime
) -> None:
    with sqlite3.connect(db) as conn:
        conn.executescript(ENGINE_DDL)
        kept = snapshots[-SNAPSHOTS_KEPT:]
        conn.executemany(
            "INSERT INTO graph_snapshots"
            " (tick_id, summary, graph_json, node_count, edge_count, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (n, f"before tick {n}", graph, nodes, edges, _stamp(n, start))
                for n, graph, nodes, edges in kept
            ],
        )
        last_tick = kept[-1][0] if kept else 0
        conn.execute(
            "INSERT INTO graph_state"
            " (id, graph_json, current_tick, node_count, edge_count, updated_at)"
            " VALUES (1, ?, ?, ?, ?, ?)",
            (
                world.graph_json(),
                last_tick,
                len(world.nodes),
                len(world.edges),
                _stamp(last_tick, start),
            ),
        )
    conn.close()


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent / "universes"
    out.mkdir(parents=True, exist_ok=True)
    for plan in PLANS:
        write_run(plan, out)
        print(f"wrote {out / plan.slug}")
    return 0


if __name__ == "__main__":
    from _outputs import output_paths

    out_dir = output_paths(__doc__, ("OUT_DIR", Path(__file__).parent / "universes"))[0]
    sys.exit(main([sys.argv[0], str(out_dir)]))
