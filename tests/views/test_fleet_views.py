"""The fleet table and charts built from many scorecards."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.views.fleet import (
    failing_dimensions,
    failing_dimensions_chart,
    fleet_frame,
    trend_chart,
    verdict_chart,
)


@pytest.fixture(scope="module")
def cards() -> list[tk.Scorecard]:
    return tk.score_universe(tk.load_universes(SAMPLE_RUNS / "universes" / "*"), series=False)


def test_fleet_frame_sorts_worst_first_and_counts_statuses(cards: list[tk.Scorecard]) -> None:
    frame = fleet_frame(cards)
    assert frame["slug"].to_list() == ["ashfall", "harbor-town", "willowbrook"]
    # ashfall's informational WARN (novel subtype rate) is not counted.
    assert frame["novel_subtype_rate"].to_list() == ["WARN", "OK", "OK"]
    assert frame.select("fails", "warns").rows() == [(6, 0), (0, 2), (0, 0)]
    assert frame["graph_fanout"].to_list() == ["FAIL", "WARN", "OK"]
    assert frame["ended"].dt.year().to_list() == [2026, 2026, 2026]


def test_failing_dimensions_counts_runs_per_status(cards: list[tk.Scorecard]) -> None:
    keys = cards[0].dimensions["dimension"].to_list()
    table = failing_dimensions(fleet_frame(cards), keys)
    by_dim = {r["dimension"]: r for r in table.iter_rows(named=True)}
    assert (by_dim["graph_fanout"]["FAIL"], by_dim["graph_fanout"]["WARN"]) == (1, 1)
    assert (by_dim["groundedness"]["FAIL"], by_dim["groundedness"]["WARN"]) == (0, 1)
    assert table["dimension"][0] == "graph_fanout"  # one FAIL and one WARN: most failing
    assert all(r["FAIL"] + r["WARN"] + r["OK"] + r["N/A"] == 3 for r in by_dim.values())


def test_fleet_charts_encode_what_they_claim(cards: list[tk.Scorecard]) -> None:
    frame = fleet_frame(cards)
    keys = cards[0].dimensions["dimension"].to_list()
    verdicts = verdict_chart(frame).to_dict()
    assert verdicts["mark"]["type"] == "bar" and verdicts["encoding"]["y"]["field"] == "verdict"
    rows = verdicts["datasets"][verdicts["data"]["name"]]
    assert {r["verdict"]: r["runs"] for r in rows} == {"FAILED": 1, "DEGRADED": 1, "HEALTHY": 1}
    dims = failing_dimensions_chart(frame, keys).to_dict()
    assert dims["encoding"]["y"]["sort"][0] == "graph_fanout"
    # statuses stack and list OK, WARN, FAIL, N/A (not alphabetically: WARN after OK)
    assert dims["encoding"]["color"]["scale"]["domain"] == ["OK", "WARN", "FAIL", "N/A"]
    assert dims["encoding"]["order"] == {
        "field": "rank",
        "sort": "ascending",
        "type": "quantitative",
    }
    ranks = {r["status"]: r["rank"] for r in dims["datasets"][dims["data"]["name"]]}
    assert [s for s, _ in sorted(ranks.items(), key=lambda sr: sr[1])] == [
        s for s in ["OK", "WARN", "FAIL", "N/A"] if s in ranks
    ]
    trend = trend_chart(frame).to_dict()
    assert trend["encoding"]["y"]["stack"] == "normalize"
    vlc = pytest.importorskip("vl_convert")
    assert vlc.vegalite_to_svg(trend).startswith("<svg")


def test_drilldown_shows_the_picked_run() -> None:
    fleet = tk.load_universes(SAMPLE_RUNS / "universes" / "*")
    asked: list[str] = []

    def score_one(slug: str) -> tk.Scorecard:
        asked.append(slug)
        return tk.score_universe(fleet.run(slug))[0]

    widget = tk.Drilldown(["harbor-town", "ashfall"], score_one)
    assert asked == ["harbor-town"] and "data-verdict='DEGRADED'" in widget.scorecard.value
    widget.picker.value = "ashfall"
    assert asked == ["harbor-town", "ashfall"]
    assert widget.card is not None and widget.card.verdict == "FAILED"
    assert "data-verdict='FAILED'" in widget.scorecard.value
    assert len(widget.chart.outputs) == 1
