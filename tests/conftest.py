"""Shared fixtures. Real runs are read in place from ../shared/real_runs when present."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_RUNS = ROOT / "sample_runs"
REAL_RUNS = ROOT.parent / "shared" / "real_runs"


def script_module(path: Path, *, register: bool = False) -> ModuleType:
    """The script at ``path`` (a generator, a benchmark, not a package module) imported as
    a module named after its file; with ``register`` also put in ``sys.modules`` first (for
    a script whose dataclasses or pickles look their module up by name)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


#: Debian's Chromium (installed by .ci/run) and the flags it needs on this closed network.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def real_runs() -> Path:
    """The folder of real runs from public projects; skips when it is absent."""
    if not REAL_RUNS.is_dir():
        pytest.skip(f"real runs not available: {REAL_RUNS} is absent (fresh clone without shared/)")
    return REAL_RUNS


@pytest.fixture
def sample_runs() -> Path:
    """The sample runs bundled with the project."""
    return SAMPLE_RUNS


@pytest.fixture(scope="session")
def persona_week2() -> Any:
    """The persona sample's week 2 scored by its recorded judge against week 1's
    baselines (Lenny drifts; everybody's convergence drops)."""
    import toolkit as tk

    folder = SAMPLE_RUNS / "persona"
    return tk.score_persona(
        tk.load_chat(folder / "radio-week2.jsonl"),
        tk.load_propositions(folder / "propositions"),
        tk.RecordedJudge(folder / "cassette.json"),
        baselines=tk.load_baselines(folder / "baselines"),
    )


def experiment_scores(
    treatment: list[float | None],
    control: list[float | None],
    metric: str = "m",
    experiment: str = "e",
) -> Any:
    """An experiment scores frame (one unit per value) for the statistics tests."""
    import polars as pl

    from toolkit.frames import EXPERIMENT_SCORES_SCHEMA

    rows = [
        {"experiment": experiment, "group": g, "metric": metric, "unit": str(i), "score": s,
         "source_file": "mem"}
        for g, values in (("treatment", treatment), ("control", control))
        for i, s in enumerate(values)
    ]  # fmt: skip
    return pl.DataFrame(rows, schema=EXPERIMENT_SCORES_SCHEMA)


def only_row(frame: Any) -> dict[str, Any]:
    """The one row of a one-row frame, by column name."""
    assert frame.height == 1
    row: dict[str, Any] = frame.row(0, named=True)
    return row


# ---------------------------------------------------------------------------
# Building token-world runs for tests
# ---------------------------------------------------------------------------


def tick_v1(n: int, **fields: Any) -> dict[str, Any]:
    """A schema-v1 tick summary of an executed tick with one mutation; override any field."""
    record: dict[str, Any] = {
        "schema_version": 1,
        "tick_id": str(n),
        "timestamp_iso": f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "action_text": f"Mara walks to the well (turn {n}).",
        "classified_action": {"verb": "walk", "actor": "mara", "target": "well"},
        "classified_actions": [],
        "matched_mechanic_id": "walk_action",
        "yielded": False,
        "refused": False,
        "refusal_reason": None,
        "mutations": {"count": 1, "list": [["mara", "location", "home", "well"]]},
        "observation_text": "Mara is at the well.",
        "long_running_action": None,
        "duration_ms": 1000,
        "llm_tokens_by_stage": {
            "classifier": {"in": 10, "out": 2},
            "observer": {"in": 5, "out": 1},
        },
        "llm_cost_usd_by_stage": {"classifier": 0.25, "observer": 0.5},
    }
    record.update(fields)
    return record


def tick_v2(n: int, **fields: Any) -> dict[str, Any]:
    """A schema-v2 tick summary of an executed tick whose observer claims its one mutation."""
    record: dict[str, Any] = {
        "schema_version": 2,
        "tick_id": str(n),
        "timestamp_iso": "2026-01-01T00:00:00Z",
        "actor_id": "mara",
        "action_text": f"Mara walks to the well (turn {n}).",
        "classified_action": {"verb": "walk", "actor": "mara", "target": "well"},
        "matched_mechanic_id": "walk_action",
        "kind": "execute",
        "refusal_reason": None,
        "conservation_verdict": "ok",
        "mutations": {"count": 1, "list": [["mara", "location", "home", "well"]]},
        "projected_state": {},
        "observation": {
            "text": "Mara is at the well.",
            "claimed_changes": [["mara", "location", "well"]],
        },
        "long_running_action": None,
        "duration_ms": 1000,
        "cost_usd": 0.75,
    }
    record.update(fields)
    return record


def refused_v1(n: int, reason: str = "no_viable_action") -> dict[str, Any]:
    """A refused v1 tick (zero mutations)."""
    return tick_v1(
        n, refused=True, refusal_reason=reason, matched_mechanic_id=None,
        mutations={"count": 0, "list": []},
    )  # fmt: skip


#: graph_snapshots as token-world's engine declares it (docs/formats/universe.md).
SNAPSHOTS_DDL = """
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


def write_run(
    root: Path,
    ticks: list[dict[str, Any]],
    *,
    snapshots: list[tuple[int, int, int]] | None = None,
    batches: list[dict[str, Any]] | None = None,
) -> Path:
    """Write a run folder: tick files, optional batch records and graph snapshots."""
    tick_dir = root / "tick_summaries" / "ticks"
    tick_dir.mkdir(parents=True, exist_ok=True)
    for t in ticks:
        number = str(t["tick_id"]).removeprefix("tick_")
        (tick_dir / f"tick_{number}.json").write_text(json.dumps(t))
    for i, b in enumerate(batches or []):
        (root / "tick_summaries" / f"batch_{i}.json").write_text(json.dumps(b))
    if snapshots is not None:
        with sqlite3.connect(root / "universe.db") as conn:
            conn.executescript(SNAPSHOTS_DDL)
            conn.executemany(
                "INSERT INTO graph_snapshots (tick_id, graph_json, node_count, edge_count)"
                " VALUES (?, '{}', ?, ?)",
                snapshots,
            )
        conn.close()
    return root


# ---------------------------------------------------------------------------
# Agent iteration logs: the sample log and the git repository its script builds
# ---------------------------------------------------------------------------

ITERATION_LOGS = SAMPLE_RUNS / "iteration_logs"


def _build_tally_repo(dest: Path, *extra: str) -> Path:
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, str(ITERATION_LOGS / "make_repo.py"), str(dest), *extra],
        check=True,
        capture_output=True,
    )
    return dest


@pytest.fixture
def tally_log() -> Path:
    """The sample iteration log (schema v1 and v2, sidecars, artifacts)."""
    return ITERATION_LOGS / "tally-loop"


@pytest.fixture
def tally_transcripts() -> Path:
    """The folder holding the sample log's Claude Code transcript."""
    return ITERATION_LOGS / "transcripts"


@pytest.fixture(scope="session")
def tally_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log's git repository, built by its script into a temporary folder."""
    return _build_tally_repo(tmp_path_factory.mktemp("tally") / "repo")


@pytest.fixture(scope="session")
def tally_bare_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same repository, bare."""
    return _build_tally_repo(tmp_path_factory.mktemp("tally-bare") / "repo.git", "--bare")


# ---------------------------------------------------------------------------
# Scale (issue 17): real servers on 127.0.0.1 — moto's S3 server (a subprocess) and a
# Dask LocalCluster with two worker processes, each started once per session and
# stopped after. Fleets are uploaded with boto3, the client a user would use.
# ---------------------------------------------------------------------------
SAMPLE_FLEET = ROOT / "sample_runs" / "fleet"
BUCKET = "sweeps"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class S3:
    endpoint: str
    client: Any

    @property
    def option(self) -> str:
        """The CLI flag value that points fsspec at this server."""
        return f"endpoint_url={self.endpoint}"

    def upload(self, folder: Path, prefix: str) -> str:
        """Upload every file under ``folder`` to ``s3://BUCKET/prefix/``; returns the URL."""
        files = [p for p in sorted(folder.rglob("*")) if p.is_file()]

        def put(path: Path) -> None:
            key = f"{prefix}/{path.relative_to(folder).as_posix()}"
            self.client.upload_file(str(path), BUCKET, key)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(put, files))
        return f"s3://{BUCKET}/{prefix}"


@pytest.fixture(scope="session")
def s3() -> Iterator[S3]:
    """moto's S3 server on a free loopback port; credentials in the environment (the
    usual chain), so the toolkit and Dask workers started after it find them."""
    import boto3

    saved = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    port = free_port()
    code = (
        "import logging, sys; logging.getLogger('werkzeug').setLevel(logging.ERROR)\n"
        "from moto.server import main\n"
        f"main(['-H', '127.0.0.1', '-p', '{port}'])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                client.list_buckets()
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.2)
        client.create_bucket(Bucket=BUCKET)
        yield S3(endpoint, client)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def dask_client(s3: S3) -> Iterator[Any]:
    """A LocalCluster of two worker processes on 127.0.0.1 (started after the S3
    server, so the workers inherit its credentials from the environment)."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture(scope="session")
def generated_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small fleet from the benchmark's seeded generator (bench/make_fleet.py)."""
    module = script_module(ROOT / "bench" / "make_fleet.py")
    out = tmp_path_factory.mktemp("generated") / "fleet"
    module.write_fleet(out, runs=8, ticks=60, nights=4, seed=3)
    return out


@pytest.fixture(scope="session")
def s3_sample_fleet(s3: S3) -> str:
    """sample_runs/fleet uploaded to the S3 server."""
    return s3.upload(SAMPLE_FLEET, "sample")


@pytest.fixture(scope="session")
def s3_generated_fleet(s3: S3, generated_fleet: Path) -> str:
    """The generated fleet uploaded to the S3 server."""
    return s3.upload(generated_fleet, "generated")


@pytest.fixture(scope="session")
def generated_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six iteration logs from the benchmark's seeded generator (bench/make_iterlogs.py)."""
    module = script_module(ROOT / "bench" / "make_iterlogs.py")
    out = tmp_path_factory.mktemp("logs")
    module.write_logs(out, logs=6, iterations=8, seed=5)
    return out


@pytest.fixture(autouse=True)
def _no_github_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite itself may run in GitHub Actions: no command a test runs appends to the
    job's real step summary (tests that want one set ``GITHUB_STEP_SUMMARY`` themselves)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


#: A ``toolkit compare --format json`` result of two arms "a" and "b", one dimension (the
#: viewer's comparison page is built from it in the site and browser tests).
COMPARE_RESULT: dict[str, Any] = {
    "rubric": "compare", "rubric_version": "1.0.0", "family": "simulation", "a": "a",
    "b": "b", "mode": "paired", "pair_by": "slug", "test": "wilcoxon", "correction": "holm",
    "alpha": 0.05, "level": 0.95, "runs_a": 2, "runs_b": 2, "pairs": 2,
    "dimensions": [
        {"dimension": "dim_a", "kind": "numeric", "n": 2, "mean_a": 0.4, "mean_b": 0.6,
         "diff": 0.2, "ci_low": 0.1, "ci_high": 0.3, "p_adj": 0.01, "outcome": "better",
         "note": ""},
    ],
    "flips": [{"dimension": "dim_a", "both_pass": 1, "pass_to_fail": 0, "fail_to_pass": 1,
               "both_fail": 0, "p": 1.0}],
    "notes": ["<b>a note</b>"],
}  # fmt: skip


def has_repeated_key(text: str) -> bool:
    """Python's json, independently of the toolkit: does any object write a key twice?"""
    found = False

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        found = found or len({k for k, _ in pairs}) != len(pairs)
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return found


# ------------------------------------------------------------------ rating sessions and browsers


@pytest.fixture
def games(tmp_path: Path) -> Path:
    """A fresh copy of the sample discussion game files in ``tmp_path/games`` (a rating
    session writes beside its games, never into the samples)."""
    folder = tmp_path / "games"
    folder.mkdir()
    for src in sorted((SAMPLE_RUNS / "discussions").glob("*.json")):
        shutil.copy(src, folder / src.name)
    return folder


@pytest.fixture
def rate_serves(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[str, int]]]:
    """``toolkit rate`` without serving: each (app, address) it would serve is recorded
    and its bound socket closed."""
    # the rate command's module: only the tests that run it pay its import here
    import toolkit.cli.rate as rate_cli

    calls: list[tuple[Any, tuple[str, int]]] = []

    def fake_serve(app: Any, sock: socket.socket) -> None:
        calls.append((app, sock.getsockname()[:2]))
        sock.close()

    monkeypatch.setattr(rate_cli, "_serve", fake_serve)
    return calls


@pytest.fixture
def serve_in_thread() -> Iterator[Callable[[Any], str]]:
    """Serve an ASGI app with uvicorn on a thread of this process at 127.0.0.1 and a free
    port: called with the app, it returns the base URL once the server listens; every
    server it started stops when the test ends."""
    # uvicorn and the rating server's config (starlette): only the served tests pay them
    import uvicorn

    from toolkit.rating_server.run import server_config

    running: list[tuple[Any, threading.Thread, socket.socket]] = []

    def serve(app: Any) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(server_config(app))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        running.append((server, thread, sock))
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "the server did not start within 30 s"
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    try:
        yield serve
    finally:
        for server, thread, sock in running:
            server.should_exit = True
            thread.join(timeout=15)
            sock.close()


def require_browser() -> None:
    """Skip when Debian's Chromium or the playwright package is missing (fail in CI,
    where ``.ci/run`` installs both)."""
    reason = None
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is not installed (.ci/run installs Debian's chromium)"
    elif importlib.util.find_spec("playwright") is None:
        reason = "the playwright package is not installed (make installs it from pyproject)"
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the browser test must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, headless, with this network's flags
    (:data:`CHROMIUM_ARGS`); skips as :func:`require_browser` says."""
    require_browser()
    # playwright (and its driver process): only the browser tests pay it
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def discussion_estimate_args(sample_runs: Path, tmp_path: Path) -> list[str]:
    """``toolkit compare --estimate`` of the sample games (A) against their baseline (B)
    with the recorded judge, two of each arm's three games rated (``tmp_path`` / a.csv,
    b.csv; the third judged only); the caller adds ``--format`` and the like."""
    import polars as pl  # only the tests that take this fixture pay for it

    folder = sample_runs / "discussions"
    ratings = pl.read_csv(folder / "engagement_ratings.csv", infer_schema=False)
    for name, games in (("a", ["game-pass", "game-over-budget"]), ("b", ["base-7-1", "base-7-2"])):
        ratings.filter(pl.col("game_id").is_in(games)).write_csv(tmp_path / f"{name}.csv")
    return [
        "compare", "--estimate", str(folder), str(folder / "baseline"),
        "--judge", f"recorded:{folder / 'judge' / 'cassette.json'}",
        "--ratings-a", str(tmp_path / "a.csv"), "--ratings-b", str(tmp_path / "b.csv"),
    ]  # fmt: skip


def run_app_js(pattern: str, program: str, payload: Any, timeout: float = 120) -> Any:
    """Run, in node, the part of the site's app.js that ``pattern`` finds (a regular
    expression over its text, DOTALL), then ``program``, which reads ``payload`` as JSON
    from standard input and writes its answer as JSON; the answer. Skips without node."""
    import re

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    app = ROOT / "toolkit" / "views" / "site" / "static" / "app.js"
    found = re.search(pattern, app.read_text(encoding="utf-8"), re.S)
    assert found is not None, f"app.js has no {pattern!r}"
    done = subprocess.run(
        [node, "-e", f"{found.group(0)}\n{program}"], input=json.dumps(payload),
        capture_output=True, text=True, timeout=timeout, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)
