"""The rater page end to end: ``toolkit rate`` serves it (Voilà, 127.0.0.1), a real headless
Chromium driven by Playwright rates two transcripts, reloads, and both ratings are in the
SQLite file and shown as saved."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS

SERVER_START_S = 90
STEP_MS = 30_000


def _unavailable() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (.ci/run installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (make installs it from pyproject)"
    return None


def _require_browser() -> None:
    reason = _unavailable()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the browser test must run in CI: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"toolkit rate exited with {proc.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.25)
    pytest.fail(f"the rating page did not listen on {port} within {SERVER_START_S}s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server by its own process id (then anything left in its process group)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # its kernels, should any outlive it


@pytest.fixture
def rater_server(tmp_path: Path, sample_runs: Path) -> Iterator[tuple[str, Path, Path]]:
    """``toolkit rate`` over a copy of the sample transcripts; yields (url, store, log)."""
    _require_browser()
    games = tmp_path / "games"
    games.mkdir()
    for src in sorted((sample_runs / "discussions").glob("*.json")):
        shutil.copy(src, games / src.name)
    store = tmp_path / "ratings.db"
    port = _free_port()
    log = tmp_path / "server.log"
    cmd = [
        sys.executable,
        "-c",
        "import sys; from toolkit.cli import main; sys.exit(main())",
        "rate",
        str(games),
        "--store",
        str(store),
        "--port",
        str(port),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=tmp_path
        )
    try:
        _wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/", store, log
    finally:
        _stop(proc)


def test_rate_two_transcripts_reload_and_find_both_saved(
    rater_server: tuple[str, Path, Path], tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, store, log = rater_server
    # The server listens only on the loopback address.
    assert "http://127.0.0.1:" in log.read_text()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.set_default_timeout(STEP_MS)

            def sign_in() -> None:
                page.goto(url, timeout=90_000)
                name = page.get_by_placeholder("e.g. ana")
                name.wait_for(timeout=90_000)
                name.fill("ana")
                page.get_by_role("button", name="Start rating").click()

            sign_in()
            expect(page.get_by_text("0 of 3 rated")).to_be_visible()
            # Save is disabled until a score is chosen.
            expect(page.get_by_role("button", name="Save rating")).to_be_disabled()
            page.get_by_role("button", name="4 Engaging").click()
            page.get_by_role("button", name="Yes").first.click()
            page.get_by_placeholder("Notes (optional)").fill("sharp first round")
            page.get_by_role("button", name="Save rating").click()
            expect(page.get_by_text("✓ Saved: 4 Engaging for game-over-budget")).to_be_visible()
            page.get_by_role("button", name="Reveal roles").click()
            expect(page.get_by_text("MAFIA").first).to_be_visible()

            page.get_by_role("button", name="Next").click()
            expect(page.get_by_text("Transcript 2 of 3: game-pass")).to_be_visible()
            page.get_by_role("button", name="2 Dull").click()
            page.get_by_role("button", name="Save rating").click()
            expect(page.get_by_text("✓ Saved: 2 Dull for game-pass")).to_be_visible()
            expect(page.get_by_text("2 of 3 rated").first).to_be_visible()
            shot = tmp_path / "rater_page.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            target = os.environ.get("TOOLKIT_RATER_SCREENSHOT")
            if target:  # used once to refresh docs/rater_page.png
                shutil.copy(shot, target)

            page.reload()
            sign_in()
            # Resumed at the one transcript ana has not rated, both others shown as saved.
            expect(page.get_by_text("Transcript 3 of 3: game-role-repetition")).to_be_visible()
            expect(page.get_by_text("2 of 3 rated").first).to_be_visible()
            page.get_by_role("button", name="Previous").click()
            expect(page.get_by_text("✓ Saved: 2 Dull (by ana,")).to_be_visible()
            page.get_by_role("button", name="Previous").click()
            expect(page.get_by_text("✓ Saved: 4 Engaging (by ana,")).to_be_visible()
            expect(page.get_by_placeholder("Notes (optional)")).to_have_value("sharp first round")
        finally:
            browser.close()

    con = sqlite3.connect(store)
    try:
        rows = con.execute(
            "SELECT rater, transcript_id, score, answers, notes FROM rating_events "
            "ORDER BY event_id"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        ("ana", "game-over-budget", 4, '{"suspense": true}', "sharp first round"),
        ("ana", "game-pass", 2, "{}", ""),
    ]
