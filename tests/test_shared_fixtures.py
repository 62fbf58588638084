"""The fixtures the rating tests share (tests/conftest.py): a fresh copy of the sample
discussion games per test, ``toolkit rate`` with its serving recorded instead of done, and
an app served on a thread at 127.0.0.1 that is stopped when the test ends."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest
from conftest import SAMPLE_RUNS
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from toolkit.cli import main


def test_games_is_a_fresh_copy_of_the_sample_games(games: Path, tmp_path: Path) -> None:
    sample = sorted((SAMPLE_RUNS / "discussions").glob("*.json"))
    assert games == tmp_path / "games"
    assert sorted(p.name for p in games.iterdir()) == [p.name for p in sample]
    for src in sample:
        assert (games / src.name).read_bytes() == src.read_bytes()
    (games / sample[0].name).write_text("{}")  # the sample stays as it was
    assert sample[0].read_text() != "{}"


def test_rate_serves_records_what_toolkit_rate_would_serve(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    assert main(["rate", str(games), "--raters", "ana", "--port", "0"]) == 0
    [(app, (host, port))] = rate_serves
    assert host == "127.0.0.1" and port > 0 and app is not None
    assert "Organiser:" in capsys.readouterr().out
    with socket.socket() as again:  # the recorded socket was closed: its port is free
        again.bind(("127.0.0.1", port))


def _hello(request: Any) -> PlainTextResponse:
    return PlainTextResponse("hello")


def test_serve_in_thread_serves_on_loopback_until_the_test_ends(
    serve_in_thread: Callable[[Any], str],
) -> None:
    base = serve_in_thread(Starlette(routes=[Route("/", _hello)]))
    assert base.startswith("http://127.0.0.1:")
    with urlopen(base + "/", timeout=10) as answer:
        assert answer.read() == b"hello"


def test_no_test_copies_the_sample_games_itself() -> None:
    """A fresh copy of the sample games is the shared ``games`` fixture's job: a test
    file that copies ``sample_runs/discussions/*.json`` itself holds a second copy of it
    (they drift apart)."""
    tests = Path(__file__).parent
    copying = re.compile(r'\(sample_runs / "discussions"\)\.glob\("\*\.json"\)')
    copies = sorted(
        str(p.relative_to(tests))
        for p in tests.rglob("*.py")
        if p.name != "conftest.py" and copying.search(p.read_text(encoding="utf-8"))
    )
    assert copies == []
