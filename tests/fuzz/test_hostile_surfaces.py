"""Hostile values on the surfaces added since the loaders were fuzzed: command-line
arguments and ``report --param`` values, storage options, judge replies and usage, report
inputs and names, and run folders named with URI characters.

Each family holds the same contract as the loaders': a result, or one ``InputError`` line;
never another exception, never a hang, never a write outside the input folder, and (for
what a person sees) never a live element made from their input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.judge import Estimate, parse_batch_reply
from toolkit.judge.live import believable_usage

from .conftest import sandbox

pytestmark = pytest.mark.timeout(600)

#: Text an attacker or a careless user might type: markup, URI and YAML syntax, controls.
_NASTY = st.sampled_from(
    ["`", "``", "<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "[a](javascript:x)",
     "&", "&amp;", "?", "#", "%41", "%", " ", "\n\n", "\r", "\t", "*", "_",
     "!!python/name:os.system",
     "&a [*a]", "*a", "{", "[", "]", "}", ":", "- ", "2026-02-30", "9" * 30, "-1", "NaN", ".inf",
     "\u202e", "\ud7ff", "é", "😀", "\x00", "..", "/", "\\"]
)  # fmt: skip
NASTY_TEXT = st.lists(st.one_of(_NASTY, st.text(max_size=8)), max_size=8).map("".join)
_DEEP = st.integers(1, 400).map(lambda n: "[" * n + "]" * n)
_BOMB = st.integers(2, 9).map(
    lambda n: "{" + ", ".join(
        [f"a0: &a0 [{', '.join(['x'] * 10)}]"]
        + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, n)]
    ) + "}"
)  # fmt: skip
HOSTILE_VALUE = st.one_of(NASTY_TEXT, _DEEP, _BOMB, st.just("&a [*a]"), st.just("&a {b: *a}"))


def one_line(err: InputError) -> None:
    assert "\n" not in str(err) and str(err), repr(err)


# ---------------------------------------------------------------------------
# report --param values and arguments
# ---------------------------------------------------------------------------


@given(key=st.one_of(st.just("window"), NASTY_TEXT), value=HOSTILE_VALUE)
def test_param_values(key: str, value: str) -> None:
    from toolkit.reports import parse_param, prepare

    try:
        name, parsed = parse_param(f"{key}={value}")
    except InputError as err:
        one_line(err)
        return
    assert name == key.strip()
    try:
        prepare("simulation", ["run"], {name: parsed})
    except InputError as err:  # not a parameter of the notebook
        one_line(err)


# ---------------------------------------------------------------------------
# --storage-option KEY=VALUE, and the filesystem they build (nothing contacted)
# ---------------------------------------------------------------------------

_OPTION_KEYS = st.sampled_from(
    ["endpoint_url", "max_concurrency", "anon", "key", "config_kwargs.read_timeout",
     "config_kwargs.connect_timeout", "client_kwargs.region_name", "retries", "use_ssl",
     "default_block_size", "config_kwargs.retries"]
)  # fmt: skip
_OPTION_VALUES = st.one_of(
    HOSTILE_VALUE,
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["true", "false", "null", "0", "-1", "1e309", "{}", "[]", '{"a": 1}']),
)


@given(st.lists(st.tuples(st.one_of(_OPTION_KEYS, NASTY_TEXT), _OPTION_VALUES), max_size=4))
def test_storage_options(items: list[tuple[str, str]]) -> None:
    pytest.importorskip("s3fs")
    from toolkit.io.source import open_remote, parse_storage_options

    try:
        options = parse_storage_options([f"{k}={v}" for k, v in items])
        open_remote("s3://bucket/run", options).fs  # noqa: B018  (building it is the test)
    except InputError as err:
        one_line(err)


# ---------------------------------------------------------------------------
# Judge replies and usage
# ---------------------------------------------------------------------------

_REPLY = st.one_of(
    NASTY_TEXT,
    _DEEP,
    st.lists(st.tuples(st.integers(-3, 12), st.one_of(st.integers(-(10**30), 10**30), NASTY_TEXT)),
             max_size=6).map(lambda blocks: "\n".join(f"[{k}] {v} why" for k, v in blocks)),
)  # fmt: skip


@given(_REPLY, st.integers(1, 6), st.sampled_from(["score", "count"]))
def test_judge_replies(text: str, count: int, kind: Any) -> None:
    results = parse_batch_reply(text, count, kind)
    assert len(results) == count
    for r in results:
        if r.value is None:
            assert r.error
        else:
            assert isinstance(r.value, int) and r.value >= 0
            assert kind == "count" or r.value <= 9


_COUNT = st.one_of(
    st.integers(-(10**30), 10**30), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.text(max_size=5), st.just([]), st.just({}),
)  # fmt: skip


@given(_COUNT, _COUNT, st.integers(0, 10**6), st.integers(0, 10**6))
def test_judge_usage_counts(i: object, o: object, bound_in: int, bound_out: int) -> None:
    bound = Estimate(bound_in, bound_out)
    if believable_usage((i, o), bound):
        assert isinstance(i, int) and isinstance(o, int)
        assert 0 <= i <= bound_in and 0 <= o <= bound_out


@pytest.fixture(scope="module")
def lying_server() -> Iterator[Any]:
    judge_tests = str(Path(__file__).resolve().parents[1] / "judge")
    if judge_tests not in sys.path:  # the project's fake judge server lives there
        sys.path.append(judge_tests)
    from fake_llm import FakeLLM, Seen

    class Lying(FakeLLM):
        lie: tuple[Any, Any] = (0, 0)

        def _answer(self, seen: Seen, system: str, texts: list[str]) -> tuple[str, Any, Any]:
            reply, _, _ = super()._answer(seen, system, texts)
            return reply, self.lie[0], self.lie[1]

    server = Lying().start()
    try:
        yield server
    finally:
        server.stop()


_WIRE_COUNT = st.one_of(st.integers(-(10**30), 10**30), st.floats(allow_nan=False),
                        st.text(max_size=5), st.booleans())  # fmt: skip


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(used_in=_WIRE_COUNT, used_out=_WIRE_COUNT)
def test_judge_usage_on_the_wire(lying_server: Any, used_in: Any, used_out: Any) -> None:
    pytest.importorskip("anthropic")
    from toolkit.judge import JudgeRequest
    from toolkit.judge.live import AnthropicJudge

    lying_server.lie = (used_in, used_out)
    judge = AnthropicJudge("m", api_key="k", base_url=lying_server.root, timeout=5.0,
                           max_retries=0, max_tokens=64)  # fmt: skip
    request = JudgeRequest("p", "adherence", "rosa", "claim", "trajectory")
    bound = judge.estimate([request])
    (result,) = judge.judge([request])
    assert 0 <= result.input_tokens <= max(bound.input_tokens, 0)
    assert 0 <= result.output_tokens <= bound.output_tokens


# ---------------------------------------------------------------------------
# Report inputs and names: the header of a user's notebook
# ---------------------------------------------------------------------------

_SAFE_NAME = NASTY_TEXT.map(lambda t: t.replace("/", "_").replace("\x00", "_")[:60] or "n")


@settings(max_examples=min(settings().max_examples, 40))
@given(name=_SAFE_NAME, inputs=st.lists(NASTY_TEXT, max_size=3))
def test_report_header_inputs_and_names(name: str, inputs: list[str]) -> None:
    import nbformat
    from html_hazards import live_hazards

    from toolkit.reports import export_html
    from toolkit.reports._render import Prepared, _header_cell

    prepared = Prepared(Path(f"/nb/{name}.ipynb"), {}, None, tuple(inputs))
    nb = nbformat.v4.new_notebook()
    nb.cells = [_header_cell(prepared)]
    page = export_html(nb, title=f"{name}: {', '.join(inputs)}")
    assert live_hazards(page) == []


# ---------------------------------------------------------------------------
# Run folders named with URI characters: each reads its own universe.db
# ---------------------------------------------------------------------------

_FOLDER = st.text(
    st.sampled_from([*list("ab?#%&=;:@ +41'\"[]*"), "é", "\t"]), min_size=1, max_size=12
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_FOLDER, min_size=1, max_size=3, unique=True))
def test_run_folders_named_like_uris(
    tmp_path_factory: pytest.TempPathFactory, names: list[str]
) -> None:
    from conftest import tick_v1, write_run

    from toolkit.load.universe import load_universe

    with sandbox(tmp_path_factory.getbasetemp()) as box:
        runs = {n: write_run(box.inputs / n, [tick_v1(1)], snapshots=[(1, i, i)])
                for i, n in enumerate(names, start=1)}  # fmt: skip
        before = sorted(os.listdir(box.inputs))
        for i, name in enumerate(names, start=1):
            universe = load_universe(runs[name])
            assert universe.checkpoints["node_count"].to_list() == [i], name
        assert sorted(os.listdir(box.inputs)) == before  # nothing created beside them
