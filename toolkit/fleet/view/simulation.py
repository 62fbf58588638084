"""The site records of simulation runs: each run's ticks as items, and each dimension's
per-tick series (from the simulation rubric) as its evidence rows."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
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
        ticks_of = _runs_ticks(universe.ticks)
        empty = universe.ticks.clear()
        cards = score_universe(universe, DEFAULT_RUBRIC, None, series=True)
        del universe  # the fleet's frames: what the site needs is in cards and ticks_of
        cards.reverse()
        while cards:  # each run's series and ticks let go once its records are made
            card = cards.pop()
            ticks = ticks_of.pop((card.subject,), empty)
            where = by_slug.get(card.subject)
            if where is not None:
                yield _simulation_run(where, card, ticks)


def _runs_ticks(ticks: pl.DataFrame) -> dict[tuple[Any, ...], pl.DataFrame]:
    """Each run's ticks by ``(slug,)``, taken from the fleet once: slices of the fleet's
    frame when each run's rows are together (as a load leaves them; no copy: 10,000 small
    frames copied out cost about 27 KB a run), else a partition."""
    slugs = ticks["slug"]
    runs = slugs.rle()
    if runs.len() != slugs.n_unique():
        return ticks.partition_by("slug", as_dict=True, maintain_order=True)
    out: dict[tuple[Any, ...], pl.DataFrame] = {}
    offset = 0
    for slug, length in runs.struct.unnest().select("value", "len").rows():
        out[(slug,)] = ticks.slice(offset, length)
        offset += length
    return out


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


# The texts of evidence rows repeat from run to run (tick 5 of every run, "Groundedness
# over the window ending at tick 5"): a fleet's site holds every run's rows at once, so
# each text is made once and shared (the same site; 10,000 runs x 30 ticks x 8
# dimensions are 2.4 million rows, about 48 KB a run of repeated text otherwise).
@lru_cache(maxsize=1 << 16)
def _tick_texts(tick: int) -> tuple[str, str]:
    return f"tick {tick}", f"tick-{tick}"


@lru_cache(maxsize=1 << 16)
def _window_note(name: str, tick: int) -> str:
    return f"{name} over the window ending at tick {tick}"


def _series_evidence(card: Any) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each dimension's per-tick series as rows linked to their ticks."""
    if card.series is None:
        return {}
    # One pass over the rows, grouped here in order of first appearance (as a group_by
    # keeping order would): a Polars query per dimension cost ~1 ms a run.
    series = card.series.sort("tick").select("dimension", "tick", "name", "value", "status")
    grouped: dict[str, list[EvidenceRow]] = {}
    for key, tick, name, value, status in series.rows():
        label, item = _tick_texts(tick)
        grouped.setdefault(str(key), []).append(EvidenceRow(
            label=label, value=value, status=None if status is None else sys.intern(status),
            note=_window_note(name, tick), item=item,
        ))  # fmt: skip
    return {key: tuple(rows) for key, rows in grouped.items()}


def _simulation_run(f: Found, card: Any, ticks: pl.DataFrame) -> SiteRun:
    items = [_tick_item(t) for t in ticks.sort("tick").iter_rows(named=True)]
    meta = card.meta
    evidence = _series_evidence(card)
    return SiteRun(
        id=f.id,
        family="simulation",
        card=replace(card, series=None),  # its rows are the evidence now: ~40 KB a run
        items=tuple(items),
        evidence=evidence,
        source=f.path,
        size=size_of(f.path),
        time=text(meta.get("ended") or meta.get("started")) or None,
    )
