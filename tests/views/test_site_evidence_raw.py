"""The data the site gets for issue 41's viewer features: a simulation dimension's evidence
is the ticks that decided it (checked against ticks planted by hand), each linked to a
raw record; raw records are bounded in size; the values the filters compare are written
beside the index; experiments beside the runs are found and written for their page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import refused_v1, tick_v1, write_run

from toolkit.fleet.find import discover
from toolkit.fleet.view import collect
from toolkit.fleet.view.simulation import reason_evidence
from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site
from toolkit.views.site.raw import MAX_ENTRIES, MAX_TEXT, bounded, raw_record

CALL = re.compile(r"^window\.__tk\.(\w+)\((.*)\);\n$", re.S)


def _payload(path: Path) -> list[Any]:
    match = CALL.match(path.read_text(encoding="utf-8"))
    assert match, f"{path} is not one window.__tk call"
    return list(json.loads(f"[{match.group(2)}]"))


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> SiteRun:
    """One run of 20 ticks (the rubric's window is 50: every tick is scored): tick 4
    breaks character ("framework"), ticks 12-13 are refused (13 for a conservation
    violation: also a rollback)."""
    ticks = [tick_v1(n) for n in range(1, 21)]
    ticks[3] = tick_v1(4, action_text="Stepping outside the framework, I wait.")
    ticks[11] = refused_v1(12)
    ticks[12] = refused_v1(13, reason="conservation_violation: coins would be created")
    root = write_run(tmp_path_factory.mktemp("runs") / "planted", ticks)
    (run,) = collect([root]).runs
    return run


def _rows(run: SiteRun, key: str) -> list[tuple[str, str | None, str]]:
    return [(e.label, e.status, e.note) for e in run.evidence[key]]


def test_character_evidence_marks_the_tick_that_broke_character(planted: SiteRun) -> None:
    # The trailing window at tick 4 holds 4 turns, 1 break: 0.75 < 0.9 (red): the window
    # turns FAIL at the very tick that broke character; both reasons on one row. At tick
    # 10, 9 of 10 turns in character: 0.9, no longer red, not yet green (>= 0.98): WARN.
    assert _rows(planted, "character_stability") == [
        ("tick 1", "OK", "the window's status from the first tick: OK"),
        ("tick 4", "FAIL", 'broke character: the action holds the marker "framework" · '
                           "the window's status becomes FAIL (from OK)"),
        ("tick 10", "WARN", "the window's status becomes WARN (from FAIL)"),
    ]  # fmt: skip
    row = planted.evidence["character_stability"][1]
    assert row.value == pytest.approx(3 / 4) and row.item == "tick-4"


def test_a_refusal_cluster_is_named_at_its_first_tick_once(planted: SiteRun) -> None:
    rows = _rows(planted, "refusal_cluster")
    at_12 = [r for r in rows if r[0] == "tick 12"]
    assert len(at_12) == 1  # the cluster's reason and the window's change: one row
    assert at_12[0][2].startswith("refusal cluster begins here: 2 ticks (12-13): "
                                  "no_viable_action; conservation_violation")  # fmt: skip
    assert not [r for r in rows if r[0] == "tick 13"]  # not a cluster's first tick
    drift = _rows(planted, "conservation_drift")
    assert ("tick 13", "FAIL") in [(r[0], r[1]) for r in drift]
    assert any(r[2].startswith("rolled back: conservation_violation") for r in drift)


def test_each_evidence_row_links_to_a_tick_with_a_raw_record(planted: SiteRun) -> None:
    raw = {i.key: i.raw for i in planted.items}
    for rows in planted.evidence.values():
        for e in rows:
            assert e.item in raw and raw[e.item] is not None, e
    tick4 = raw["tick-4"]
    assert tick4 is not None
    assert tick4["origin"].endswith("tick_summaries/ticks/tick_4.json")
    assert tick4["record"]["action_text"] == "Stepping outside the framework, I wait."
    assert tick4["record"]["tick"] == 4


def test_the_series_is_the_chart_not_the_evidence(planted: SiteRun) -> None:
    points = planted.charts["character_stability"]
    assert [p.label for p in points] == [f"tick {n}" for n in range(1, 21)]
    # At tick 20: 19 of 20 turns in character.
    assert points[-1].value == pytest.approx(19 / 20)
    assert len(planted.evidence["character_stability"]) == 3


def test_a_dimension_with_more_reasons_than_the_limit_says_how_many_more(
    planted: SiteRun,
) -> None:
    import polars as pl

    from toolkit.rubrics.simulation.reasons import REASONS_SCHEMA

    reasons = pl.DataFrame(
        [("planted", "groundedness", n, f"reason {n}", "FAIL") for n in range(1, 8)],
        schema=REASONS_SCHEMA, orient="row",
    )  # fmt: skip
    rows = reason_evidence(planted.card, reasons, limit=3)["groundedness"]
    assert [e.label for e in rows] == ["tick 1", "tick 2", "tick 3", "more"]
    # Ticks 1-7 have reasons, plus the window's status changes of groundedness (none
    # after tick 1 here: every executed tick has its mutation): 7 rows, 3 shown.
    assert rows[-1].note.startswith("4 more tick(s) with reasons, not listed")


def test_a_huge_record_is_cut_where_it_is_too_long_saying_how_much() -> None:
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(12):
        deep = {"in": deep}
    row = {
        "text": "x" * (MAX_TEXT + 12_345),
        "items": list(range(MAX_ENTRIES + 250)),
        "deep": deep,
        "keys": {f"k{n}": n for n in range(MAX_ENTRIES + 7)},
    }
    out = bounded(row)
    assert out["text"] == "x" * MAX_TEXT + "… [cut: 12,345 more characters]"
    assert out["items"][:MAX_ENTRIES] == list(range(MAX_ENTRIES))
    assert out["items"][MAX_ENTRIES:] == ["… [cut: 250 more items]"]
    assert out["keys"]["…"] == "[cut: 7 more entries]" and len(out["keys"]) == MAX_ENTRIES + 1
    node = out["deep"]
    depth = 1
    while isinstance(node, dict):
        node = node["in"]
        depth += 1
    assert node == "… [cut: nested deeper than 8 levels]" and depth == 8


def test_a_huge_record_written_into_the_site_stays_small(tmp_path: Path) -> None:
    huge = {"action_text": "<b>" * 2_000_000, "list": list(range(100_000))}  # ~6 MB, 100k items
    item = SiteItem("tick-1", "tick 1", text="short", raw=raw_record(huge, "ticks/tick_1.json"))
    write_site([SiteRun("r", "simulation", None, items=(item,))], tmp_path)
    raw_file = tmp_path / "data" / "raw" / "000000.js"
    assert raw_file.stat().st_size < 20_000
    _, doc = _payload(raw_file)
    assert doc["tick-1"]["origin"] == "ticks/tick_1.json"
    assert doc["tick-1"]["record"]["action_text"].endswith("… [cut: 5,998,000 more characters]")
    _, run = _payload(tmp_path / "data" / "run" / "000000.js")
    assert run["raw"] == "000000"


def test_the_values_the_filters_compare_are_written_beside_the_index(tmp_path: Path) -> None:
    dims = [Dimension("a", "A", 0.25, "FAIL", "", ">= 1", "< 0.5"),
            Dimension("b", "B", None, "N/A", "", ">= 1", "< 0.5")]  # fmt: skip
    card = Scorecard("test", "0.1.0", "one", "One", "FAILED", "",
                     Scorecard.dimensions_frame("one", dims), meta={"value": 0.75})  # fmt: skip
    runs = [SiteRun("one", "outcome", card), SiteRun("unscored", "persona", None)]
    write_site(runs, tmp_path)
    _, values = _payload(tmp_path / "data" / "values-0.js")
    # [score, then each dimension's value in the order of the row's statuses]
    assert values == [[0.75, 0.25, None], []]


def test_experiments_beside_the_runs_are_found_and_tested(tmp_path: Path) -> None:
    folder = tmp_path / "experiments"
    folder.mkdir()
    rows = ["experiment,group,dimension,score"]
    rows += [f"trial,treatment,adherence,{v}" for v in (3, 4, 5)]
    rows += [f"trial,control,adherence,{v}" for v in (1, 2, 3)]
    (folder / "trial.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "notes.experiment.json").write_text("{}")  # named as one, holds none
    write_run(tmp_path / "run", [tick_v1(n) for n in range(1, 4)])
    kinds = {Path(f.path).name: f.family for f in discover(tmp_path)}
    assert kinds == {"trial.csv": "experiment", "notes.experiment.json": "experiment",
                     "run": "simulation"}  # fmt: skip
    collected = collect([tmp_path])
    (page,) = collected.experiments
    assert page["source"].endswith("experiments/trial.csv") and page["reported"] is False
    cell = page["report"]["experiments"]["trial"]["metrics"]["adherence"]
    # By hand: means 4 and 2, sds 1 and 1: delta 2, se sqrt(1/3 + 1/3), t = 2 / 0.8165.
    assert (cell["t_n"], cell["c_n"], cell["t_mean"], cell["c_mean"]) == (3, 3, 4.0, 2.0)
    assert cell["delta"] == pytest.approx(2.0)
    assert cell["t_stat"] == pytest.approx(2 / (2 / 3) ** 0.5)
    assert cell["ci_low"] < 2.0 < cell["ci_high"]
    assert any("notes.experiment.json" in n for n in collected.notes)
    write_site(collected.runs, tmp_path / "site", experiments=collected.experiments)
    _, man = [None, *_payload(tmp_path / "site" / "data" / "manifest.js")]
    assert man["experiments"] == 1
    (written,) = _payload(tmp_path / "site" / "data" / "experiments.js")
    assert written[0]["report"]["experiments"]["trial"]["metrics"]["adherence"]["t_n"] == 3


def test_only_experiment_rows_count_as_experiments(tmp_path: Path) -> None:
    """A site with no experiments writes no experiments file, and its manifest says 0."""
    write_site([SiteRun("r", "simulation", None, evidence={"d": (EvidenceRow("x"),)})], tmp_path)
    assert not (tmp_path / "data" / "experiments.js").exists()
    (man,) = _payload(tmp_path / "data" / "manifest.js")
    assert man["experiments"] == 0


def test_an_iterations_raw_record_holds_its_file_as_written() -> None:
    from conftest import SAMPLE_RUNS

    log = SAMPLE_RUNS / "iteration_logs" / "tally-loop"
    runs = collect([log]).runs
    items = {i.key: i for i in runs[0].items}
    raw = items["iter-2"].raw
    assert raw is not None
    assert raw["origin"].endswith("tally-loop/iter-2.yaml")
    assert raw["original"] == (log / "iter-2.yaml").read_text(encoding="utf-8")
    assert raw["record"]["iteration"] == 2
