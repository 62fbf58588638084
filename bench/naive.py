"""The naive reference: the fleet job done the way most in-house scripts do it.

One ``json.load`` per tick file into a list of dicts, then Python loops per tick to
score each run's last W ticks on the same seven rules. Used by bench_fleet.py as the
baseline, and as an independent check that the toolkit's verdicts are right.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

MARKERS = ("framework", "yield", "mechanic", "system prompt", "operator", "scenario")


def load_run(root: Path) -> dict[str, Any]:
    """Every tick file as a dict, plus (tick, nodes, edges) graph snapshots."""
    ticks = []
    tick_dir = root / "tick_summaries" / "ticks"
    for name in os.listdir(tick_dir):
        if name.startswith("tick_") and name.endswith(".json"):
            with open(tick_dir / name, encoding="utf-8") as handle:
                ticks.append(json.load(handle))
    snapshots: list[tuple[int, int, int]] = []
    db = root / "universe.db"
    if db.exists():
        conn = sqlite3.connect(db)
        for t, n, e in conn.execute("SELECT tick_id, node_count, edge_count FROM graph_snapshots"):
            snapshots.append((int(str(t).removeprefix("tick_")), n, e))
        conn.close()
    return {"slug": root.name, "ticks": ticks, "snapshots": snapshots}


def load_fleet(folder: Path) -> list[dict[str, Any]]:
    return [load_run(folder / d) for d in sorted(os.listdir(folder)) if (folder / d).is_dir()]


def _status(t: dict[str, Any]) -> str:
    if t.get("schema_version", 1) == 2:
        return {"execute": "executed", "yield": "yielded", "refuse": "refused"}[t["kind"]]
    if t.get("refused"):
        return "refused"
    if t.get("yielded"):
        return "yielded"
    return "executed" if t.get("matched_mechanic_id") else "unmatched"


def _longest(flags: list[bool]) -> int:
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def _band(value: float, ok: bool, fail: bool) -> str:
    return "FAIL" if fail else ("OK" if ok else "WARN")


def score_run(run: dict[str, Any], window: int = 50) -> dict[str, str]:
    """The eight statuses of one run's last ``window`` ticks."""
    ticks = sorted(run["ticks"], key=lambda t: int(str(t["tick_id"]).removeprefix("tick_")))
    seen: set[str] = set()
    novel: list[bool] = []
    kinds: set[str] = set()
    new_kinds: list[int] = []  # subtype values each tick writes first (refused ticks: none)
    for t in ticks:
        fresh = 0
        if _status(t) != "refused":
            for m in (t.get("mutations") or {}).get("list", []):
                if len(m) >= 3 and m[1] == "subtype" and m[-1] is not None:
                    value = m[-1] if isinstance(m[-1], str) else json.dumps(m[-1])
                    fresh += value not in kinds
                    kinds.add(value)
        new_kinds.append(fresh)
        verb = ((t.get("classified_action") or {}).get("verb") or "").strip().lower()
        novel.append(bool(verb) and verb not in seen)
        if verb:
            seen.add(verb)
    win = ticks[-window:]
    nov = novel[-window:]
    n = len(win)
    grounded = turns = breaks = rollbacks = classified = 0
    refused_flags = []
    for t in win:
        status = _status(t)
        text = t.get("action_text") or ""
        mech = t.get("matched_mechanic_id")
        cont = text == "[long_running_continuation]" or mech == "continue_long_action"
        muts = t.get("mutations") or {}
        count = muts.get("count", len(muts.get("list", [])))
        claims = (t.get("observation") or {}).get("claimed_changes")
        if t.get("schema_version", 1) == 2 and claims is not None:
            made = {(str(m[0]), str(m[1]), str(m[-1])) for m in muts.get("list", [])}
            ok = all(len(c) >= 3 and (str(c[0]), str(c[1]), str(c[2])) in made for c in claims)
        else:
            ok = not (status in ("executed", "unmatched") and not cont and count == 0)
        grounded += ok
        if text.strip() and not cont:
            turns += 1
            breaks += any(m in text.lower() for m in MARKERS)
        refused_flags.append(status == "refused")
        if t.get("schema_version", 1) == 2:
            rollbacks += t.get("conservation_verdict") == "violated"
        else:
            rollbacks += (
                status == "refused" and "conservation" in (t.get("refusal_reason") or "").lower()
            )
        classified += bool((t.get("classified_action") or {}).get("verb"))
    out: dict[str, str] = {}
    g = grounded / n
    out["groundedness"] = _band(g, g >= 0.95, g < 0.85)
    cs = (turns - breaks) / turns if turns else None
    out["character_stability"] = "N/A" if cs is None else _band(cs, cs >= 0.98, cs < 0.90)
    streak = _longest([not f for f in refused_flags])
    rate = sum(refused_flags) * 10 / n
    out["action_coherence"] = _band(streak, streak >= 15 and rate <= 1.5, streak < 5 or rate >= 4)
    cluster = _longest(refused_flags)
    out["refusal_cluster"] = _band(cluster, cluster <= 2, cluster >= 5)
    if classified:
        vr = sum(nov) / (n / 10)
        stagnant = _longest([not x for x in nov])
        out["vocabulary_growth"] = _band(vr, 0.5 <= vr <= 2.5, stagnant >= 30 or vr > 4)
    else:
        out["vocabulary_growth"] = "N/A"
    d = rollbacks / n
    out["conservation_drift"] = _band(d, d <= 0.02, d >= 0.10)
    last_tick = int(str(win[-1]["tick_id"]).removeprefix("tick_"))
    every_cp = sorted(s for s in run["snapshots"] if s[0] % 10 == 0 and s[0] <= last_tick and s[1])

    def slope_at(end: int) -> float | None:
        """The slope over the (up to) 5 checkpoints ending at checkpoint ``end``."""
        cps = every_cp[max(0, end - 4) : end + 1]
        if len(cps) < 2:
            return None
        fan = [(t, e / nn) for t, nn, e in cps]
        return round((fan[-1][1] - fan[0][1]) / (fan[-1][0] - fan[0][0]) * 10, 9)

    slope = slope_at(len(every_cp) - 1) if every_cp else None
    if slope is None:
        out["graph_fanout"] = "N/A"
    else:
        # Sustained: the 5-checkpoint slope is below -0.02 at each of the last 3 checkpoints.
        recent = [slope_at(i) for i in range(len(every_cp) - 3, len(every_cp)) if i >= 0]
        collapsing = len(recent) == 3 and all(s is not None and s < -0.02 for s in recent)
        out["graph_fanout"] = _band(slope, slope >= 0, collapsing)
    subtype_rate = sum(new_kinds[-window:]) / (n / 10)
    out["novel_subtype_rate"] = "WARN" if subtype_rate == 0 and n >= 30 else "OK"
    return out


def score_fleet(runs: list[dict[str, Any]], window: int = 50) -> dict[str, dict[str, str]]:
    return {run["slug"]: score_run(run, window) for run in runs}
