"""Outputs go where they are named, or nowhere: every writer's output path that is a named
pipe, a device, a folder where a file is expected (a file where a folder is), or a
symbolic link out of its folder is refused in one line before any work, and what it
named is left exactly as it was (issue 42).

Each command is run through :func:`toolkit.cli.main`; a refusal is exit 2 with one
stderr line naming the option and the path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.io.atomic import check_output_folder, output_problem, write_text_atomic

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
RUN = SAMPLE_RUNS / "universes"

#: (command words before the output, option): each writes a file.
FILE_WRITERS: dict[str, tuple[list[str], str]] = {
    "calibrate --junit": (["calibrate", str(SCORES)], "--junit"),
    "calibrate --html": (["calibrate", str(SCORES)], "--html"),
    "quality --junit": (["quality", str(RUN)], "--junit"),
    "compare --junit": (
        ["compare", str(SAMPLE_RUNS / "compare" / "a"), str(SAMPLE_RUNS / "compare" / "b")],
        "--junit",
    ),
    "report -o": (["report", "fleet", str(RUN)], "-o"),
}


def _fifo(tmp: Path) -> Path:
    path = tmp / "pipe.xml"
    os.mkfifo(path)
    return path


def _folder(tmp: Path) -> Path:
    path = tmp / "out.xml"
    path.mkdir()
    (path / "kept.txt").write_text("mine")
    return path


def _link_out(tmp: Path) -> Path:
    outside = tmp / "elsewhere"
    outside.mkdir()
    (outside / "precious.txt").write_text("precious")
    inside = tmp / "work"
    inside.mkdir()
    link = inside / "out.xml"
    link.symlink_to(outside / "precious.txt")
    return link


KINDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "fifo": (_fifo, "named pipe (FIFO)"),
    "device": (lambda tmp: Path("/dev/null"), "a device"),
    "folder": (_folder, "is a folder"),
    "link out": (_link_out, "symbolic link leading out of its folder"),
}


def _state(path: Path) -> tuple[int, str]:
    """The kind of ``path`` (lstat mode) and what it holds or points to."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return info.st_mode, os.readlink(path) + "|" + Path(path).read_text()
    if stat.S_ISDIR(info.st_mode):
        return info.st_mode, ",".join(sorted(os.listdir(path)))
    return info.st_mode, ""


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("writer", list(FILE_WRITERS))
def test_every_file_writer_refuses_what_is_not_a_file_and_leaves_it(
    writer: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, said = KINDS[kind]
    target = make(tmp_path)
    before = _state(target)
    words, option = FILE_WRITERS[writer]
    assert main([*words, option, str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert said in err[0] and f"error: {target}: " in err[0], err[0]
    assert err[0].endswith(f"(given to {option})"), err[0]
    assert _state(target) == before
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith(".toolkit-tmp")]
    assert leftovers == []


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda tmp: (tmp / "site.html", (tmp / "site.html").write_text("x"))[0], "is a file"),
        (_fifo, "named pipe (FIFO), not a folder"),
        (lambda tmp: Path("/dev/null"), "a device, not a folder"),
        (_link_out, "symbolic link leading out of its folder"),
    ],
    ids=["file", "fifo", "device", "link out"],
)
def test_view_o_refuses_what_is_not_a_folder_in_one_line(
    make: Callable[[Path], Path], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = make(tmp_path)
    before = _state(target)
    assert main(["view", str(RUN), "-o", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and f"error: {target}: " in err[0], err
    assert err[0].endswith("(given to -o)"), err
    assert _state(target) == before


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_atomic_writer_itself_refuses_each_kind(kind: str, tmp_path: Path) -> None:
    make, said = KINDS[kind]
    target = make(tmp_path)
    before = _state(target)
    with pytest.raises(InputError, match=said.replace("(", r"\(").replace(")", r"\)")):
        write_text_atomic(target, "replaced?")
    assert _state(target) == before


def test_a_link_inside_its_folder_and_a_new_name_may_be_written(tmp_path: Path) -> None:
    (tmp_path / "real.xml").write_text("old")
    (tmp_path / "alias.xml").symlink_to("real.xml")
    assert output_problem(tmp_path / "alias.xml") is None
    assert output_problem(tmp_path / "new.xml") is None
    assert output_problem(tmp_path, folder=True) is None
    assert check_output_folder(tmp_path / "new-site") == tmp_path / "new-site"


PERSONA = SAMPLE_RUNS / "persona"


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_judge_cassette_to_record_is_held_to_the_same_rule(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, said = KINDS[kind]
    target = make(tmp_path)
    before = _state(target)
    game = SAMPLE_RUNS / "discussions" / "game-pass.json"
    words = ["discussion", str(game), "--judge", f"recorded:{tmp_path / 'x.json'}"]
    assert main([*words, "--record", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and err[0].endswith("(given to --record)"), err
    assert _state(target) == before


def test_write_baseline_refuses_a_file_and_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = PERSONA / "cassette.json"
    words = ["persona", str(PERSONA / "radio-week1.jsonl"), "--propositions",
             str(PERSONA / "propositions"), "--judge", f"recorded:{cassette}"]  # fmt: skip
    plain = tmp_path / "baselines.txt"
    plain.write_text("mine")
    for target, said in ((plain, "is a file, not a folder"), (_fifo(tmp_path), "(FIFO)")):
        before = _state(target)
        assert main([*words, "--write-baseline", str(target)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and said in err[0], err
        assert err[0].endswith("(given to --write-baseline)"), err
        assert _state(target) == before
