"""Each run's input digest, computed for a whole fleet from one JSON-lines write a range of
runs (issue 38), is the digest of the run's own rows: ``input_digest`` over each frame's
``rows_bytes`` of the rows whose slug is the run's, whatever the ranges, the order of the
rows and the text in them."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.epoch import input_digest, rows_bytes
from toolkit.rubrics.simulation.digests import input_digests, run_rows_bytes


def reference_digests(universe: tk.Universe) -> dict[str, str]:
    """The definition, run by run: each frame's rows of the slug, without the columns
    naming where a row was read from, as JSON lines."""
    slugs = set(universe.slugs)
    parts: dict[str, list[tuple[str, bytes]]] = {}
    for name in ("ticks", "batches", "checkpoints"):
        frame = getattr(universe, name)
        if "slug" not in frame.columns:
            continue
        slugs |= set(frame["slug"].unique().to_list())
        kept = [c for c in frame.columns if c != "path" and not c.endswith(("_file", "_path"))]
        for slug in frame["slug"].unique().to_list():
            rows = frame.filter(pl.col("slug") == slug).select(kept)
            parts.setdefault(slug, []).append((name, rows_bytes(rows)))
    return {slug: input_digest(parts.get(slug, [])) for slug in slugs}


@pytest.mark.parametrize("folder", ["fleet", "universes", "compare/a"])
@pytest.mark.parametrize("chunk_rows", [1, 97, 8_192])
def test_each_runs_digest_is_the_digest_of_its_own_rows(folder: str, chunk_rows: int) -> None:
    universe = tk.load_universes(SAMPLE_RUNS / folder / "*")
    expected = reference_digests(universe)
    assert input_digests(universe, chunk_rows) == expected
    assert len(set(expected.values())) == len(universe.slugs) >= 3  # a digest a run


def test_runs_whose_rows_are_apart_keep_the_digest_of_their_rows_in_order() -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "universes" / "*")
    # rows ordered by tick alone: the runs' rows interleave, each run's keep their order
    apart = dataclasses.replace(
        universe,
        ticks=universe.ticks.sort("tick", maintain_order=True),
        checkpoints=universe.checkpoints.sort("tick", maintain_order=True),
    )
    assert apart.ticks["slug"].rle_id().max() + 1 > len(apart.slugs)  # really apart
    assert input_digests(apart, 50) == input_digests(universe) == reference_digests(universe)


def test_a_run_without_rows_gets_the_digest_of_nothing() -> None:
    universe = tk.load_universes(SAMPLE_RUNS / "universes" / "*")
    empty = dataclasses.replace(universe, paths={**universe.paths, "ghost": SAMPLE_RUNS / "ghost"})
    assert "ghost" in empty.slugs
    assert input_digests(empty)["ghost"] == input_digest([])


def test_rows_are_cut_at_line_ends_whatever_their_text() -> None:
    texts = ["a\nb", "\u2028 line separator", 'quote " and \\', "é 🎲 \r\n", "", None, "x" * 3000]
    frame = pl.DataFrame(
        {
            "slug": ["s1", "s1", "s2", "s3", "s3", "s3", None, None, "s4", "s4", "s5"],
            "text": [texts[i % len(texts)] for i in range(11)],
            "n": list(range(11)),
        }
    )
    for chunk_rows in (1, 2, 4, 100):
        got = {slug: bytes(rows) for slug, rows in run_rows_bytes(frame, chunk_rows)}
        expected = {
            str(slug): rows_bytes(frame.filter(pl.col("slug").eq_missing(slug)))
            for slug in frame["slug"].unique().to_list()
        }
        assert got == expected
        assert got["None"].count(b"\n") == 2 and b"a\\nb" in got["s1"]


@pytest.mark.parametrize("slug_first", [True, False])
def test_runs_are_cut_where_the_next_run_begins_whatever_the_slugs(slug_first: bool) -> None:
    # slugs that begin other slugs, quoted, escaped, null; texts that spell a line's start
    slugs = ["run-1", "run-10", "run-1", 'run-1"', "run-1\\", None, "run-100", "é", "\n"]
    heads = ['{"slug":"run-10",', '\n{"slug":"run-100"}', '{"slug":null,', '"slug":"é"']
    rows = [(s, heads[i % len(heads)], i) for i, s in enumerate(s for s in slugs for _ in (0, 1))]
    frame = pl.DataFrame(rows, schema=["slug", "text", "n"], orient="row")
    frame = frame.sort("slug", maintain_order=True, nulls_last=True)  # each run's rows together
    if not slug_first:  # a line's start then says nothing of its run
        frame = frame.select("text", "slug", "n")
    for chunk_rows in (1, 3, 100):
        got = {slug: bytes(rows) for slug, rows in run_rows_bytes(frame, chunk_rows)}
        expected = {
            str(slug): rows_bytes(frame.filter(pl.col("slug").eq_missing(slug)))
            for slug in frame["slug"].unique().to_list()
        }
        assert got == expected
        assert got["run-1"].count(b"\n") == 4  # its two runs of rows, sorted together
