"""``toolkit view --watch``: the site is written again when runs arrive, each round
scoring only the new or changed runs, and an unchanged folder is not rewritten."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import tick_v1, write_run

from toolkit.cli import main

CODE = "import sys; from toolkit.cli import main; sys.exit(main())"


def _build(site: Path) -> tuple[str, int]:
    """The build id and run count written in the site's data/build.js."""
    text = (site / "data" / "build.js").read_text(encoding="utf-8")
    call = re.fullmatch(r"window\.__tk\.build\((.*)\);\n", text)
    assert call is not None, text
    build, runs, _ = json.loads(f"[{call.group(1)}]")
    return build, runs


def test_a_run_that_arrives_is_added_and_only_it_is_scored(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "first", [tick_v1(n) for n in range(1, 5)])
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    args = ["view", str(runs), "-o", str(site), "--watch", "--interval", "0.2", "--watch-for", "30"]
    proc = subprocess.Popen([sys.executable, "-c", CODE, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        build_one, count_one = _build(site)
        write_run(runs / "second", [tick_v1(n) for n in range(1, 4)])
        second = proc.stdout.readline()
        proc.kill()
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert re.match(r"toolkit view: 1 run\(s\) at \d\d:\d\d:\d\d; watching every 0\.2 s", first)
    assert re.match(r"toolkit view: 2 run\(s\) at .* \(1 scored, 1 unchanged\)", second), err
    build_two, count_two = _build(site)
    assert (count_one, count_two) == (1, 2) and build_two != build_one
    manifest = (site / "data" / "manifest.js").read_text(encoding="utf-8")
    assert f'"build":"{build_two}"' in manifest and '"interval":0.2' in manifest


def test_an_unchanged_folder_is_written_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "only", [tick_v1(n) for n in range(1, 4)])
    site = tmp_path / "site"
    code = main(["view", str(runs), "-o", str(site), "--watch", "--interval", "0.1",
                 "--watch-for", "1"])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().out.count("run(s) at") == 1  # ~10 looks, one write
    assert _build(site)[1] == 1
    # a plain build of the same folder has no watch record and no build.js
    plain = tmp_path / "plain"
    assert main(["view", str(runs), "-o", str(plain)]) == 0
    assert not (plain / "data" / "build.js").exists()
    assert '"watch":null' in (plain / "data" / "manifest.js").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--interval", "0"], "--interval=0.0: must be more than 0 seconds"),
        (["--interval", "nan"], "--interval=nan: must be more than 0 seconds"),
        (["--watch-for", "-1"], "--watch-for=-1.0: must be 0 seconds or more"),
        # time.sleep(inf) raised OverflowError (a traceback) after the first build
        (["--interval", "inf"], "--interval=inf: must be more than 0 seconds, at most 86400"),
        (["--interval", "1e300"], "--interval=1e+300: must be more than 0 seconds, at most"),
    ],
)
def test_bad_watch_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    runs = write_run(tmp_path / "r", [tick_v1(1)])
    code = main(["view", str(runs), "-o", str(tmp_path / "s"), "--watch", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_watch_for_without_watch_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = write_run(tmp_path / "r", [tick_v1(1)])
    assert main(["view", str(runs), "-o", str(tmp_path / "s"), "--watch-for", "3"]) == 2
    assert "--watch-for=3.0: goes with --watch" in capsys.readouterr().err


def test_watch_into_a_url_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = write_run(tmp_path / "r", [tick_v1(1)])
    assert main(["view", str(runs), "-o", "s3://bucket/site", "--watch"]) == 2
    assert "--watch writes a local folder, not a URL" in capsys.readouterr().err


def test_a_folder_gone_for_a_round_keeps_the_watch_and_the_site(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found in review: the watched folder removed for a moment (an rsync, a checkout)
    ended --watch with exit 2; the site is kept and the watch goes on, saying so once."""
    import argparse

    from toolkit.cli._view_watch import watch
    from toolkit.errors import InputError

    rounds: list[int] = []

    class Collected:
        notes: tuple[str, ...] = ()

    def gather(memo: Any) -> Collected:
        rounds.append(1)
        if 2 <= len(rounds) <= 4:
            raise InputError("gone", "no such file or folder")
        return Collected()

    writes: list[dict[str, Any]] = []
    args = argparse.Namespace(interval=0.01, watch_for=0.5, watch=True)
    assert watch(args, gather, lambda c, w: writes.append(w) or 0) == 0
    _, err = capsys.readouterr()
    assert len(rounds) > 5 and len(writes) == 1
    assert err.count("gone: no such file or folder") == 1 and "still watching" in err
