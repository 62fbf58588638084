"""The rater page end to end: ``toolkit rate`` serves it (Voilà, 127.0.0.1), a real headless
Chromium driven by Playwright rates two transcripts, reloads, and both ratings are in the
SQLite file and shown as saved."""

from __future__ import annotations

import contextlib
import os
import re
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


def _served_address(proc: subprocess.Popen[bytes], log: Path) -> int:
    """The port ``toolkit rate`` says it serves on (read from its output)."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        found = re.search(r"serving http://127\.0\.0\.1:(\d+)/", log.read_text())
        if found:
            return int(found.group(1))
        if proc.poll() is not None:
            pytest.fail(f"toolkit rate exited with {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.2)
    pytest.fail("toolkit rate printed no address")


def test_busy_default_port_enter_any_case_and_the_all_done_state(
    tmp_path: Path, sample_runs: Path
) -> None:
    """The default port taken: the page is served where ``toolkit rate`` says. A rater
    types "Ana" and presses Enter, rates every transcript and is told they are done;
    coming back as "ana" is the same rater. A taken ``--port`` is refused in one line."""
    from playwright.sync_api import expect, sync_playwright

    _require_browser()
    games = tmp_path / "games"
    games.mkdir()
    for src in sorted((sample_runs / "discussions").glob("*.json")):
        shutil.copy(src, games / src.name)
    store = tmp_path / "ratings.db"
    log = tmp_path / "server.log"
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with contextlib.suppress(OSError):  # if 8866 is already taken, it is busy all the same
        held.bind(("127.0.0.1", 8866))
        held.listen()
    cli = [sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*cli, "rate", str(games), "--store", str(store)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=tmp_path,
        )
    try:
        port = _served_address(proc, log)
        assert port != 8866
        _wait_for_port(port, proc, log)
        taken = subprocess.run(
            [*cli, "rate", str(games), "--port", str(port)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert taken.returncode == 2
        assert taken.stderr.count("\n") == 1
        assert f"port {port} on 127.0.0.1 is in use" in taken.stderr
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 1400})
                page.set_default_timeout(STEP_MS)

                def sign_in(name: str) -> None:
                    page.goto(f"http://127.0.0.1:{port}/", timeout=90_000)
                    box = page.get_by_placeholder("e.g. ana")
                    box.wait_for(timeout=90_000)
                    box.fill(name)
                    box.press("Enter")  # no click on Start

                sign_in("Ana")
                expect(page.get_by_text("0 of 3 rated")).to_be_visible()
                for n, (score, title) in enumerate(
                    [
                        ("4 Engaging", "game-over-budget"),
                        ("2 Dull", "game-pass"),
                        ("5 Fascinating", "game-role-repetition"),
                    ],
                    start=1,
                ):
                    expect(page.get_by_text(f"Transcript {n} of 3: {title}")).to_be_visible()
                    page.get_by_role("button", name=score).click()
                    page.get_by_role("button", name="Save rating").click()
                    expect(page.get_by_text(f"✓ Saved: {score} for {title}")).to_be_visible()
                    if n < 3:
                        page.get_by_role("button", name="Next").click()
                expect(
                    page.get_by_text("All done: you have rated all 3 transcripts.")
                ).to_be_visible()
                expect(page.get_by_text("✓ all 3 rated")).to_be_visible()
                shot = tmp_path / "rater_page.png"
                page.screenshot(path=str(shot), full_page=True)
                target = os.environ.get("TOOLKIT_RATER_SCREENSHOT")
                if target:  # used once to refresh docs/rater_page.png
                    shutil.copy(shot, target)

                page.reload()
                sign_in("ana")  # the same rater, whatever the capitals
                expect(page.get_by_text("✓ all 3 rated")).to_be_visible()
                expect(page.get_by_text("(by Ana,").first).to_be_visible()
                expect(page.get_by_text("All done")).to_be_visible()
            finally:
                browser.close()
    finally:
        held.close()
        _stop(proc)
    con = sqlite3.connect(store)
    try:
        raters = con.execute("SELECT DISTINCT rater FROM rating_events").fetchall()
    finally:
        con.close()
    assert raters == [("Ana",)]
