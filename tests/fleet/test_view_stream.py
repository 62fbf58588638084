"""``toolkit view`` streams a fleet's records into the site (issue 38: 10,000 runs in
1 GiB): each run's files are written as its record is made and the record let go; only
its index row, its searched text and what a calibration's links read of it are kept. A
fleet is scored a part of whole runs at a time (:func:`fleet_parts`).

The reference is the site written from every record held at once (``collect`` without a
sink, then :func:`write_site`): the streamed site must be the same, byte for byte, with
a calibration whose disagreements link to runs (its words are searched with them).
"""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import ROOT, SAMPLE_RUNS

from toolkit.fleet.view import calibration_links, collect
from toolkit.fleet.view import simulation as sim
from toolkit.fleet.view.simulation import fleet_parts
from toolkit.load.universe import Universe, load_runs
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe
from toolkit.views.site import SiteRun, SiteWriter, write_site

FLEET = SAMPLE_RUNS / "fleet"
#: Every family: a fleet of 16 simulation runs, persona chats (with their kit), games
#: and iteration logs.
SOURCES = ["sample_runs/fleet", "sample_runs/persona", "sample_runs/discussions",
           "sample_runs/iteration_logs"]  # fmt: skip


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _calibration() -> dict[str, Any]:
    from calibration_fixture import calibration_result

    doc: dict[str, Any] = calibration_result()
    # one more disagreement, at a tick of a simulation run of the fleet
    doc["disagreements"] = [*doc["disagreements"], {
        "item": "fleet-run-3", "source": "sample_runs/fleet/run-0003", "anchor": "tick-2",
        "reasoning": "The judge calls this tick QUIXOTIC.", "notes": [], "evidence": "",
    }]  # fmt: skip
    return doc


def test_the_streamed_site_equals_the_site_of_every_record_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the calibration's sources are paths from the checkout
    cal = _calibration()
    held = collect(SOURCES)
    assert held.streamed is None and len(held.runs) == held.count > 16
    links = calibration_links(cal, held.runs)
    assert {"run": "fleet/run-0003", "item": "tick-2", "why": ""} in links
    site: dict[str, Any] = {"notes": held.notes, "calibration": {**cal, "links": links},
                            "experiments": held.experiments}  # fmt: skip
    write_site(held.runs, tmp_path / "held", **site)

    monkeypatch.setattr(sim, "SITE_PART_TICKS", 130)  # runs of 60 ticks: two a part
    with SiteWriter(tmp_path / "streamed") as writer:
        streamed = collect(SOURCES, sink=writer.add)
        assert streamed.runs == [] and streamed.count == writer.count == held.count
        links_streamed = calibration_links(cal, streamed.linkable())
        assert links_streamed == links
        writer.finish(**{**site, "notes": streamed.notes})
    assert streamed.notes == held.notes
    written = _files(tmp_path / "streamed")
    assert written == _files(tmp_path / "held")
    # the linked words are searched with their run (the path the streaming splices)
    assert any(b"quixotic" in text for name, text in written.items() if "search-" in name)


def test_records_are_let_go_as_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the fleet's last run is written, the records of the runs before it are gone
    (held, all 16 would be alive)."""
    monkeypatch.setattr(sim, "SITE_PART_TICKS", 130)  # runs of 60 ticks: two a part
    alive: list[weakref.ref[SiteRun]] = []
    most = 0
    with SiteWriter(tmp_path / "site") as writer:

        def sink(run: SiteRun) -> None:
            nonlocal most
            writer.add(run)
            alive.append(weakref.ref(run))
            gc.collect()
            most = max(most, sum(r() is not None for r in alive))

        collected = collect([str(FLEET)], sink=sink)
        writer.finish(notes=collected.notes)
    assert len(alive) == 16
    assert most <= 2  # the run being written (and the one just before it)
    assert (tmp_path / "site" / "data" / "run" / "000015.js").is_file()


def test_a_streamed_build_that_fails_leaves_the_previous_site_whole(tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = collect([str(FLEET)])
    write_site(first.runs[:3], out)
    before = _files(out)
    with pytest.raises(ValueError, match="two runs have the id"), SiteWriter(out) as writer:
        writer.add(first.runs[0])
        writer.add(first.runs[0])
    assert _files(out) == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".data-new")] == []


def test_a_failing_build_before_its_first_run_makes_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "not-yet"
    with pytest.raises(RuntimeError), SiteWriter(out):
        raise RuntimeError("the runs could not be found")
    assert not out.exists()


def test_collect_takes_a_memo_or_a_sink_not_both(tmp_path: Path) -> None:
    from toolkit.fleet.view.memo import Memo

    with pytest.raises(ValueError, match="not both"):
        collect([str(FLEET)], memo=Memo(), sink=lambda run: None)


def _cards(universe: Universe) -> dict[str, tuple[Any, ...]]:
    cards = score_universe(universe, DEFAULT_RUBRIC, None, series=True)
    out = {}
    for c in cards:
        assert c.series is not None
        out[c.subject] = (c.verdict, c.dimensions.rows(), c.series.rows(), c.meta)
    return out


@pytest.mark.parametrize("together", [True, False], ids=["slices", "filtered"])
def test_each_part_of_a_fleet_scores_its_runs_as_the_whole_fleet_does(together: bool) -> None:
    fleet = load_runs(sorted(str(p) for p in FLEET.iterdir()), cache=False)
    if not together:  # each run's rows apart: every other row first
        ticks = fleet.ticks.with_row_index("n")
        ticks = pl.concat([ticks.filter(pl.col("n") % 2 == 0), ticks.filter(pl.col("n") % 2 == 1)])
        fleet = Universe(ticks.drop("n"), fleet.batches, fleet.checkpoints, fleet.issues,
                         fleet.warnings, fleet.names, fleet.paths, fleet.conserved)  # fmt: skip
    whole = _cards(fleet)
    parts = list(fleet_parts(fleet, size=130))
    assert [len(p.slugs) for p in parts] == [2] * 8  # runs of 60 ticks: two a part
    assert [s for p in parts for s in p.slugs] == fleet.slugs  # every run, in load order
    for part in parts:
        assert set(part.ticks["slug"].unique()) <= set(part.slugs)
        mine = _cards(part)
        assert list(mine) == part.slugs
        for slug, card in mine.items():
            assert json.dumps(card, default=str) == json.dumps(whole[slug], default=str)
    assert list(fleet_parts(fleet, size=10**9)) == [fleet]  # a small fleet: one part
