"""What a load of token-world runs gives: :class:`Universe`, its typed frames, and how
loads of several runs stack into one (:func:`combine`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

import polars as pl

from toolkit._record import FieldsEqual, record
from toolkit.errors import InputError
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
)
from toolkit.summary import Shows, Summary, issue_notes, plural

__all__ = ["Universe", "combine", "frame", "issue_row"]


@record  # eq, hash: toolkit._record
class Universe(FieldsEqual, Shows):
    """One or more loaded runs.

    Attributes:
        ticks: one row per tick (:data:`toolkit.frames.TICKS_SCHEMA`), sorted by slug, tick.
        batches: compressed records (:data:`toolkit.frames.BATCHES_SCHEMA`).
        checkpoints: graph snapshots from ``universe.db`` (slug, tick, node_count,
            edge_count).
        issues: files that could not be used (path, line, reason).
        warnings: leniencies applied while loading (one sentence each).
        names: display name per slug (``name`` in universe.yaml, else the slug titled).
        paths: folder per slug.
        conserved: conserved properties per slug (from conservation.yaml).
    """

    ticks: pl.DataFrame
    batches: pl.DataFrame
    checkpoints: pl.DataFrame
    issues: pl.DataFrame
    warnings: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    conserved: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def _summary(self) -> Summary:
        slugs = self.slugs
        shown = ", ".join(slugs[:3]) + (f", … {len(slugs) - 3} more" if len(slugs) > 3 else "")
        return Summary(
            "Universe",
            f"{plural(len(slugs), 'run')} ({shown or 'nothing loaded'})",
            (
                ("ticks", self.ticks.height),
                ("compressed records", self.batches.height),
                ("checkpoints", self.checkpoints.height),
                ("issues", self.issues.height),
                ("warnings", len(self.warnings)),
            ),
            notes=issue_notes(self.issues.iter_rows(named=True)) + self.warnings,
            notes_title="issues and warnings",
        )

    @property
    def slugs(self) -> list[str]:
        """The runs held, in load order."""
        return list(self.paths)

    @property
    def slug(self) -> str:
        """The slug of a single-run load."""
        if len(self.paths) != 1:
            raise ValueError(f"this load holds {len(self.paths)} runs; use .run(slug)")
        return next(iter(self.paths))

    def run(self, slug: str) -> Universe:
        """The part of this load that belongs to ``slug``."""
        if slug not in self.paths:
            raise KeyError(slug)
        root = str(self.paths[slug])
        path = pl.col("path")
        inside = (path == root) | path.str.starts_with(root.rstrip("/\\") + "/")
        if os.sep != "/":
            inside = inside | path.str.starts_with(root.rstrip("/\\") + os.sep)
        return Universe(
            ticks=self.ticks.filter(pl.col("slug") == slug),
            batches=self.batches.filter(pl.col("slug") == slug),
            checkpoints=self.checkpoints.filter(pl.col("slug") == slug),
            issues=self.issues.filter(inside),
            warnings=tuple(w for w in self.warnings if self._warning_of(w) == slug),
            names={slug: self.names[slug]},
            paths={slug: self.paths[slug]},
            conserved={slug: self.conserved.get(slug, ())},
        )

    def _warning_of(self, warning: str) -> str | None:
        """The run a warning (``"<slug>: ..."``) is about: the longest slug it starts
        with, so that run ``vale`` is not given the warnings of a run named ``vale: x``."""
        owners = [s for s in self.paths if warning.startswith(f"{s}:")]
        return max(owners, key=len) if owners else None

    @property
    def loadable(self) -> bool:
        """Whether anything at all could be read (ticks or compressed records)."""
        return self.ticks.height > 0 or self.batches.height > 0


def combine(universes: Sequence[Universe]) -> Universe:
    """Stack loads of several runs into one :class:`Universe` with the same frames."""
    if not universes:
        return Universe(
            ticks=pl.DataFrame(schema=TICKS_SCHEMA),
            batches=pl.DataFrame(schema=BATCHES_SCHEMA),
            checkpoints=pl.DataFrame(schema=CHECKPOINTS_SCHEMA),
            issues=pl.DataFrame(schema=LOAD_ISSUES_SCHEMA),
        )
    return Universe(
        ticks=pl.concat([u.ticks for u in universes], rechunk=False),
        batches=pl.concat([u.batches for u in universes]),
        checkpoints=pl.concat([u.checkpoints for u in universes]),
        issues=pl.concat([u.issues for u in universes]),
        warnings=tuple(w for u in universes for w in u.warnings),
        names={k: v for u in universes for k, v in u.names.items()},
        paths={k: v for u in universes for k, v in u.paths.items()},
        conserved={k: v for u in universes for k, v in u.conserved.items()},
    )


_EMPTY: dict[int, pl.DataFrame] = {}


def frame(rows: Sequence[Mapping[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``rows`` as a frame of ``schema`` (one of :mod:`toolkit.frames`' schemas). An empty
    one is built once per schema and shared (frames are immutable): most runs have no
    batch record and no issue, and building an empty frame costs about 0.1 ms."""
    if rows:
        return pl.DataFrame(rows, schema=schema)
    empty = _EMPTY.get(id(schema))
    if empty is None:
        empty = _EMPTY[id(schema)] = pl.DataFrame(schema=schema)
    return empty


def issue_row(err: InputError) -> dict[str, Any]:
    """A problem as a row of the issues frame (path, line, reason)."""
    return {"path": err.path, "line": err.line, "reason": str(err)}
