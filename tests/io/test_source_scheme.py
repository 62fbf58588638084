"""Where a source is read from: the URL scheme of a path given as text
(:mod:`toolkit.io.source`), the one place that asks.

The scheme is read only from a text holding ``://`` (no pattern compiled for a plain
path, issue 38); held here to the URL pattern itself on generated texts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.io.source import _is_remote, _local_path, _scheme_of

URL = r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$"


@pytest.mark.parametrize(
    ("source", "scheme", "remote"),
    [
        ("s3://bucket/runs", "s3", True),
        ("GS://b/x", "gs", True),
        ("file:///tmp/runs", "file", False),
        ("sample_runs/universes/ashfall", None, False),
        ("/abs/path:with:colons", None, False),
        ("3s://not-a-scheme", None, False),
        ("s3:/one-slash", None, False),
    ],
)
def test_a_source_text_names_its_scheme(source: str, scheme: str | None, remote: bool) -> None:
    assert _scheme_of(source) == scheme
    assert _is_remote(source) is remote
    assert _scheme_of(Path(source)) is None  # a Path is a local path, whatever it holds


def test_a_file_url_is_read_as_its_local_path() -> None:
    assert _local_path("file:///tmp/runs") == Path("/tmp/runs")
    assert _local_path("file://") == Path("/")
    assert _local_path("runs/a") == Path("runs/a")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=["s", "3", "A", "+", ".", "-", ":", "/", "\n", " ", "é"], max_size=12))
def test_the_scheme_is_the_url_patterns_first_group(source: str) -> None:
    m = re.match(URL, source)
    assert _scheme_of(source) == (m.group(1).lower() if m else None)
