"""The site records of simulation runs: each run's ticks as items, and each dimension's
per-tick series (from the simulation rubric) as its evidence rows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import polars as pl

from toolkit.fleet.families import Found, label
from toolkit.fleet.view.common import size_of, text
from toolkit.load.universe import load_runs
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun


def simulation_runs(
    found: Sequence[Found], storage_options: Mapping[str, Any] | None
) -> Iterator[SiteRun]:
    """The site runs of the simulation runs ``found``, scored with per-tick series."""
    # One bulk load per parent folder: sibling run folders have distinct slugs.
    groups: dict[str, list[Found]] = {}
    for f in found:
        groups.setdefault(f.path.rstrip("/").rsplit("/", 1)[0], []).append(f)
    for members in groups.values():
        by_slug = {label(f.path): f for f in members}
        universe = load_runs([f.path for f in members], storage_options=storage_options)
        # Each run's ticks taken from the fleet once (one pass), never filtered per run:
        # a filter per run scans every run's ticks, quadratic in the runs of the folder.
        ticks_of = universe.ticks.partition_by("slug", as_dict=True, maintain_order=True)
        empty = universe.ticks.clear()
        for card in score_universe(universe, DEFAULT_RUBRIC, None, series=True):
            where = by_slug.get(card.subject)
            if where is None:
                continue
            yield _simulation_run(where, card, ticks_of.get((card.subject,), empty))


def _tick_item(t: dict[str, Any]) -> SiteItem:
    """One tick: its action (and what was observed), with the tick's facts."""
    said = text(t["action_text"])
    if t["observation_text"]:
        said += f"\n→ {t['observation_text']}"
    facts = [
        ("mechanic", text(t["mechanic"])),
        ("status", text(t["status"])),
        ("refusal", text(t["refusal_reason"])),
        ("mutations", text(t["mutation_count"])),
        ("rollback", "yes" if t["rollback"] else ""),
        ("grounded", "" if t["grounded"] is None else ("yes" if t["grounded"] else "no")),
    ]
    return SiteItem(
        key=f"tick-{t['tick']}",
        label=f"tick {t['tick']}",
        who=text(t["actor"]),
        text=said,
        facts=tuple((k, v) for k, v in facts if v),
    )


def _series_evidence(card: Any) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each dimension's per-tick series as rows linked to their ticks."""
    evidence: dict[str, tuple[EvidenceRow, ...]] = {}
    if card.series is None:
        return evidence
    series = card.series.sort("tick")
    for (key,), part in series.group_by("dimension", maintain_order=True):
        evidence[str(key)] = tuple(
            EvidenceRow(
                label=f"tick {r['tick']}",
                value=r["value"],
                status=r["status"],
                note=f"{r['name']} over the window ending at tick {r['tick']}",
                item=f"tick-{r['tick']}",
            )
            for r in part.iter_rows(named=True)
        )
    return evidence


def _simulation_run(f: Found, card: Any, ticks: pl.DataFrame) -> SiteRun:
    items = [_tick_item(t) for t in ticks.sort("tick").iter_rows(named=True)]
    meta = card.meta
    return SiteRun(
        id=f.id,
        family="simulation",
        card=card,
        items=tuple(items),
        evidence=_series_evidence(card),
        source=f.path,
        size=size_of(f.path),
        time=text(meta.get("ended") or meta.get("started")) or None,
    )
