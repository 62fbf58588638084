"""``toolkit.io.yamlkeys.parse_yaml`` reads what PyYAML's own safe loader reads (apart from
the keys kept verbatim, repeated keys and impossible dates, tested where they are used),
whatever shortcut it takes to build the values; its line index answers when asked."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from toolkit.io.yamlkeys import YamlProblem, parse_yaml

DOCUMENTS = [
    "a: 1\nb: text\nc: true\nd: null\ne: 1.5\n",
    # YAML 1.1 scalars: other bases, sexagesimal, yes/no/on/off, ~, infinities
    "hex: 0x1F\noct: 017\nbin: 0b101\nsexa: 1:30\nunder: 1_000\n"
    "y: yes\nn: No\non: on\nt: ~\ninf: .inf\nninf: -.Inf\n",
    # quoted and block strings stay text
    "q: '42'\nd: \"true\"\nlit: |\n  two\n  lines\nfold: >\n  one\n  line\n",
    # explicit tags
    "s: !!str 42\ni: !!int '7'\nf: !!float '2'\nb: !!bool 'true'\n",
    # dates and timestamps
    "day: 2026-04-13\nat: 2026-04-13T10:00:00Z\nlocal: 2026-04-13 10:00:00\n",
    # nesting, flow style, lists of mappings
    "agent: {session_id: s-1, model: m}\nverifiers:\n- type: unit\n  tests: [1, 2, 3]\n- 5\n",
    # anchors, aliases and a merge key
    "base: &b {x: 1, y: two}\nother:\n  <<: *b\n  y: three\nref: *b\nlist: &l [1, 2]\nagain: *l\n",
    "bytes: !!binary aGk=\n",
    # keys that are not strings
    "1: one\ntrue: yes\n~: nothing\n2.5: half\n",
    "- 1\n- [a, b]\n- {k: v}\n",
    "just text\n",
    "",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_values_are_what_pyyamls_safe_loader_reads(text: str) -> None:
    want = yaml.load(text, Loader=yaml.CSafeLoader)
    got = parse_yaml(text).data
    assert got == want
    assert repr(got) == repr(want)  # the same types too (True is not 1, "42" not 42)


def test_aliased_values_are_equal_wherever_they_are_used() -> None:
    got = parse_yaml("a: &x 2026-04-13\nb: *x\nc: &s text\nd: *s\n").data
    assert got == {"a": dt.date(2026, 4, 13), "b": dt.date(2026, 4, 13), "c": "text", "d": "text"}


def test_the_line_of_a_key_is_found_when_asked() -> None:
    parsed = parse_yaml("schema_version: 2\nreview:\n  phase_1_decision: accept\nverifiers:\n- 5\n")
    assert parsed.line_of(("review", "phase_1_decision")) == 3
    assert parsed.line_of(("verifiers", 0)) == 5
    assert parsed.line_of(("verifiers", 0, "missing")) == 5  # the deepest known prefix
    assert parsed.line_of(()) == 1


@pytest.mark.parametrize("tag", ["seq", "set", "omap", "pairs", "map"])
def test_a_scalar_tagged_as_a_collection_is_refused_as_pyyaml_refuses_it(tag: str) -> None:
    """Their constructors are generators: called on a scalar, the shortcut would have
    returned the generator itself as the value."""
    text = f"a: !!{tag} text\n"
    with pytest.raises((yaml.YAMLError, ValueError, TypeError)):
        yaml.load(text, Loader=yaml.CSafeLoader)
    with pytest.raises(YamlProblem):
        parse_yaml(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a: 1\nb: !!int ''\n", "!!int"),
        ("a: 1\nb: !!float ''\n", "!!float"),
        ("a: 1\nb: !!bool maybe\n", "!!bool"),
        ("a: 1\nb: [1, !!int '']\n", "!!int"),
    ],
)
def test_an_explicitly_tagged_scalar_that_is_not_its_type_is_a_problem_on_its_line(
    text: str, said: str
) -> None:
    """Found by fuzzing the labels reader: PyYAML's own constructors raised IndexError
    (``!!int ''``, ``!!float ''``) and KeyError (``!!bool maybe``), which escaped as a
    traceback. Now a YamlProblem naming the tag, the value and line 2."""
    with pytest.raises(YamlProblem) as caught:
        parse_yaml(text)
    assert caught.value.line == 2 and said in caught.value.reason


@pytest.mark.parametrize(
    "text", ["a: !!timestamp '1912-01-01 00:00:00-00:16:08'\n", "a: !!timestamp x\n"]
)
def test_an_explicit_timestamp_that_is_not_one_stays_text(text: str) -> None:
    """As an implicit one that is not a real date (2026-13-45) does; PyYAML raised
    AttributeError on a value its timestamp pattern does not match (a UTC offset with
    seconds, as ``yaml.safe_dump`` writes a 1912 Africa/Abidjan time)."""
    assert parse_yaml(text).data == {"a": text.split(" ", 2)[2].strip().strip("'")}
