"""The naive reference for iteration logs: ``yaml.safe_load`` per file into dicts, then
Python loops computing the rubric's git-free signals and their weighted mean."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

WEIGHTS = {
    "verifier": 0.18,
    "tests": 0.17,
    "correction_pressure": 0.13,
    "scope": 0.13,
    "hook_outcomes": 0.10,
    "token_efficiency": 0.09,
}
STATUS = {"pass": 1.0, "partial": 0.5, "fail": 0.0}
SCOPE = {"on-target": 1.0, "partial": 0.5, "scope-breach": 0.0}


def load_log(root: Path) -> dict[str, Any]:
    entries: dict[int, dict[str, Any]] = {}
    hooks: dict[int, dict[str, Any]] = {}
    for name in os.listdir(root):
        with open(root / name, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        if name.endswith(".hook-outcomes.yaml"):
            hooks[int(name.split("-")[1].split(".")[0])] = data
        elif name.startswith("iter-") and name.endswith(".yaml") and ".score." not in name:
            entries[int(name[5:-5])] = data
    return {"root": str(root), "entries": entries, "hooks": hooks}


def _flag(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    return str(value).strip().lower() in ("true", "yes", "y", "1", "pass", "passed")


def score_entry(entry: dict[str, Any], hooks: dict[str, Any] | None) -> float | None:
    subs: dict[str, float] = {}
    impl = entry.get("impl") or entry
    verifiers = entry.get("verifiers") or []
    statuses = [STATUS[v["status"]] for v in verifiers if v.get("status") in STATUS]
    if statuses:
        subs["verifier"] = sum(statuses) / len(statuses)
    elif entry.get("schema_version") == 1 and _flag(entry.get("tests_total_pass")) is not None:
        subs["verifier"] = 1.0 if _flag(entry.get("tests_total_pass")) else 0.0
    flags = [_flag(impl.get("focused_tests_pass")), _flag(entry.get("tests_total_pass"))]
    flags += [_flag(v.get("tests_total_pass")) for v in verifiers]
    known = [f for f in flags if f is not None]
    if known:
        subs["tests"] = sum(known) / len(known)
    retries = (impl.get("retries") or 0) + sum(v.get("retries") or 0 for v in verifiers)
    subs["correction_pressure"] = 1 / (1 + retries)
    note = str(impl.get("scope_note") or "")
    if note in SCOPE:
        subs["scope"] = SCOPE[note]
    elif note.startswith("on-target"):
        subs["scope"] = 1.0
    if hooks:
        results = [
            r["result"]
            for r in hooks.get("records", [])
            if r.get("lifecycle_point") in ("prevent_before_action", "remediate_at_stop")
        ]
        if results:
            subs["hook_outcomes"] = (
                0.0 if "remediate" in results else 0.6 if "advise" in results else 1.0
            )
    rate = (entry.get("session_tokens") or {}).get("cache_hit_rate")
    if rate is not None:
        subs["token_efficiency"] = float(rate)
    total = sum(WEIGHTS[k] for k in subs)
    return sum(WEIGHTS[k] * v for k, v in subs.items()) / total if total else None


def score_log(log: dict[str, Any]) -> dict[int, float | None]:
    return {n: score_entry(e, log["hooks"].get(n)) for n, e in sorted(log["entries"].items())}
