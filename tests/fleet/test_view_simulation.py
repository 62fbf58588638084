"""The site of a simulation fleet is the site of its runs made one by one (issue 38).

``toolkit view`` builds a fleet's records in one pass (the fleet's ticks partitioned once,
the evidence rows' repeated texts shared, each card's per-tick series let go once its rows
are made). The reference here is the straightforward way: every run loaded and scored on
its own, its ticks and rows made afresh. Both record lists must write the same site, byte
for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import SAMPLE_RUNS

from toolkit.fleet.view import collect
from toolkit.fleet.view.simulation import reason_evidence
from toolkit.load.universe import load_universe
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe
from toolkit.rubrics.simulation.reasons import tick_reasons
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site
from toolkit.views.site.raw import raw_record

FLEET = SAMPLE_RUNS / "fleet"


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _reference(run: SiteRun) -> SiteRun:
    """``run`` made again from its folder alone, row by row."""
    universe = load_universe(run.source, cache=False)
    card = score_universe(universe, DEFAULT_RUBRIC, None, series=True)[0]
    items = []
    for t in universe.ticks.sort("tick").iter_rows(named=True):
        said = _cell(t["action_text"])
        if t["observation_text"]:
            said += f"\n→ {t['observation_text']}"
        facts = [
            ("mechanic", _cell(t["mechanic"])),
            ("status", _cell(t["status"])),
            ("refusal", _cell(t["refusal_reason"])),
            ("mutations", _cell(t["mutation_count"])),
            ("rollback", "yes" if t["rollback"] else ""),
            ("grounded", "" if t["grounded"] is None else ("yes" if t["grounded"] else "no")),
        ]
        items.append(SiteItem(key=f"tick-{t['tick']}", label=f"tick {t['tick']}",
                              who=_cell(t["actor"]), text=said,
                              facts=tuple((k, v) for k, v in facts if v),
                              raw=raw_record(t, _cell(t["source_file"]))))  # fmt: skip
    # the deciding ticks (the rubric's reasons and status changes) as the evidence, the
    # per-tick series as the chart's points, made from this run alone
    evidence = reason_evidence(card, tick_reasons(universe, DEFAULT_RUBRIC, None))
    charts: dict[str, tuple[EvidenceRow, ...]] = {}
    assert card.series is not None
    for (key,), part in card.series.sort("tick").group_by("dimension", maintain_order=True):
        charts[str(key)] = tuple(
            EvidenceRow(label=f"tick {r['tick']}", value=r["value"], status=r["status"],
                        item=f"tick-{r['tick']}")
            for r in part.iter_rows(named=True)
        )  # fmt: skip
    return SiteRun(id=run.id, family="simulation", card=card, items=tuple(items),
                   evidence=evidence, charts=charts, source=run.source, size=run.size,
                   time=run.time)  # fmt: skip


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_site_of_a_fleet_equals_the_site_of_its_runs_made_one_by_one(tmp_path: Path) -> None:
    collected = collect([str(FLEET)])
    runs = collected.runs
    assert len(runs) == 16 and {r.family for r in runs} == {"simulation"}
    reference = [_reference(r) for r in runs]
    for made, ref in zip(runs, reference, strict=True):
        assert made.items == ref.items
        assert made.evidence == ref.evidence
        assert made.card is not None and made.card.series is None  # let go once used
    fleet_site = write_site(runs, tmp_path / "fleet", notes=collected.notes)
    one_by_one = write_site(reference, tmp_path / "one-by-one", notes=collected.notes)
    written = _files(fleet_site.parent)
    assert len(written) > 16
    assert written == _files(one_by_one.parent)


def test_the_chart_points_share_their_repeated_texts() -> None:
    """Tick 1 of every run is the same text: made once and shared across the fleet."""
    runs = collect([str(FLEET)]).runs
    first, other = runs[0].charts, runs[1].charts
    key = next(iter(first))
    a, b = first[key][0], other[key][0]
    assert (a.label, a.item) == (b.label, b.item) == ("tick 1", "tick-1")
    assert a.label is b.label and a.item is b.item  # one text each
