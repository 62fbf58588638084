"""The fixtures the rating tests share (tests/conftest.py): a fresh copy of the sample
discussion games per test, ``toolkit rate`` with its serving recorded instead of done, and
an app served on a thread at 127.0.0.1 that is stopped when the test ends."""

from __future__ import annotations

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
