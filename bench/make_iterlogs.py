"""Write a deterministic set of dot-agents iteration logs (schema v1 and v2 mixed).

Usage: python bench/make_iterlogs.py OUT_DIR [--logs 200] [--iterations 50] [--seed 1]

Each log is a folder of iter-N.yaml files: its first third in schema v1 (flat), the rest
in v2 (nested impl / verifiers / review), every fifth v2 iteration with a hook-outcome
sidecar, as a coding-agent loop writes them. Drawn from random.Random(seed).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import yaml

SCOPES = ["on-target", "on-target", "on-target", "partial", "scope-breach"]
STATUSES = ["pass", "pass", "pass", "partial", "fail", "unknown"]
FLAGS: list[object] = [True, True, True, False, None, "", 3, "yes", "no"]


def v1(rng: random.Random, n: int) -> dict[str, object]:
    return {
        "schema_version": 1,
        "iteration": n,
        "date": f"2026-04-{1 + n % 28:02d}",
        "wave": "bench",
        "task_id": f"t-{n}",
        "commit": f"{rng.getrandbits(28):07x}",
        "files_changed": rng.randrange(1, 12),
        "lines_added": rng.randrange(5, 400),
        "lines_removed": rng.randrange(0, 90),
        "first_commit": n == 1,
        "summary": f"Iteration {n}: tidy the loop state and add tests",
        "scope_note": rng.choice(SCOPES),
        "retries": rng.randrange(0, 3),
        "tests_added": rng.randrange(0, 5),
        "tests_total_pass": rng.choice(FLAGS),
        "self_assessment": {"read_loop_state": True, "one_item_only": rng.random() < 0.8},
    }


def v2(rng: random.Random, n: int) -> dict[str, object]:
    verifiers = [
        {
            "type": rng.choice(["unit", "integration", "review"]),
            "status": rng.choice(STATUSES),
            "gate_passed": rng.random() < 0.8,
            "tests_added": rng.randrange(0, 4),
            "tests_total_pass": rng.choice(FLAGS),
            "retries": rng.randrange(0, 2),
            "linked_traces": [{"trace_ref": f"tr-{n}", "outcome_ref": "ok"}]
            if rng.random() < 0.5
            else [],
        }
        for _ in range(rng.randrange(0, 3))
    ]
    return {
        "schema_version": 2,
        "iteration": n,
        "date": f"2026-04-{1 + n % 28:02d}",
        "wave": "bench",
        "task_id": f"t-{n}",
        "commit": f"{rng.getrandbits(160):040x}",
        "files_changed": rng.randrange(1, 12),
        "lines_added": rng.randrange(5, 400),
        "lines_removed": rng.randrange(0, 90),
        "first_commit": False,
        "checkpoint_at": f"2026-04-{1 + n % 28:02d}T10:00:00Z",
        "agent": {"session_id": f"s-{n // 10}", "harness": "loop", "model": "m-1"},
        "session_tokens": {
            "input_tokens": rng.randrange(10_000, 90_000),
            "output_tokens": rng.randrange(1_000, 9_000),
            "cache_read_tokens": rng.randrange(0, 80_000),
            "cache_creation_tokens": rng.randrange(0, 20_000),
            "cache_hit_rate": round(rng.random(), 3),
        },
        "impl": {
            "summary": f"Iteration {n}: implement the next task item",
            "scope_note": rng.choice(SCOPES),
            "retries": rng.randrange(0, 3),
            "focused_tests_added": rng.randrange(0, 5),
            "focused_tests_pass": rng.choice(FLAGS),
            "self_assessment": {"persisted_via_workflow_commands": rng.choice(["yes", "no"])},
        },
        "verifiers": verifiers,
        "review": {
            "phase_1_decision": "accept",
            "phase_2_decision": "",
            "overall_decision": rng.choice(["accept", "accept", "reject", "escalate", ""]),
            "failed_gates": [],
            "decision_artifact": "",
        },
    }


def hooks(rng: random.Random, n: int) -> dict[str, object]:
    return {
        "schema_version": 1,
        "records": [
            {
                "sentinel_id": f"h-{n}-{i}",
                "skill": "loop",
                "lifecycle_point": rng.choice(["prevent_before_action", "remediate_at_stop"]),
                "intervention_class": "guard",
                "result": rng.choice(["allow", "allow", "advise", "remediate"]),
                "rule_id": f"r{rng.randrange(4)}",
                "platform": "bench",
                "ts": "2026-04-01T10:00:00Z",
                "correlation_id": f"c-{n}",
            }
            for i in range(rng.randrange(1, 4))
        ],
    }


def write_logs(out: Path, logs: int, iterations: int, seed: int) -> int:
    """Write the logs; returns the number of files written."""
    rng = random.Random(seed)
    written = 0
    for k in range(logs):
        root = out / f"log-{k:04d}"
        root.mkdir(parents=True, exist_ok=True)
        for n in range(1, iterations + 1):
            entry = v1(rng, n) if n <= iterations // 3 else v2(rng, n)
            (root / f"iter-{n}.yaml").write_text(yaml.safe_dump(entry, sort_keys=False))
            written += 1
            if entry["schema_version"] == 2 and n % 5 == 0:
                (root / f"iter-{n}.hook-outcomes.yaml").write_text(
                    yaml.safe_dump(hooks(rng, n), sort_keys=False)
                )
                written += 1
    return written


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("--logs", type=int, default=200)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    n = write_logs(args.out, args.logs, args.iterations, args.seed)
    print(f"wrote {n} files in {args.logs} logs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
