"""``toolkit.io.yaml_plain.plain_yaml`` reads its small subset of YAML exactly as the full
parser does (PyYAML through :func:`toolkit.io.edge.parse_yaml_text`), and hands back
``OUTSIDE`` for anything else: checked on generated documents against PyYAML itself."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import tick_v1, write_run
from hypothesis import event, given, settings
from hypothesis import strategies as st

from toolkit.errors import DuplicateKeyWarning, InputError
from toolkit.io.edge import parse_yaml_text
from toolkit.io.yaml_plain import OUTSIDE, plain_yaml
from toolkit.load.universe import load_universe

ROOT = Path(__file__).resolve().parents[2]


def _typed(value: Any) -> Any:
    """``value`` with each scalar's type beside it (``True`` is not ``1``)."""
    if isinstance(value, dict):
        return {(type(k).__name__, k): _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _agrees_with_pyyaml(text: str) -> bool:
    """Whether ``text`` is inside the subset; when it is, asserts PyYAML reads the same."""
    got = plain_yaml(text)
    if got is OUTSIDE:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a repeated key's warning would be lost
        want = parse_yaml_text(text, "generated.yaml")
    assert _typed(got) == _typed(want)
    assert _typed(got) == _typed(yaml.load(text, Loader=yaml.SafeLoader))  # pure Python too
    return True


# Pieces close to the subset's edges: YAML 1.1 booleans and nulls in several cases,
# numbers in other bases or with a leading zero, punctuation YAML gives a meaning to.
_TRICKY = [
    "yes", "No", "ON", "off", "True", "false", "null", "Null", "NULL", "~", "y", "n", "Y",
    "0", "00", "007", "1_000", "0x1F", "0b1", "1:30", "1.5", ".inf", "-1", "+1", "1e3",
    "2026-11-28", "a b", "a  b", "a -", "a - b", "-a", "- a", "a:b", "a: b", "a #b", "a#b",
    "a,b", "[a]", "{a}", "'a'", '"a"', "&a", "*a", "!a", "|", ">", "%a", "@a", "`a", "a\tb",
    "Île", "x\u2028y", "ab ", " ab", "_a", "A_b-1", "e10", "nan", "inf", "o", "1" * 19,
]  # fmt: skip
_PLAIN_KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_KEYS = st.one_of(
    _PLAIN_KEYS,
    _PLAIN_KEYS,
    st.sampled_from(["name", "slug", "seed", "agents", "_x", "a1", "on", "Yes", "y", "null"]),
    st.sampled_from(_TRICKY),
)
_PLAIN_SCALARS = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_().+/ -]{0,12}", fullmatch=True),
    st.integers(min_value=0, max_value=10**18).map(str),
)
_SCALARS = st.one_of(
    _PLAIN_SCALARS,
    _PLAIN_SCALARS,
    _PLAIN_SCALARS,
    st.sampled_from(_TRICKY),
    st.integers(min_value=-5, max_value=10**19).map(str),
    st.text(st.characters(min_codepoint=0, max_codepoint=0x2030), max_size=6),
)
_RARELY = st.integers(min_value=0, max_value=9).map(lambda n: n == 0)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    """Documents of up to five entries; half of them of plain pieces only (most of
    those inside the subset), the others with pieces near and past its edges."""
    lines: list[str] = []
    clean = draw(st.booleans())
    forms = ["scalar", "scalar", "flow", "block", "block"] + ([] if clean else ["blank", "odd"])
    keys, scalars = (_PLAIN_KEYS, _PLAIN_SCALARS) if clean else (_KEYS, _SCALARS)
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        key = draw(keys)
        form = draw(st.sampled_from(forms))
        if form == "scalar":
            lines.append(f"{key}: {draw(scalars)}")
        elif form == "flow":
            items = draw(st.lists(scalars, max_size=3))
            joiner = ", " if clean or not draw(_RARELY) else draw(st.sampled_from([",", " , "]))
            lines.append(f"{key}: [{joiner.join(items)}]")
        elif form == "block":
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", " ", "  ", "    "]))
            for item in draw(st.lists(scalars, min_size=1, max_size=3)):
                odd = indent if clean or not draw(_RARELY) else draw(st.sampled_from(["", "\t"]))
                lines.append(f"{odd}- {item}")
        elif form == "blank":
            lines.append(draw(st.sampled_from(["", "", "", " ", "#", "# note", "---", "..."])))
        else:
            lines.append(draw(st.sampled_from([f"{key}:", f"{key} : 1", f" {key}: 1"])))
    end = draw(st.sampled_from(["\n", "\n\n"] + ([] if clean else ["", "\r\n"])))
    return end.join(lines) + (end if draw(st.booleans()) else "")


@settings(max_examples=1500, deadline=None)
@given(_documents())
def test_a_generated_document_is_read_as_pyyaml_reads_it_or_left_to_it(text: str) -> None:
    event("inside" if _agrees_with_pyyaml(text) else "outside")


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_read_as_pyyaml_reads_it_or_left_to_it(text: str) -> None:
    event("inside" if _agrees_with_pyyaml(text) else "outside")


def test_every_run_config_of_the_samples_is_inside_the_subset() -> None:
    files = sorted(ROOT.glob("sample_runs/**/universe.yaml"))
    files += sorted(ROOT.glob("sample_runs/**/conservation.yaml"))
    assert len(files) >= 10
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert _agrees_with_pyyaml(text), path


def test_a_run_config_is_read_without_pyyaml() -> None:
    text = "name: Harbor Town\nslug: harbor-town\nseed: 7\nagents: [mara, tobin, elsie]\n"
    assert plain_yaml(text) == {
        "name": "Harbor Town",
        "slug": "harbor-town",
        "seed": 7,
        "agents": ["mara", "tobin", "elsie"],
    }
    assert plain_yaml("conserved_properties:\n  - coins\n  - stock\n") == {
        "conserved_properties": ["coins", "stock"]
    }


@pytest.mark.parametrize(
    "text",
    [
        "name: A # a comment\n",  # comments: the full parser
        "name: A\nname: B\n",  # a repeated key: the full parser warns
        "flag: yes\n",  # a YAML 1.1 boolean
        "on: 1\n",  # a key that is a boolean
        "seed: 007\n",  # octal in YAML 1.1
        "name:\tA\n",
        "name: A\r\n",
        "name:\n",  # null
        "list:\n  - a\n - b\n",  # indents differ
        "name: 'A'\n",
        "name: Île\n",
        "name: Run: 1\n",
        "",
        "\n",
    ],
)
def test_text_outside_the_subset_is_left_to_the_full_parser(text: str) -> None:
    assert plain_yaml(text) is OUTSIDE


def test_nesting_past_the_depth_limit_is_left_to_the_full_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_DEPTH", "1")
    assert plain_yaml("seed: 1\n") == {"seed": 1}
    assert plain_yaml("agents: [a]\n") is OUTSIDE  # a list in a mapping: depth 2
    with pytest.raises(InputError, match="nested deeper than 1"):
        parse_yaml_text("agents:\n- a\n- b\n", "u.yaml")


def test_a_run_config_outside_the_subset_still_warns_of_its_repeated_key(
    tmp_path: Path,
) -> None:
    run = write_run(tmp_path / "run", [tick_v1(1)])
    (run / "universe.yaml").write_text("name: A  # first\nname: River Vale\n", encoding="utf-8")
    with pytest.warns(DuplicateKeyWarning, match="name"):
        universe = load_universe(run)
    assert universe.names["run"] == "River Vale"
