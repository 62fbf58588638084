"""The site records of simulation runs: each run's ticks as items (each with its raw
record: the tick as loaded, and its file), each dimension's deciding ticks as its evidence
rows (the rubric's :func:`~toolkit.rubrics.simulation.reasons.tick_reasons`: the tick
that broke character and its marker, the refusal that began a cluster..., and the ticks
where its status changed), and its per-tick series as its chart."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import pairwise
from typing import Any

import polars as pl

from toolkit.fleet.families import Found, label
from toolkit.fleet.view.common import size_of, text
from toolkit.load.universe import Universe, load_runs
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe
from toolkit.rubrics.simulation.reasons import status_changes, tick_reasons
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun
from toolkit.views.site.raw import raw_record

#: The most evidence rows of one dimension (a run of 10,000 ungrounded ticks shows the
#: first ones and a row saying how many more there are).
MAX_REASON_ROWS = 200
#: About how many ticks of a fleet are scored and made into site records at a time
#: (whole runs; a run larger is a part of its own): the scoring's temporaries and the
#: records of a part are let go before the next, so a fleet's build peaks at its load.
SITE_PART_TICKS = 16_384


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
        fleet = load_runs([f.path for f in members], storage_options=storage_options)
        for universe in fleet_parts(fleet):
            yield from _part_runs(universe, by_slug)


def fleet_parts(fleet: Universe, size: int | None = None) -> Iterator[Universe]:
    """The runs of ``fleet`` a part at a time, in load order: whole runs of about
    ``size`` ticks a part, each part's frames holding only its runs' rows (slices of the
    fleet's ticks when each run's rows are together, as a load leaves them). Every run is
    scored alone (its scorecard is the same in any part), so the parts' cards are the
    fleet's. ``size``: :data:`SITE_PART_TICKS` unless given."""
    size = SITE_PART_TICKS if size is None else size
    slugs = fleet.slugs
    heights, offsets = _run_rows(fleet.ticks)
    start = 0
    while start < len(slugs):
        end, ticks = start, 0
        while end < len(slugs) and (end == start or ticks + heights.get(slugs[end], 0) <= size):
            ticks += heights.get(slugs[end], 0)
            end += 1
        part = slugs[start:end]
        if start == 0 and end == len(slugs):
            yield fleet
            return
        yield _part(fleet, part, heights, offsets)
        start = end


def _run_rows(ticks: pl.DataFrame) -> tuple[dict[str, int], dict[str, int] | None]:
    """Each run's number of tick rows, and its first row when each run's rows are
    together (``None`` when they are not)."""
    slugs = ticks["slug"]
    runs = slugs.rle().struct.unnest().select("value", "len").rows()
    heights: dict[str, int] = {}
    offsets: dict[str, int] | None = {}
    offset = 0
    for slug, length in runs:
        if slug in heights:
            offsets = None
        heights[slug] = heights.get(slug, 0) + length
        if offsets is not None:
            offsets[slug] = offset
        offset += length
    return heights, offsets


def _part(
    fleet: Universe, part: list[str], heights: dict[str, int], offsets: dict[str, int] | None
) -> Universe:
    """The part of ``fleet`` that holds the runs ``part`` (in load order): their rows of
    each frame; the issues and warnings whole (a run's are found by its folder, its
    slug)."""
    keep = pl.col("slug").is_in(part)
    placed = [(offsets[s], heights[s]) for s in part if s in offsets] if offsets else None
    if placed is not None and all(
        a + n == b for (a, n), (b, _) in pairwise(placed)
    ):  # the part's rows together, in order: a slice, not a copy
        first = placed[0][0] if placed else 0
        ticks = fleet.ticks.slice(first, sum(n for _, n in placed))
    else:
        ticks = fleet.ticks.filter(keep)
    return Universe(
        ticks=ticks,
        batches=fleet.batches.filter(keep),
        checkpoints=fleet.checkpoints.filter(keep),
        issues=fleet.issues,
        warnings=fleet.warnings,
        names={s: fleet.names[s] for s in part},
        paths={s: fleet.paths[s] for s in part},
        conserved={s: fleet.conserved[s] for s in part if s in fleet.conserved},
    )


def _part_runs(universe: Universe, by_slug: Mapping[str, Found]) -> Iterator[SiteRun]:
    """The site runs of one part of a fleet (:func:`fleet_parts`)."""
    # Each run's ticks taken from the fleet once (one pass), never filtered per run:
    # a filter per run scans every run's ticks, quadratic in the runs of the folder.
    ticks_of = _runs_ticks(universe.ticks)
    empty = universe.ticks.clear()
    reasons = tick_reasons(universe, DEFAULT_RUBRIC, None)
    reasons_of = reasons.partition_by("slug", as_dict=True, maintain_order=True)
    no_reasons = reasons.clear()
    cards = score_universe(universe, DEFAULT_RUBRIC, None, series=True)
    del universe  # the fleet's frames: what the site needs is in cards and ticks_of
    cards.reverse()
    while cards:  # each run's series and ticks let go once its records are made
        card = cards.pop()
        ticks = ticks_of.pop((card.subject,), empty)
        mine = reasons_of.pop((card.subject,), no_reasons)
        where = by_slug.get(card.subject)
        if where is not None:
            yield _simulation_run(where, card, ticks, mine)


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
    label, key = _tick_texts(t["tick"])  # shared: a fleet's link targets keep the keys
    return SiteItem(
        key=key,
        label=label,
        who=text(t["actor"]),
        text=said,
        facts=tuple((k, v) for k, v in facts if v),
        raw=raw_record(t, text(t["source_file"])),
    )


# The texts of ticks and chart points repeat from run to run (tick 5 of every run): each
# is made once and shared (10,000 runs x 30 ticks x 8 dimensions are 2.4 million points,
# and a streamed fleet's link targets keep every run's tick keys).
@lru_cache(maxsize=1 << 16)
def _tick_texts(tick: int) -> tuple[str, str]:
    return f"tick {tick}", f"tick-{tick}"


def _series_points(card: Any) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each dimension's per-tick series as points linked to their ticks (its chart)."""
    if card.series is None:
        return {}
    # One pass over the rows, grouped here in order of first appearance (as a group_by
    # keeping order would): a Polars query per dimension cost ~1 ms a run.
    series = card.series.sort("tick").select("dimension", "tick", "value", "status")
    grouped: dict[str, list[EvidenceRow]] = {}
    for key, tick, value, status in series.rows():
        label, item = _tick_texts(tick)
        grouped.setdefault(str(key), []).append(EvidenceRow(
            label=label, value=value, status=None if status is None else sys.intern(status),
            item=item,
        ))  # fmt: skip
    return {key: tuple(rows) for key, rows in grouped.items()}


def reason_evidence(
    card: Any, reasons: pl.DataFrame, limit: int = MAX_REASON_ROWS
) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each dimension's deciding ticks as its evidence rows, in tick order, one row per
    tick (the reasons of a tick, and the status its window took there when it changed,
    joined): the tick's own reasons (``reasons``: :func:`tick_reasons` of the run) have
    the status they count as (FAIL: against the dimension; PASS: for it); a status
    change has the window's value and new status. At most ``limit`` rows a dimension,
    then one row saying how many ticks more."""
    at: dict[str, dict[int, dict[str, Any]]] = {}
    for r in reasons.iter_rows(named=True):
        row = at.setdefault(r["dimension"], {}).setdefault(r["tick"], {"notes": []})
        row["notes"].append(r["reason"])
        row.setdefault("status", r["status"])
        if r["status"] == "FAIL":
            row["status"] = "FAIL"
    changes = status_changes(card.series) if card.series is not None else reasons.clear()
    for c in changes.iter_rows(named=True):
        row = at.setdefault(c["dimension"], {}).setdefault(c["tick"], {"notes": []})
        became = (
            f"the window's status becomes {c['status']} (from {c['previous']})"
            if c["previous"]
            else f"the window's status from the first tick: {c['status']}"
        )
        row["notes"].append(became)
        row["value"] = c["value"]
        row.setdefault("status", c["status"])  # fmt: skip
    evidence: dict[str, tuple[EvidenceRow, ...]] = {}
    for key, ticks in at.items():
        rows = [
            EvidenceRow(label=f"tick {tick}", value=r.get("value"), status=r.get("status"),
                        note=" · ".join(dict.fromkeys(r["notes"])), item=f"tick-{tick}")
            for tick, r in sorted(ticks.items())
        ]  # fmt: skip
        if len(rows) > limit:
            more = len(rows) - limit
            rest = f"{more} more tick(s) with reasons, not listed (every tick is in the transcript)"
            rows = [*rows[:limit], EvidenceRow(label="more", note=rest)]
        evidence[key] = tuple(rows)
    return evidence


def _simulation_run(f: Found, card: Any, ticks: pl.DataFrame, reasons: pl.DataFrame) -> SiteRun:
    items = [_tick_item(t) for t in ticks.sort("tick").iter_rows(named=True)]
    meta = card.meta
    return SiteRun(
        id=f.id,
        family="simulation",
        card=replace(card, series=None),  # its rows are the evidence now: ~40 KB a run
        items=tuple(items),
        evidence=reason_evidence(card, reasons),
        charts=_series_points(card),
        source=f.path,
        size=size_of(f.path),
        time=text(meta.get("ended") or meta.get("started")) or None,
    )
