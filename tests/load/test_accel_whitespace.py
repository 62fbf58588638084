"""The C screen's whitespace skip (``toolkit/load/_tickscan.c``, ``ws``): spaces after a
line end, a tab or a carriage return are skipped eight at a time, so runs of every length
and mix must read as JSON reads them. The sample tick files are written again with drawn
whitespace between every two tokens (JSON allows space, tab, line feed and carriage
return there, RFC 8259 section 2): the C screen must accept every such file and give the
pure path's row for it, and a file with any other byte there (a form feed, a
no-break space) must be left to the pure path, which refuses it.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from test_accel import SCAN, _raw_alike, _sample_blobs, needs_accel

from toolkit.load import _ticks

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[,:\[\]{}]|[^,:\[\]{}"]+')
#: Runs of JSON whitespace: short ones, runs past eight spaces, and mixes.
_RUNS = st.sampled_from([b"", b" ", b"\n", b"\t", b"\r\n", b" " * 7, b" " * 8, b" " * 9]) | (
    st.text(alphabet=" \t\r\n", max_size=40).map(str.encode)
)


def _compact(blob: bytes) -> bytes:
    return json.dumps(json.loads(blob), separators=(",", ":"), ensure_ascii=False).encode()


def _respaced(blob: bytes, draw: st.DrawFn, runs: st.SearchStrategy[bytes]) -> bytes:
    """``blob`` (compact JSON) with a drawn run between every two tokens and around all."""
    parts = [draw(runs)]
    for token in _TOKEN.findall(blob):
        parts += [token, draw(runs)]
    return b"".join(parts)


@needs_accel
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_json_whitespace_between_tokens_is_read_as_json_reads_it(
    data: st.DataObject,
) -> None:
    samples = [_compact(b) for b in _sample_blobs()]
    picked = data.draw(st.lists(st.sampled_from(samples), min_size=1, max_size=4))
    blobs = [_respaced(b, data.draw, _RUNS) for b in picked]
    assert all(json.loads(b) == json.loads(p) for b, p in zip(blobs, picked, strict=True))
    kept = _raw_alike(blobs)
    assert kept == list(range(len(blobs)))  # whitespace alone never sends a file away


@needs_accel
def test_long_indentation_and_a_file_ending_in_spaces_are_accepted() -> None:
    sample = _compact(_sample_blobs()[0])
    by_hand = [
        sample.replace(b",", b",\n" + b" " * 17).replace(b"{", b"{\r\n\t" + b" " * 8),
        sample + b" " * 8 + b"\n" + b" " * 15,  # whitespace to the very end
        b" " * 16 + b"\t" + sample,
    ]
    assert _raw_alike(by_hand) == [0, 1, 2]


@needs_accel
def test_a_byte_json_does_not_count_as_whitespace_is_left_to_the_pure_path() -> None:
    assert SCAN is not None
    sample = _compact(_sample_blobs()[0])
    for odd in (b"\x0c", b"\xc2\xa0", b"\x0b", b"\x00"):
        blob = sample.replace(b",", b", " + b" " * 8 + odd, 1)
        assert SCAN([blob])[0] == []
        _, taken, left = _ticks._pure_fast([blob])
        assert taken == [] and left == [0]
