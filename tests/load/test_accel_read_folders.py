"""The C reader's files opened relative to their folder (``toolkit/io/_readpack.c``,
``open_in_folder``): where the system has ``O_PATH`` each folder is opened once and its
files with ``openat`` on their names, which must open exactly the file ``open`` of the
whole path opens. The reference is the pure-Python loop
(:func:`toolkit.io.edge.read_many_fast`); the bytes expected are written out by hand.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_accel_read import _same, needs_reader, reader

from toolkit.errors import InputError
from toolkit.io import edge


def _tree(root: Path) -> dict[str, bytes]:
    """Three folders (one nested), a folder reached through a symlink, and their files'
    bytes, each file's content naming it."""
    made: dict[str, bytes] = {}
    for folder in ("a", "b", "a/deeper", "c d#%"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in ("tick_1.json", "tick_2.json"):
            made[f"{folder}/{name}"] = f'{{"at": "{folder}/{name}"}}'.encode()
            (root / folder / name).write_bytes(made[f"{folder}/{name}"])
    (root / "link").symlink_to(root / "b", target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")
    (root / "plain.json").write_bytes(b'{"at": "plain"}')
    return made


@needs_reader
@pytest.mark.parametrize("on", [True, False])
def test_files_of_folders_interleaved_are_read_from_their_own_folder(
    tmp_path: Path, on: bool
) -> None:
    made = _tree(tmp_path)
    order = [
        "a/tick_1.json", "b/tick_1.json", "a/tick_2.json", "a/tick_1.json",
        "a/deeper/tick_2.json", "a/tick_2.json", "c d#%/tick_1.json", "b/tick_2.json",
        "a/deeper/tick_1.json", "c d#%/tick_2.json",
    ]  # fmt: skip
    paths = [str(tmp_path / p) for p in order]
    with reader(on):
        got = edge.read_packed(paths, 2**20)
    assert got.blobs() == [made[p] for p in order]  # each file's own bytes, by hand
    assert not got.problems


@needs_reader
@pytest.mark.parametrize("on", [True, False])
def test_every_spelling_of_a_path_opens_what_open_of_the_whole_path_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on: bool
) -> None:
    made = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    a1, b2 = made["a/tick_1.json"], made["b/tick_2.json"]
    spelled = {  # path as given -> the bytes open() of it reads (None: a problem)
        "a/tick_1.json": a1,  # relative to the working folder
        "plain.json": b'{"at": "plain"}',  # no folder at all
        "a//tick_1.json": a1,
        "a/./tick_1.json": a1,
        "./a/tick_1.json": a1,
        "a/deeper/../tick_1.json": a1,
        "b/../a/tick_1.json": a1,
        "link/tick_2.json": b2,  # a folder reached through a symlink
        "link/../a/tick_1.json": a1,  # ".." after the link: up from b's real place
        f"{tmp_path}/a/tick_1.json": a1,
        f"{tmp_path}//b/tick_2.json": b2,
        "a/missing.json": None,
        "nowhere/tick_1.json": None,  # a folder that does not exist
        "plain.json/tick_1.json": None,  # a "folder" that is a file
        "loop/tick_1.json": None,  # a folder that is a symlink loop
        "a/": None,  # a folder itself
        "a/deeper": None,
    }
    paths = list(spelled)
    want = edge.read_many_fast(paths, 2**20)
    for path, w in zip(paths, want, strict=True):
        expected = spelled[path]
        assert (w == expected) if expected is not None else isinstance(w, InputError), path
    with reader(on):
        got = edge.read_packed(paths, 2**20)
    _same(got.blobs(), want)
    assert set(got.problems) == {i for i, p in enumerate(paths) if spelled[p] is None}


@needs_reader
def test_a_folder_replaced_between_two_reads_is_opened_again(tmp_path: Path) -> None:
    """The folder is opened once a call: a second call sees the folder as it is then."""
    made = _tree(tmp_path)
    paths = [str(tmp_path / "a" / "tick_1.json")]
    with reader(True):
        assert edge.read_packed(paths, 2**20).blobs() == [made["a/tick_1.json"]]
        os.rename(tmp_path / "a", tmp_path / "a-old")
        (tmp_path / "a").mkdir()
        (tmp_path / "a" / "tick_1.json").write_bytes(b"new")
        assert edge.read_packed(paths, 2**20).blobs() == [b"new"]
