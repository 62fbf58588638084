"""The JSON nesting depth the reading edge measures before :func:`json.loads` runs.

``_max_depth`` skips strings with one regular expression and counts the brackets left.
Pinned here against two references that share no code with it: the depth of the value a
JSON text holds (for texts ``json.dumps`` writes), and a character-by-character scanner
(for any text at all, JSON or not: quotes left open, backslashes last, brackets unpaired).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.io.edge import _max_depth

#: JSON values: scalars (strings full of quotes, backslashes and brackets), lists, objects.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}\n\u00e9'),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet='k"\\[{', max_size=3), inner, max_size=4)
    ),
    max_leaves=30,
)


def _value_depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_value_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_value_depth(v) for v in value.values()), default=0)
    return 0


def _scanned_depth(text: str) -> int:
    """The reference scanner: a string runs from a quote to the next quote no backslash
    escapes; a string left open at the end of the text is not a string (its characters
    are read as they stand, from the character after its quote)."""
    depth = deepest = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j < len(text):  # closed: skipped whole
                i = j + 1
                continue
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
        i += 1
    return deepest


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_the_depth_of_json_text_is_the_depth_of_its_value(value: Any, indent: bool) -> None:
    text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
    assert _max_depth(text) == _value_depth(value)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='"\\[]{}ab\n'))
def test_any_text_is_measured_as_the_scanner_measures_it(text: str) -> None:
    assert _max_depth(text) == _scanned_depth(text)


def test_an_escaped_quote_keeps_its_string_open_and_its_brackets_unread() -> None:
    assert _max_depth('["a\\"[[[", "b"]') == 1
    assert _max_depth('[["\\\\"], [[0]]]') == 3  # an escaped backslash closes nothing


def test_a_text_with_no_more_brackets_than_the_limit_is_not_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # its depth cannot pass the limit, whatever its brackets are (in strings or not)
    from toolkit.io import edge

    scanned: list[str] = []
    real = edge._max_depth
    monkeypatch.setattr(edge, "_max_depth", lambda text: scanned.append(text) or real(text))
    limit = edge.limits().max_depth
    at_limit = "[" * limit + "]" * limit  # exactly as deep as allowed: read
    edge.check_json_text(at_limit, "f.json")
    edge.check_json_text('{"a": "[[[{"}', "f.json")
    assert scanned == []
    # one bracket more: scanned, and refused only when the brackets nest
    too_deep = "[" * (limit + 1) + "]" * (limit + 1)
    with pytest.raises(InputError, match=f"nested deeper than {limit} levels"):
        edge.check_json_text(too_deep, "f.json")
    in_strings = json.dumps(["[" * (limit + 5)])
    edge.check_json_text(in_strings, "f.json")
    assert scanned == [too_deep, in_strings]


@settings(max_examples=200, deadline=None)
@given(VALUES, st.integers(min_value=1, max_value=8))  # 0 is ignored: the default stands
def test_the_depth_check_refuses_exactly_the_texts_nested_deeper_than_the_limit(
    value: Any, limit: int
) -> None:
    from toolkit.io import edge

    text = json.dumps(value)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLKIT_MAX_DEPTH", str(limit))
        if _value_depth(value) > limit:
            with pytest.raises(InputError, match=f"nested deeper than {limit} levels"):
                edge.check_json_text(text, "f.json")
        else:
            edge.check_json_text(text, "f.json")
