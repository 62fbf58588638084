"""One network-deadline policy (``toolkit.io.network``) for object storage and judges.

An endpoint on 127.0.0.1 that accepts connections and never answers must fail within the
deadlines, with them named in the one-line error. Each such test runs in a child
process bounded by ``timeout=``: before the policy, S3 took 403 s to give up.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.io import network
from toolkit.io.source import open_remote, parse_storage_options

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts every connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for conn in held:
            conn.close()


FAST = {"TOOLKIT_CONNECT_TIMEOUT": "1", "TOOLKIT_READ_TIMEOUT": "1", "TOOLKIT_STORAGE_RETRIES": "0"}


def toolkit(*args: str, env: dict[str, str], limit: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("toolkit")), *args],
        capture_output=True,
        text=True,
        timeout=limit,  # the bound of this test: a hang fails it, never blocks the suite
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        check=False,
    )


def test_s3_endpoint_that_never_answers_fails_within_the_deadlines(silent_port: int) -> None:
    done = toolkit(
        "quality", "s3://bucket/run",
        "--storage-option", f"endpoint_url=http://127.0.0.1:{silent_port}",
        "--storage-option", "key=x", "--storage-option", "secret=y",
        env=FAST, limit=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "no answer in time" in lines[0]
    assert "read 1s (TOOLKIT_READ_TIMEOUT)" in lines[0]
    assert "connect 1s (TOOLKIT_CONNECT_TIMEOUT)" in lines[0]


def test_s3_options_carry_the_deadlines_and_the_users_own_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in FAST:
        monkeypatch.delenv(variable, raising=False)
    options = network.storage_options("s3", {"config_kwargs": {"read_timeout": 120}})
    assert options["config_kwargs"]["read_timeout"] == 120  # the user's
    assert options["config_kwargs"]["connect_timeout"] == network.DEFAULT_CONNECT
    assert options["config_kwargs"]["retries"] == {"max_attempts": 1, "mode": "standard"}
    monkeypatch.setenv("TOOLKIT_READ_TIMEOUT", "nan")
    assert network.deadlines().read == network.DEFAULT_READ  # not a number: the default
    monkeypatch.setenv("TOOLKIT_READ_TIMEOUT", "2.5")
    assert network.storage_options("s3", {})["config_kwargs"]["read_timeout"] == 2.5
    assert network.storage_options("memory", {"a": 1}) == {"a": 1}


def test_s3_filesystem_makes_one_timed_out_request_plus_the_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("s3fs")
    monkeypatch.setenv("TOOLKIT_STORAGE_RETRIES", "0")
    fs = open_remote("s3://bucket/x", {"endpoint_url": "http://127.0.0.1:9", "anon": True}).fs
    assert fs.retries == 1  # s3fs's own default is 5 attempts, times botocore's 5


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["max_concurrency=0"], "the s3:// back-end refuses these options"),
        (["nonsense_option=1"], "unexpected keyword argument 'nonsense_option'"),
    ],
)
def test_options_a_back_end_refuses_are_one_line(items: list[str], message: str) -> None:
    pytest.importorskip("s3fs")
    source = open_remote("s3://bucket/x", parse_storage_options(items))
    with pytest.raises(InputError, match=message) as caught:
        source.subfolders()
    assert "\n" not in str(caught.value)


def test_deeply_nested_storage_option_json_is_refused_by_the_reading_edge() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(InputError, match="nested deeper than 100 levels") as caught:
        parse_storage_options([f"client_kwargs={deep}"])
    assert "--storage-option" in str(caught.value)
    assert parse_storage_options(["a=[1, 2]", "b=text", "c={not json"]) == {
        "a": [1, 2], "b": "text", "c": "{not json"}  # fmt: skip


def test_a_judge_client_has_the_connect_deadline() -> None:
    pytest.importorskip("anthropic")
    from toolkit.judge.live import AnthropicJudge

    judge = AnthropicJudge("m", api_key="k", base_url="http://127.0.0.1:9")
    timeout = judge._client.timeout
    assert (timeout.connect, timeout.read) == (network.DEFAULT_CONNECT, network.JUDGE_TIMEOUT)


def test_a_judge_that_never_answers_fails_open_naming_the_deadlines(silent_port: int) -> None:
    pytest.importorskip("anthropic")
    code = (
        "from toolkit.judge.live import AnthropicJudge\n"
        "from toolkit.judge import JudgeRequest\n"
        f"j = AnthropicJudge('m', api_key='k', base_url='http://127.0.0.1:{silent_port}',"
        " timeout=1, max_retries=1)\n"
        "r = j.judge([JudgeRequest('p', 'd', 's', 'c', 't')])[0]\n"
        "print(r.value, r.transient, r.error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("None True judge unavailable: no answer in time: ")
    assert "read 1s (--judge-timeout)" in done.stdout and "1 retries" in done.stdout
