"""``toolkit.sidecars.json_stringify``: JSON text exactly as JavaScript's
``JSON.stringify(value, null, 2)`` writes it, checked against node itself (skipped
without node) and against ECMA-262's Number::toString rules written out by hand."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from toolkit.io.js_json import js_json, js_number

#: Number::toString by hand: whole numbers without ".0", plain from 1e-6 to below 1e21.
BY_HAND = [
    (1.0, "1"), (3.0, "3"), (0.0, "0"), (-0.0, "0"), (0.8, "0.8"), (-2.5, "-2.5"),
    (100.0, "100"), (1e-7, "1e-7"), (1.5e-5, "0.000015"), (1e-6, "0.000001"),
    (1e16, "10000000000000000"), (1e20, "100000000000000000000"), (1e21, "1e+21"),
    (1.2345e21, "1.2345e+21"), (6.999999999999999, "6.999999999999999"),
    (0.1 + 0.2, "0.30000000000000004"), (float("nan"), "null"), (float("inf"), "null"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "text"), BY_HAND)
def test_numbers_are_written_as_javascript_writes_them(value: float, text: str) -> None:
    assert js_number(value, non_finite="null") == text


def test_layout_matches_json_stringify_with_two_spaces() -> None:
    doc = {"a": [1.0, {"b": None, "c": True}], "d": {}, "e": [], "f": 'é\n"q"'}
    assert js_json(doc, non_finite="null") == (
        '{\n  "a": [\n    1,\n    {\n      "b": null,\n      "c": true\n    }\n  ],\n'
        '  "d": {},\n  "e": [],\n  "f": "é\\n\\"q\\""\n}'
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_stringifies_the_same_document_to_the_same_bytes() -> None:
    values = [v for v, _ in BY_HAND if v == v and abs(v) != float("inf")]
    doc = {"values": values, "nested": {"x": 0.5, "s": "tab\there \u0001 ünï"}, "n": 7}
    done = subprocess.run(
        ["node", "-e", "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]), null, 2))",
         json.dumps(doc)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert js_json(doc, non_finite="null") == done.stdout


def test_array_index_keys_come_first_ascending_as_javascript_orders_them() -> None:
    """ECMA-262 OrdinaryOwnPropertyKeys: keys that are array indices (the canonical
    decimal of an integer 0 .. 2**32 - 2) first, ascending; then the others in insertion
    order ("4294967295", "01" and "-1" are not array indices)."""
    doc = {"b": 1, "10": 2, "4294967295": 3, "2": 4, "01": 5, "-1": 6, "4294967294": 7}
    assert js_json(doc) == (
        '{\n  "2": 4,\n  "10": 2,\n  "4294967294": 7,\n  "b": 1,\n  "4294967295": 3,\n'
        '  "01": 5,\n  "-1": 6\n}'
    )


def test_a_lone_surrogate_is_escaped_as_json_stringify_escapes_it() -> None:
    """Well-formed JSON.stringify (ES2019) writes a lone surrogate as a lowercase \\u
    escape; kept raw it cannot be encoded as UTF-8 at all."""
    text = js_json({"name": "Ann\ud83d", "pair": "\ud83d\ude00"})
    assert text == '{\n  "name": "Ann\\ud83d",\n  "pair": "\U0001f600"\n}'
    text.encode("utf-8")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_orders_index_keys_and_escapes_surrogates_the_same() -> None:
    doc = {"b": 1, "10": 2, "4294967295": 3, "2": 4, "s": "x\ud800y\u2028\x7f"}
    done = subprocess.run(
        ["node", "-e", "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]), null, 2))",
         json.dumps(doc)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert js_json(doc) == done.stdout
