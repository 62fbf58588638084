"""Write the sample dot-agents eval-harness runs in sample_runs/eval_runs/ (deterministic).

Usage: python sample_runs/make_eval_runs.py [OUT_DIR]

Two agents run the same eight generated tasks (mixed language and difficulty) three
times each, as dot-agents' eval harness lays them out in a repository:
``<agent>/.agents/eval/runs/<run-id>/`` with ``taskspec.yaml``, ``eval-run.yaml`` and
``iteration-log/iter-1.yaml`` (schema v2, ``wave`` = the run id) with its
``iter-1.score.yaml`` (FORMATS.md §5).

* ``claude``: claude-code with claude-sonnet-4-5: sure on easy tasks, weaker on hard ones;
* ``codex``: codex with gpt-5-codex: better on the hard tasks, a little worse on Rust.

Whether a run passes its verification is drawn from the agent's chance on the task's
difficulty and language (seeded), so some tasks pass every time, some never, and some
flip between replicates, as real agents do. The iteration's fields follow the verdict
(a failed verification is a failing verifier, a rejected review, more retries). The score
sidecar and eval-run.yaml's ``score`` block come from scoring the log with the toolkit's
default outcome rubric (as ``da score`` writes both).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolkit.load.iterlog import load_iteration_log  # noqa: E402
from toolkit.load.outcome_evidence import collect_outcome_evidence  # noqa: E402
from toolkit.rubrics.outcome import default_outcome_rubric, score_outcome  # noqa: E402
from toolkit.sidecars import write_score_sidecars  # noqa: E402

SEED = 36
BASE_COMMIT = "5d41c2a09b8e7f6a3c1d2e4f5a6b7c8d9e0f1a2b"
REPLICATES = 3

#: (task id, language, difficulty, template, prompt, verification command)
TASKS: list[tuple[str, str, str, str, str, str]] = [
    ("ev-go-lru-cache", "go", "easy", "tpl-data-structure",
     "Implement an LRU cache with Get/Put and a fixed capacity in pkg/lru.",
     "go test ./pkg/lru/..."),
    ("ev-py-csv-dedupe", "python", "easy", "tpl-cli-tool",
     "Add a --dedupe flag to tools/csvtool.py that drops repeated rows, keeping the first.",
     "pytest tests/test_csvtool.py -q"),
    ("ev-ts-debounce", "typescript", "easy", "tpl-utility",
     "Write a debounce(fn, ms) helper in src/util/debounce.ts with a cancel() method.",
     "npm test -- debounce"),
    ("ev-py-retry-backoff", "python", "medium", "tpl-resilience",
     "Add exponential backoff with jitter to the HTTP client's retry loop in app/http.py.",
     "pytest tests/test_http_retry.py -q"),
    ("ev-go-rate-limiter", "go", "medium", "tpl-concurrency",
     "Implement a token-bucket rate limiter safe for concurrent use in pkg/ratelimit.",
     "go test -race ./pkg/ratelimit/..."),
    ("ev-rust-arg-parser", "rust", "medium", "tpl-cli-tool",
     "Parse --key=value and --flag arguments into a Config struct in src/args.rs.",
     "cargo test args"),
    ("ev-ts-query-planner", "typescript", "hard", "tpl-algorithm",
     "Reorder the joins of a query plan by estimated cardinality in src/planner/order.ts.",
     "npm test -- planner"),
    ("ev-rust-wal-recovery", "rust", "hard", "tpl-storage",
     "Recover the write-ahead log after a torn write: truncate at the last valid record.",
     "cargo test wal_recovery"),
]  # fmt: skip

#: agent folder -> (harness, model, pass chance by difficulty, by language adjustments)
AGENTS: dict[str, tuple[str, str, dict[str, float], dict[str, float]]] = {
    "claude": ("claude-code", "claude-sonnet-4-5",
               {"easy": 0.97, "medium": 0.72, "hard": 0.22}, {}),
    "codex": ("codex", "gpt-5-codex",
              {"easy": 0.93, "medium": 0.8, "hard": 0.62}, {"rust": -0.25}),
}  # fmt: skip


def _hex(*parts: Any, n: int = 40) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:n]


def _go_duration(seconds: float) -> str:
    """A Go duration string as yaml.v3 writes a time.Duration (``4m12.5s``)."""
    minutes, rest = divmod(round(seconds, 1), 60)
    return f"{int(minutes)}m{rest:g}s" if minutes else f"{rest:g}s"


def _iteration(run_id: str, task: tuple[str, ...], agent: tuple[Any, ...], passed: bool,
               rng: random.Random, day: int) -> tuple[dict[str, Any], int]:  # fmt: skip
    """The run's one iteration (schema v2) and its retries."""
    task_id, _lang, difficulty = task[0], task[1], task[2]
    retries = rng.choice([0, 0, 1]) if passed else rng.choice([1, 2, 3])
    added = rng.randint(1, 4) if passed else rng.randint(0, 2)
    tokens_in = rng.randint(18_000, 60_000) * (2 if difficulty == "hard" else 1)
    cached = int(tokens_in * rng.uniform(0.4, 0.85))
    status = "pass" if passed else rng.choice(["fail", "fail", "partial"])
    doc = {
        "schema_version": 2, "iteration": 1, "date": f"2026-06-{day:02d}",
        "wave": run_id, "task_id": task_id, "commit": _hex(run_id, "commit"),
        "files_changed": rng.randint(1, 5), "lines_added": rng.randint(20, 220),
        "lines_removed": rng.randint(0, 60), "first_commit": _hex(run_id, "commit"),
        "checkpoint_at": f"2026-06-{day:02d}T{rng.randint(8, 20):02d}:{rng.randint(0, 59):02d}:00Z",
        "agent": {"session_id": str(uuid.UUID(_hex(run_id, "session", n=32), version=4)),
                  "harness": agent[0], "model": agent[1]},
        "session_tokens": {"input_tokens": tokens_in, "output_tokens": rng.randint(2_000, 9_000),
                           "cache_read_tokens": cached, "cache_creation_tokens": tokens_in - cached,
                           "cache_hit_rate": round(cached / tokens_in, 3)},
        "impl": {"summary": task[4].split(" in ")[0].rstrip("."),
                 "scope_note": "on-target" if passed or rng.random() < 0.5 else "partial",
                 "retries": retries, "focused_tests_added": added,
                 "focused_tests_pass": passed,
                 "self_assessment": {"persisted_via_workflow_commands": "yes"}},
        "verifiers": [{"type": "test", "status": status, "gate_passed": passed,
                       "tests_added": added, "tests_total_pass": passed, "retries": retries}],
        "review": {"overall_decision": "accept" if passed else "reject",
                   "failed_gates": [] if passed else ["verification"]},
    }  # fmt: skip
    return doc, retries


def _dump(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


def write_run(runs: Path, name: str, task: tuple[str, ...], rep: int, rng: random.Random) -> None:
    """One run folder: taskspec, iteration log, its score sidecar, eval-run.yaml."""
    harness, model, by_difficulty, by_language = AGENTS[name]
    task_id, language, difficulty, template, prompt, command = task
    chance = min(1.0, max(0.0, by_difficulty[difficulty] + by_language.get(language, 0.0)))
    passed = rng.random() < chance
    day = 10 + rep
    run_id = f"run-202606{day:02d}-{_hex(name, task_id, rep, n=8)}"
    folder = runs / run_id
    _dump(folder / "taskspec.yaml", {
        "task_id": task_id, "language": language, "difficulty": difficulty,
        "generated_from": {"template_id": template, "seed": SEED},
        "prompt": prompt, "verification": {"command": command, "timeout": "10m0s"},
    })  # fmt: skip
    iteration, retries = _iteration(run_id, task, (harness, model), passed, rng, day)
    log = folder / "iteration-log"
    _dump(log / "iter-1.yaml", iteration)
    loaded = load_iteration_log(log)
    result = score_outcome(loaded, collect_outcome_evidence(loaded), default_outcome_rubric())
    write_score_sidecars(result, log, sessions=False)
    row = result.scores.row(0, named=True)
    verify_s = rng.uniform(8, 40) if language in ("go", "python") else rng.uniform(30, 150)
    phase = "tests" if passed else rng.choice(["tests", "tests", "build"])
    _dump(folder / "eval-run.yaml", {
        "run_id": run_id, "base_commit": BASE_COMMIT, "task_id": task_id,
        "language": language, "difficulty": difficulty,
        "agent": {"harness": harness, "model": model,
                  "session_id": iteration["agent"]["session_id"], "retries": retries,
                  "exit_code": 0 if passed or rng.random() < 0.7 else 1,
                  "duration": _go_duration(rng.uniform(60, 900) * (1 + retries)),
                  "prompt_digest": "sha256:" + _hex(prompt, n=64),
                  "output_digest": "sha256:" + _hex(run_id, "output", n=64)},
        "verify": {"passed": passed, "phase": phase, "exit_code": 0 if passed else 1,
                   "duration": _go_duration(verify_s)},
        "score": {"value": None if row["value"] is None else round(row["value"], 4),
                  "band": row["band"], "scored": row["scored"],
                  "rubric_version": result.rubric.version},
    })  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Write both agents' runs (the old ones replaced)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(HERE / "eval_runs"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    for name in AGENTS:
        runs = out / name / ".agents" / "eval" / "runs"
        shutil.rmtree(out / name, ignore_errors=True)
        rng = random.Random(f"{SEED}/{name}")
        for task in TASKS:
            for rep in range(REPLICATES):
                write_run(runs, name, task, rep, rng)
    print(f"wrote {len(AGENTS) * len(TASKS) * REPLICATES} runs under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
