"""The optional C listing of a folder of regular files (issue 38,
``toolkit/io/_readpack.c``'s ``regular_names``).

The reference is the pure listing, ``os.scandir`` with each entry's
``is_file(follow_symlinks=False)`` (:func:`toolkit.io.edge.scan_folder` and the local
source's folders): the C listing must give exactly the entries' names, in the same order,
when every entry is a regular file, and nothing (``None``, so that the pure listing looks
at each entry and says why) for any other folder: one holding a subfolder, a FIFO, a
symlink of any kind, a name that is not UTF-8; a missing folder, a file, an unreadable
one. Runs listed with it on and off (``edge.PACK_ACCEL``, what ``TOOLKIT_ACCEL=0`` sets)
are the same listings.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from test_accel_read import reader as listing  # the C reader and listing on or off

from toolkit.io import edge
from toolkit.io.source import open_source
from toolkit.load import _run_listing

_readpack = pytest.importorskip("toolkit.io._readpack")
if not hasattr(_readpack, "regular_names"):
    pytest.skip("the C listing is not built here", allow_module_level=True)


def _pure(folder: Path) -> list[str] | None:
    """The reference: the entries' names when every one is a regular file, by scandir."""
    with os.scandir(folder) as entries:
        found = list(entries)
    if all(e.is_file(follow_symlinks=False) for e in found):
        return [e.name for e in found]
    return None


def _files(folder: Path, names: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"{}")
    return folder


def test_a_folder_of_files_lists_its_names_in_scandirs_order(tmp_path: Path) -> None:
    names = [f"tick_{n}.json" for n in range(500)] + [".hidden", "..x", "é ☃.json", "a\nb"]
    folder = _files(tmp_path / "ticks", names)
    got = _readpack.regular_names(str(folder))
    assert got == _pure(folder) == [e.name for e in os.scandir(folder)]
    assert sorted(got) == sorted(names)  # every name, "." and ".." left out


def test_an_empty_folder_lists_as_no_names(tmp_path: Path) -> None:
    assert _readpack.regular_names(str(tmp_path)) == [] == _pure(tmp_path)


@pytest.mark.parametrize("kind", ["folder", "fifo", "inside link", "dangling link", "loop"])
def test_a_folder_holding_anything_but_files_is_left_to_the_pure_listing(
    tmp_path: Path, kind: str
) -> None:
    folder = _files(tmp_path / "ticks", ["tick_1.json", "tick_2.json"])
    odd = folder / "tick_3.json"
    if kind == "folder":
        odd.mkdir()
    elif kind == "fifo":
        os.mkfifo(odd)
    elif kind == "inside link":
        odd.symlink_to(folder / "tick_1.json")
    elif kind == "dangling link":
        odd.symlink_to(folder / "missing.json")
    else:
        odd.symlink_to(odd)
    assert _readpack.regular_names(str(folder)) is None
    assert _pure(folder) is None  # the pure listing looks at it too


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
def test_a_name_that_is_not_utf8_is_given_as_scandir_gives_it(tmp_path: Path) -> None:
    (tmp_path / "ticks").mkdir()
    with open(os.path.join(os.fsencode(tmp_path / "ticks"), b"tick_\xff.json"), "wb") as f:
        f.write(b"{}")
    got = _readpack.regular_names(str(tmp_path / "ticks"))
    assert got == ["tick_\udcff.json"] == _pure(tmp_path / "ticks")


def test_a_folder_that_cannot_be_listed_is_left_to_the_pure_listing(tmp_path: Path) -> None:
    file = tmp_path / "file.json"
    file.write_bytes(b"{}")
    assert _readpack.regular_names(str(tmp_path / "missing")) is None
    assert _readpack.regular_names(str(file)) is None
    locked = _files(tmp_path / "locked", ["tick_1.json"])
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):  # root reads it anyway: the names, as scandir
            assert _readpack.regular_names(str(locked)) == ["tick_1.json"]
        else:
            assert _readpack.regular_names(str(locked)) is None
    finally:
        locked.chmod(0o755)
    assert edge.scan_folder(tmp_path / "missing") == ([], None)  # the pure listing's say


def test_the_switch_turns_the_c_listing_off(tmp_path: Path) -> None:
    folder = _files(tmp_path / "ticks", ["tick_1.json"])
    with listing(True):
        assert edge.regular_names(str(folder)) == ["tick_1.json"]
    with listing(False):
        assert edge.regular_names(str(folder)) is None


def _hostile_runs(root: Path) -> list[str]:
    """Runs of every shape the listing knows: plain, with odd entries among the ticks,
    without summaries, empty."""
    plain = root / "plain"
    _files(plain / "tick_summaries" / "ticks", [f"tick_{n}.json" for n in (3, 1, 20, 2, 10)])
    _files(plain, ["universe.yaml", "conservation.yaml", "universe.db"])
    _files(plain / "tick_summaries", ["batch_1.json", "epoch_2.json"])
    odd = root / "odd"
    ticks = _files(odd / "tick_summaries" / "ticks", ["tick_1.json", "tick_02.json", "x.txt"])
    (ticks / "tick_5.json").mkdir()
    os.mkfifo(ticks / "tick_6.json")
    (ticks / "tick_7.json").symlink_to(ticks / "tick_1.json")
    (ticks / "tick_99999999999999999999.json").write_bytes(b"{}")
    _files(root / "no_summaries", ["universe.yaml"])
    (root / "empty").mkdir()
    return [str(p) for p in sorted(root.iterdir())]


@pytest.mark.parametrize("stat", [False, True])
def test_runs_are_listed_the_same_with_the_c_listing_on_or_off(tmp_path: Path, stat: bool) -> None:
    hostile = _hostile_runs(tmp_path / "fleet")
    samples = [str(p) for p in sorted((SAMPLE_RUNS / "fleet").iterdir())]
    for roots, source in (
        (hostile, open_source(tmp_path / "fleet")),
        (samples, open_source(SAMPLE_RUNS / "fleet")),
    ):
        with listing(True):
            on = _run_listing.list_runs(source, roots, stat=stat, only_runs=False)
        with listing(False):
            off = _run_listing.list_runs(source, roots, stat=stat, only_runs=False)
        assert on == off
        assert [list(x.ticks) for x in on] == [list(x.ticks) for x in off]
        assert [x.skipped for x in on] == [x.skipped for x in off]
    with listing(True):
        runs = {x.slug: x for x in _run_listing.list_runs(open_source(tmp_path / "fleet"), hostile)}
    assert sorted(runs) == ["odd", "plain"]  # the empty folder and the one without summaries
    ticks = [Path(p).name for p in runs["plain"].ticks]
    assert ticks == ["tick_1.json", "tick_2.json", "tick_3.json", "tick_10.json", "tick_20.json"]
    skipped = sorted(Path(p).name for p, _ in runs["odd"].skipped)
    assert skipped == ["tick_5.json", "tick_6.json", "tick_99999999999999999999.json"]
    assert "tick_7.json" in [Path(p).name for p in runs["odd"].ticks]  # a link inside: read
