"""The optional C reader of tick files into one buffer (issue 38, ``toolkit/io/_readpack.c``)
and the C screen over that buffer (``_tickscan.scan_packed``).

The reference is :func:`toolkit.io.edge.read_many_fast`, the pure-Python loop the load
used before: :func:`~toolkit.io.edge.read_packed` must read the same prefix of the paths
under a byte budget and give every file the same bytes, or the same one-line problem,
with the C reader and without it (``edge.PACK_ACCEL``, what ``TOOLKIT_ACCEL=0`` sets).
The files are hostile: missing, a folder, a FIFO with no writer, empty, 64 KiB exactly
and one byte more, over the size limit, symlinks (inside, dangling, a loop), a name that
is not UTF-8, given in every order Hypothesis draws with every budget cut point. The
screen over the buffer must give what the screen over a list of bytes gives.
"""

from __future__ import annotations

import array
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_accel import SCAN, needs_accel

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load import _ticks
from toolkit.load._tick_screen import arrow_frame

needs_reader = pytest.mark.skipif(
    edge._c_read_packed is None, reason="the C reader is not built here"
)


@contextlib.contextmanager
def reader(on: bool) -> Iterator[None]:
    """The C reader (and the C listing: one switch) on or off for the block."""
    was = edge.PACK_ACCEL
    edge.PACK_ACCEL = on
    try:
        yield
    finally:
        edge.PACK_ACCEL = was


def _hostile(folder: Path) -> list[str]:
    """One path of each kind the reader must treat as the pure loop does."""
    folder.mkdir(exist_ok=True)
    made: list[str] = []

    def file(name: str, size: int) -> None:
        path = folder / name
        path.write_bytes((b'{"tick": 1}' * (size // 11 + 1))[:size])
        made.append(str(path))

    file("empty.json", 0)
    file("small.json", 300)
    file("just_under.json", 65_535)
    file("exactly_64k.json", 65_536)
    file("just_over.json", 65_537)
    file("large.json", 3 * 2**20 + 5)
    made.append(str(folder / "missing.json"))
    (folder / "a_folder").mkdir(exist_ok=True)
    made.append(str(folder / "a_folder"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "fifo.json")
        made.append(str(folder / "fifo.json"))
    (folder / "link.json").symlink_to(folder / "small.json")
    made.append(str(folder / "link.json"))
    (folder / "dangling.json").symlink_to(folder / "nowhere.json")
    made.append(str(folder / "dangling.json"))
    (folder / "loop.json").symlink_to(folder / "loop.json")
    made.append(str(folder / "loop.json"))
    if sys.platform == "linux":  # a name of bytes that are not UTF-8 (surrogate-escaped)
        odd = os.fsdecode(os.fsencode(str(folder)) + b"/tick_\xff.json")
        Path(odd).write_bytes(b'{"odd": true}')
        made.append(odd)
    return made


def _same(got: list[bytes | InputError], want: list[bytes | InputError]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, InputError):
            assert isinstance(g, InputError) and str(g) == str(w) and g.path == w.path
        else:
            assert g == w


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _hostile(tmp_path_factory.mktemp("hostile"))


@needs_reader
@pytest.mark.parametrize("limit", [2**30, 65_536, 65_535, 300, 10])
@pytest.mark.parametrize("on", [True, False])
def test_the_packed_read_gives_each_file_what_the_pure_loop_gives(
    hostile: list[str], limit: int, on: bool
) -> None:
    want = edge.read_many_fast(hostile, limit)
    # the reference itself, by hand: the sizes and problems expected of each path
    by_name = dict(zip((Path(p).name for p in hostile), want, strict=True))
    assert by_name["empty.json"] == b"" and by_name["fifo.json"] == b""
    assert isinstance(by_name["missing.json"], InputError)
    assert "Is a directory" in str(by_name["a_folder"])
    assert "symlink loop" in str(by_name["loop.json"])
    assert "dangling symlink" in str(by_name["dangling.json"])
    for name, size in (("exactly_64k.json", 65_536), ("just_over.json", 65_537)):
        got = by_name[name]
        assert (len(got) == size) if size <= limit else "over the limit" in str(got)
    with reader(on):
        packed = edge.read_packed(hostile, limit)
    _same(packed.blobs(), want)
    assert set(packed.problems) == {i for i, w in enumerate(want) if isinstance(w, InputError)}
    assert all(packed[i] == b"" for i in packed.problems)


@needs_reader
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_order_and_budget_reads_the_same_prefix_and_bytes(
    hostile: list[str], data: st.DataObject
) -> None:
    paths = data.draw(st.lists(st.sampled_from(hostile), max_size=30))
    limit = data.draw(st.sampled_from([2**30, 65_536, 1_000]))
    total = sum(len(b) for b in edge.read_many_fast(paths, limit) if isinstance(b, bytes))
    budget = data.draw(st.none() | st.integers(0, total + 2))
    want = edge.read_many_fast(paths, limit, budget)
    for on in (True, False):
        with reader(on):
            _same(edge.read_packed(paths, limit, budget).blobs(), want)


@needs_reader
def test_budget_cut_points_stop_after_the_file_that_reaches_it(tmp_path: Path) -> None:
    paths = []
    for i, size in enumerate((100, 300, 50, 1_000)):
        (tmp_path / f"t{i}").write_bytes(b"a" * size)
        paths.append(str(tmp_path / f"t{i}"))
    missing = str(tmp_path / "missing")
    cases = {400: [100, 300], 401: [100, 300, 50], 1: [100], 0: [100], None: [100, 300, 50, 1000]}
    for on in (True, False):
        with reader(on):
            for budget, sizes in cases.items():
                assert [len(b) for b in edge.read_packed(paths, 2**20, budget)] == sizes
            got = edge.read_packed([missing, *paths], 2**20, 350)
            assert len(got) == 3 and list(got.problems) == [0]  # a problem counts no bytes
            got = edge.read_packed([missing, *paths], 2**20, 0)
            assert len(got) == 1 and list(got.problems) == [0]


@needs_reader
def test_a_name_with_a_nul_is_refused_as_the_pure_loop_refuses_it(tmp_path: Path) -> None:
    paths = [str(tmp_path / "a\0b")]
    with pytest.raises(ValueError):
        edge.read_many_fast(paths, 2**20)
    with reader(True), pytest.raises(ValueError):
        edge.read_packed(paths, 2**20)


def test_packing_and_joining_keep_each_file_and_problem() -> None:
    err = InputError("x.json", "cannot read file (No such file or directory)")
    one = edge.pack([b"ab", err, b"", b"cde"])
    assert list(one.ends) == [2, 2, 2, 5] and one.data == b"abcde"
    assert one.blobs() == [b"ab", err, b"", b"cde"] and one[1] == b"" and one[-1] == b"cde"
    both = edge.join_packed([one, edge.pack([b"f", err])])
    assert both.data == b"abcdef" and list(both.ends) == [2, 2, 2, 5, 6, 6]
    assert both.problems == {1: err, 5: err} and both[4] == b"f" and both[1:4] == [b"", b"", b"cde"]


def _sample_blobs() -> list[bytes]:
    return [p.read_bytes() for p in sorted(SAMPLE_RUNS.glob("**/tick_summaries/ticks/*.json"))]


def _scans_alike(blobs: list[bytes]) -> None:
    assert SCAN is not None and _ticks._accel_scan_packed is not None
    packed = edge.pack(blobs)
    k1, s1, a1, c1, cl1 = SCAN(blobs)
    k2, s2, a2, c2, cl2 = _ticks._accel_scan_packed(packed.data, packed.ends)
    assert k1 == k2 and c1 == c2 and (cl1 is None) == (cl2 is None)
    if k1:
        assert arrow_frame(s1, a1).equals(arrow_frame(s2, a2))


@needs_accel
def test_the_screen_over_one_buffer_is_the_screen_over_a_list() -> None:
    blobs = _sample_blobs()
    assert len(blobs) > 20
    _scans_alike(blobs)
    _scans_alike([b"", b"{", *blobs[:5], b"not json", blobs[0][:-3]])
    _scans_alike([])


@needs_accel
@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=8), st.data())
def test_the_screen_over_one_buffer_of_mutated_files_is_the_screen_over_a_list(
    junk: list[bytes], data: st.DataObject
) -> None:
    blobs = _sample_blobs()[:6]
    mixed = data.draw(st.permutations([*blobs, *junk]))
    _scans_alike(mixed)


@needs_accel
def test_the_screen_refuses_offsets_that_leave_the_buffer() -> None:
    assert _ticks._accel_scan_packed is not None
    for ends in ([5, 3], [-1], [11], [2, 20]):
        with pytest.raises(ValueError):
            _ticks._accel_scan_packed(b"0123456789", array.array("q", ends))
    with pytest.raises(ValueError):
        _ticks._accel_scan_packed(b"0123456789", b"\0" * 5)  # not whole int64s
