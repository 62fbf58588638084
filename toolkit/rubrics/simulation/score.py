"""Scoring a fleet of simulation runs: the window scores a chunk of whole runs at a
time, the fan-out, the series, then one scorecard per run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.epoch import spec_epoch, stamp
from toolkit.frames import ENGINE
from toolkit.load.universe import Universe
from toolkit.rubrics.simulation._values import DEFAULT_VALUES as DEFAULT_RUBRIC
from toolkit.rubrics.simulation.card import run_card
from toolkit.rubrics.simulation.digests import input_digests
from toolkit.rubrics.simulation.dimensions import (
    dimension_ranges,
    dimension_rows,
    grounded_source_of,
)
from toolkit.rubrics.simulation.fanout import fanout_series
from toolkit.rubrics.simulation.features import run_history
from toolkit.rubrics.simulation.windows import scored_window, window_scores
from toolkit.scorecard import Scorecard

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric

#: Scoring takes the runs of a fleet about this many ticks at a time (whole runs; one
#: chunk when a run's rows are not contiguous). Each chunk's temporaries are freed before
#: the next is scored, and Polars' allocator reuses those pages, so scoring does not
#: raise a fleet load's peak memory (issue 25). 27 runs of 300 ticks a chunk: scoring
#: the 300-run fleet added about 7 MiB above the load's peak at 16,384 ticks a chunk and
#: nothing at 8,192, for about 0.04 s more CPU (twelve passes instead of six). A fleet
#: of up to twice this many ticks is scored in one pass.
SCORE_CHUNK_TICKS = 8_192


def run_chunks(slugs: pl.Series, size: int = SCORE_CHUNK_TICKS) -> list[tuple[int, int]]:
    """Row ranges (offset, length) of ``slugs`` that each hold whole runs, about ``size``
    rows a range (a run larger than ``size`` is a range of its own).

    Exact only when each run's rows are contiguous (as a load leaves them); otherwise the
    whole column is one range, so a run is never split across ranges.
    """
    runs = slugs.rle().struct.unnest()  # (its field read without a query of its own)
    if runs.height != slugs.n_unique():  # a run's rows apart: one range
        return [(0, slugs.len())]
    chunks: list[tuple[int, int]] = []
    start = length = 0
    for count in runs["len"].to_list():
        if length and length + count > size:
            chunks.append((start, length))
            start, length = start + length, 0
        length += count
    chunks.append((start, length))
    return chunks


def score_universe(
    universe: Universe,
    rubric: SimulationRubric = DEFAULT_RUBRIC,
    window: int | None = None,
    *,
    series: bool = True,
    inputs: Mapping[str, str] | None = None,
) -> list[Scorecard]:
    """Score every run held by ``universe`` (one scorecard per slug, in load order).

    The fleet is scored by ``group_by`` passes (:func:`window_scores`), each over whole
    runs of about :data:`SCORE_CHUNK_TICKS` ticks (:func:`run_chunks`; the same scores as
    one pass, at a smaller peak memory), the graph fan-out in one pass over the
    checkpoints, and the per-tick series, when wanted, in one rolling pass
    (:func:`dimension_series`).

    Args:
        universe: one or more loaded runs.
        rubric: the rubric data (default: version 1.2.0).
        window: W, the number of most recent ticks scored (default: ``rubric.window``).
        series: attach each run's per-tick series to its card (for charts); a fleet
            overview that needs only the cards can skip it.
        inputs: each run's input digest when the caller already has it (from an earlier
            card of the same loaded runs: a sweep scores one fleet many times, and the
            digest, which hashes every row, is half the cost of a scoring).
    """
    w = scored_window(window, rubric)
    last, spans = _last_windows(universe, rubric, w)
    fan_at = _fanout_at(last, universe, rubric)
    batched = dict(
        universe.batches.filter(pl.col("kind") == "batch")
        .group_by("slug")
        .agg(pl.col("tick_count").sum())
        .iter_rows()
    )
    rows = {r["slug"]: r for r in last.iter_rows(named=True)}
    fans = {r["slug"]: r for r in fan_at.iter_rows(named=True)}
    extents = {r["slug"]: r for span in spans for r in span.iter_rows(named=True)}
    per_run_series: dict[Any, pl.DataFrame] = {}
    if series:  # (its module only when asked: a command line draws no chart)
        from toolkit.rubrics.simulation.series import series_chunks

        for part in series_chunks(universe, rubric, w, _chunks(universe)):
            per_run_series.update(part.partition_by("slug", as_dict=True))
    issues = _issues_by_run(universe)
    warnings = _warnings_by_run(universe)
    slugs = universe.slugs
    sources = {slug: grounded_source_of(rows.get(slug)) for slug in slugs}
    ranges = dimension_ranges(rubric)  # (the rubric's: once, not once a run)
    dims = {
        slug: dimension_rows(rows.get(slug), fans.get(slug), rubric, sources[slug], ranges)
        for slug in slugs
    }
    # Every card's frames are slices of one frame (two small frames a card cost ~30 KiB).
    dimension_frames = Scorecard.dimensions_frames([(slug, dims[slug]) for slug in slugs])
    measure_frames = Scorecard.measures_frames([(slug, dims[slug]) for slug in slugs])
    epoch = spec_epoch(rubric, window=w)
    digests = dict(inputs) if inputs is not None else input_digests(universe)
    cards = [
        run_card(
            slug,
            universe.names[slug],
            rubric,
            w,
            rows.get(slug),
            issues.get(slug, []),
            warnings.get(slug, []),
            int(batched.get(slug) or 0),
            extents.get(slug, {}),
            per_run_series.get((slug,)),
            (dims[slug], sources[slug], dimension_frames[i], measure_frames[i]),
        )
        for i, slug in enumerate(slugs)
    ]
    epoch_id = epoch.id  # (a hash of the rubric's data: once, not once a card)
    return [stamp(card, epoch_id, digests.get(card.subject)) for card in cards]


def _chunks(universe: Universe) -> list[tuple[int, int]]:
    """The row ranges the fleet is scored in (:func:`run_chunks`). A fleet of up to two
    chunks is one pass: its temporaries are small, and a pass's fixed cost (about 7 ms)
    is not."""
    height = universe.ticks.height
    size = SCORE_CHUNK_TICKS if height > 2 * SCORE_CHUNK_TICKS else max(height, 1)
    return run_chunks(universe.ticks["slug"], size)


def _last_windows(
    universe: Universe, rubric: SimulationRubric, w: int
) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """The window scores of every run (one row a run) and, per chunk, each run's extent
    (ticks loaded, first and last timestamp): one ``collect_all`` a chunk."""
    history = run_history(universe, rubric)
    # Whole runs a chunk at a time: each chunk's temporaries are reused by the next.
    parts: list[pl.DataFrame] = []
    spans: list[pl.DataFrame] = []
    for offset, length in _chunks(universe):
        chunk = universe.ticks.slice(offset, length)
        extent = (
            chunk.lazy()
            .group_by("slug")
            .agg(
                ticks_loaded=pl.len(),
                started=pl.col("timestamp").min(),
                ended=pl.col("timestamp").max(),
            )
        )
        plans = [extent, window_scores(chunk, rubric, w, history)] if length else [extent]
        done = pl.collect_all(plans, engine=ENGINE)
        spans.append(done[0])
        parts.extend(done[1:])
    last = (
        pl.concat(parts)
        if parts
        else pl.DataFrame({"slug": [], "tick": []}, schema={"slug": pl.String, "tick": pl.Int64})
    )
    return last, spans


def _fanout_at(last: pl.DataFrame, universe: Universe, rubric: SimulationRubric) -> pl.DataFrame:
    """Each run's graph fan-out at the last checkpoint at or before its last scored tick."""
    fan = fanout_series(universe.checkpoints, rubric).with_columns(cp_tick=pl.col("tick"))
    return (
        last.lazy()
        .select("slug", "tick")
        .sort("tick")
        .join_asof(fan.sort("tick"), on="tick", by="slug", strategy="backward",
                   check_sortedness=False)
        .filter(pl.col("cp_tick").is_not_null())
        .drop("tick")
        .rename({"cp_tick": "tick"})
        .collect(engine=ENGINE)
    )  # fmt: skip


def _issues_by_run(universe: Universe) -> dict[str, list[dict[str, Any]]]:
    """The load issues of each run: those whose path lies under the run's folder."""
    roots = {str(p): slug for slug, p in universe.paths.items()}
    issues: dict[str, list[dict[str, Any]]] = {}
    for issue in universe.issues.iter_rows(named=True):
        for parent in Path(issue["path"] or "").parents:
            if str(parent) in roots:
                issues.setdefault(roots[str(parent)], []).append(issue)
                break
    return issues


def _warnings_by_run(universe: Universe) -> dict[str, list[str]]:
    """The load warnings of each run (``slug: text``), without the slug."""
    warnings: dict[str, list[str]] = {}
    for text in universe.warnings:
        slug, _, rest = text.partition(": ")
        warnings.setdefault(slug, []).append(rest)
    return warnings
