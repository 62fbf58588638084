"""Same bytes, same score: the bulk and the per-file tick paths are one loader.

The bulk path parses many tick files in one Polars NDJSON read; the per-file path parses
one file with Python's ``json`` and the pydantic models. A file takes the second path
when the first cannot take it, or when any *other* file of its run is broken, so any
difference between them would make a run's score depend on an unrelated file. These
tests load the same bytes both ways (``_ticks.BULK_READ`` off forces the per-file path
for every file) and require identical frames, issues, warnings and scorecards.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import SAMPLE_RUNS, tick_v1, tick_v2, write_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from toolkit.cli import main
from toolkit.errors import DuplicateKeyWarning, InputError
from toolkit.io.yamlkeys import parse_yaml
from toolkit.load import _ticks
from toolkit.load._common import parse_json_lines, parse_json_text
from toolkit.load.universe import Universe, load_universe, load_universes
from toolkit.rubrics.simulation import score_universe
from toolkit.views.text import render_json


def _load_both(load: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """What ``load()`` gives with the bulk path and with the per-file path forced: a
    result, or the :class:`InputError` message when the load is refused."""

    def attempt() -> Any:
        try:
            return load()
        except InputError as err:
            return str(err)

    bulk = attempt()
    with monkeypatch.context() as m:
        m.setattr(_ticks, "BULK_READ", False)
        per_file = attempt()
    return bulk, per_file


def _assert_same(bulk: Universe | str, per_file: Universe | str) -> None:
    if isinstance(bulk, str) or isinstance(per_file, str):  # refused: alike, both ways
        assert bulk == per_file
        return
    assert_frame_equal(bulk.ticks, per_file.ticks)
    assert_frame_equal(bulk.issues, per_file.issues)
    assert bulk.warnings == per_file.warnings
    cards_bulk = [render_json(c) for c in score_universe(bulk)]
    cards_file = [render_json(c) for c in score_universe(per_file)]
    assert cards_bulk == cards_file


# ---------------------------------------------------------------------------
# The rule: the last value wins, with a warning naming file, key and line
# ---------------------------------------------------------------------------

REPEATED_REFUSAL = (
    '{"schema_version": 1, "tick_id": "3", "action_text": "Mara asks the well.",\n'
    ' "matched_mechanic_id": null, "refused": false, "refusal_reason": "no_viable_action",\n'
    ' "mutations": {"count": 0, "list": []},\n'
    ' "refused": true}\n'
)


@pytest.mark.parametrize("other_file_broken", [False, True])
def test_a_repeated_key_keeps_its_last_value_whichever_path_the_file_takes(
    tmp_path: Path, other_file_broken: bool
) -> None:
    run = write_run(tmp_path / "run", [tick_v1(1), tick_v1(2)])
    (run / "tick_summaries" / "ticks" / "tick_3.json").write_text(REPEATED_REFUSAL)
    if other_file_broken:  # the issue's case: this used to flip the refusal of tick 3
        (run / "tick_summaries" / "ticks" / "tick_2.json").write_text('{"tick_id": ')
    universe = load_universe(run)
    tick3 = universe.ticks.filter(pl.col("tick") == 3)
    assert tick3["status"].to_list() == ["refused"]
    assert [w for w in universe.warnings if "duplicate" in w] == [
        f"run: {run / 'tick_summaries' / 'ticks' / 'tick_3.json'}:4: duplicate key "
        "'refused': the last value is used",
    ]
    card = score_universe(universe)[0]
    assert any("duplicate key 'refused'" in w for w in card.warnings)


def test_a_nested_repeated_key_is_caught_by_the_bulk_screen(tmp_path: Path) -> None:
    text = json.dumps(tick_v1(1)).replace(
        '"verb": "walk"', '"verb": "walk", "verb": "swim"'
    )  # the first value would win in Polars' reader
    run = write_run(tmp_path / "run", [tick_v1(2)])
    (run / "tick_summaries" / "ticks" / "tick_1.json").write_text(text)
    universe = load_universe(run)
    assert universe.ticks.filter(pl.col("tick") == 1)["verb"].to_list() == ["swim"]
    dupes = [w for w in universe.warnings if "duplicate" in w]
    assert len(dupes) == 1 and "duplicate key 'verb'" in dupes[0]


def test_json_and_json_lines_readers_warn_with_file_key_and_line() -> None:
    with pytest.warns(DuplicateKeyWarning) as caught:
        assert parse_json_text("game.json", '{\n "a": 1,\n "a": 2\n}') == {"a": 2}
        rows = parse_json_lines("chat.jsonl", '{"x": 1}\n{"y": 1, "y": 3}\n')
    assert rows == [(1, {"x": 1}), (2, {"y": 3})]
    assert [str(w.message) for w in caught] == [
        "game.json:3: duplicate key 'a': the last value is used",
        "chat.jsonl:2: duplicate key 'y': the last value is used",
    ]


def test_yaml_keeps_the_last_value_and_names_the_line_of_the_repeat() -> None:
    text = "iteration: 4\nstatus: success\nnotes: fine\nstatus: failure\n"
    with pytest.warns(DuplicateKeyWarning) as caught:
        parsed = parse_yaml(text, source="iter-4.yaml")
    assert parsed.data["status"] == "failure"
    assert [(d.key, d.line) for d in parsed.duplicates] == [("status", 4)]
    assert [str(w.message) for w in caught] == [
        "iter-4.yaml:4: duplicate key 'status': the last value is used"
    ]


def test_clean_json_issues_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DuplicateKeyWarning)
        assert parse_json_text("ok.json", '{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}')


# ---------------------------------------------------------------------------
# The differential test: samples, the fleet, generated variants
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "run", sorted(p.name for p in (SAMPLE_RUNS / "universes").iterdir() if p.is_dir())
)
def test_sample_runs_load_the_same_both_ways(run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bulk, per_file = _load_both(lambda: load_universe(SAMPLE_RUNS / "universes" / run), monkeypatch)
    assert isinstance(bulk, Universe) and bulk.ticks.height > 0
    _assert_same(bulk, per_file)


def test_the_sample_fleet_loads_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    bulk, per_file = _load_both(lambda: load_universes(SAMPLE_RUNS / "fleet" / "*"), monkeypatch)
    assert isinstance(bulk, Universe) and len(bulk.slugs) >= 10
    _assert_same(bulk, per_file)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=30)
#: Valid JSON values, numbers of any size among them (one beyond 64 bits must be refused
#: alike on both paths).
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
)
_FIELDS = [
    "tick_id",
    "action_text",
    "matched_mechanic_id",
    "refused",
    "yielded",
    "refusal_reason",
    "duration_ms",
    "observation_text",
    "kind",
    "conservation_verdict",
    "cost_usd",
    "actor_id",
]


@st.composite
def _tick_file(draw: st.DrawFn, n: int) -> str:
    """One tick file's text: a valid v1 or v2 record with hostile but plausible edits."""
    record: dict[str, Any] = draw(st.sampled_from([tick_v1, tick_v2]))(n)
    for _ in range(draw(st.integers(0, 3))):  # unusual but maybe valid types and values
        record[draw(st.sampled_from(_FIELDS))] = draw(_VALUES)
    if draw(st.booleans()):  # unicode in the free text, raw or escaped
        record["action_text"] = draw(_TEXT) + " walks"
    if draw(st.booleans()):  # big but valid numbers
        record["duration_ms"] = draw(st.sampled_from([2**53 + 1, -0.0, 10**18, 1e300, 2**64]))
    text = json.dumps(record, ensure_ascii=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 2))):  # a repeated key, top level or nested
        key = draw(st.sampled_from([*_FIELDS, "verb", "count", "text"]))
        value = json.dumps(draw(_VALUES))
        if key in ("verb", "count", "text") and f'"{key}": ' in text:
            text = text.replace(f'"{key}": ', f'"{key}": {value}, "{key}": ', 1)
        else:
            text = text[:-1] + f', "{key}": {value}}}'
    return text


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=st.lists(st.integers(0, 2**16), min_size=1, max_size=4).flatmap(
        lambda ns: st.tuples(*[_tick_file(i + 1) for i in range(len(ns))])
    )
)
def test_generated_hostile_runs_load_the_same_both_ways(
    files: tuple[str, ...], tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    root = tmp_path_factory.mktemp("run")
    ticks = root / "tick_summaries" / "ticks"
    ticks.mkdir(parents=True)
    for i, text in enumerate(files, start=1):
        (ticks / f"tick_{i}.json").write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bulk, per_file = _load_both(lambda: load_universe(root), monkeypatch)
    _assert_same(bulk, per_file)


def test_the_cli_prints_a_repeated_key_as_one_warning_line_and_scores_the_last_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (SAMPLE_RUNS / "discussions" / "game-over-budget.json").read_text(encoding="utf-8")
    assert '"totalCost": 3.42,' in text
    game = tmp_path / "game.json"  # a cheaper cost written again after the real one
    game.write_text(text.replace('"totalCost": 3.42,', '"totalCost": 3.42, "totalCost": 1.0,'))
    line = 1 + text[: text.index('"totalCost"')].count("\n")
    code = main(["discussion", str(game), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert err.splitlines() == [
        f"toolkit discussion: warning: {game}:{line}: duplicate key 'totalCost': "
        "the last value is used"
    ]
    assert "1.0" in out and "3.42" not in out


def test_tick_warnings_reach_the_scorecard_text_of_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_run(tmp_path / "run", [tick_v1(1), tick_v1(2)])
    (run / "tick_summaries" / "ticks" / "tick_3.json").write_text(REPEATED_REFUSAL)
    assert main(["quality", str(run)]) == 0
    out, _ = capsys.readouterr()
    assert "duplicate key 'refused': the last value is used" in out


@pytest.mark.parametrize("broken", [False, True])
def test_a_warm_load_from_the_cache_answers_as_the_cold_load(tmp_path: Path, broken: bool) -> None:
    """The cache is the other fast path: it must keep the cold load's answer, warnings
    included (a repeated key, and a broken file sending the run down the per-file path)."""
    run = write_run(tmp_path / "run", [tick_v1(1), tick_v1(2), tick_v2(4)])
    (run / "tick_summaries" / "ticks" / "tick_3.json").write_text(REPEATED_REFUSAL)
    if broken:
        (run / "tick_summaries" / "ticks" / "tick_2.json").write_text("{")
    cold = load_universe(run, cache=tmp_path / "cache")
    warm = load_universe(run, cache=tmp_path / "cache")
    assert any("duplicate key 'refused'" in w for w in cold.warnings)
    assert cold.issues.height == int(broken)
    _assert_same(cold, warm)


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("duration_ms", '"duration_ms": 1e300'),
        ("llm_tokens_by_stage.observer.in", '"observer": {"in": 1e19, "out": 1}'),
        ("llm_cost_usd_by_stage.classifier", '"classifier": Infinity'),
    ],
)
def test_a_number_the_frame_cannot_hold_skips_the_file_alike_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str, text: str
) -> None:
    record = json.dumps(tick_v1(2))
    if field == "duration_ms":
        record = record.replace('"duration_ms": 1000', text)
    elif field.startswith("llm_tokens"):
        record = record.replace('"observer": {"in": 5, "out": 1}', text)
    else:
        record = record.replace('"classifier": 0.25', text)
    assert text in record
    run = write_run(tmp_path / "run", [tick_v1(1), tick_v1(3)])
    (run / "tick_summaries" / "ticks" / "tick_2.json").write_text(record)
    bulk, per_file = _load_both(lambda: load_universe(run), monkeypatch)
    _assert_same(bulk, per_file)
    assert isinstance(bulk, Universe)
    assert bulk.ticks["tick"].to_list() == [1, 3]
    (reason,) = bulk.issues["reason"].to_list()
    assert f"{field}=" in reason and "cannot hold" in reason
