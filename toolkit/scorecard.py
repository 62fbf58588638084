"""The one scorecard shape every rubric returns, and its JSON form."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import field
from typing import Any

import polars as pl

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.frames import MEASURES_SCHEMA, SCORECARD_SCHEMA, slices
from toolkit.summary import draw_html

OK, WARN, FAIL, NA = "OK", "WARN", "FAIL", "N/A"

#: Order used to sort statuses worst first (unknown statuses sort after these).
STATUS_SEVERITY: dict[str, int] = {FAIL: 0, WARN: 1, NA: 2, OK: 3}


def format_value(value: float | None) -> str:
    """A score as shown to people: integers bare, other numbers to three decimals."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}"


@record  # eq, hash, repr: toolkit._record
class Dimension(FieldsEqual, FieldsRepr):
    """One scored dimension before it becomes a scorecard row.

    ``measures`` are its secondary numbers (name -> value, ``None`` when not measured),
    which become rows of :attr:`Scorecard.measures`.
    """

    key: str
    name: str
    value: float | None
    status: str
    detail: str
    green: str
    red: str
    measures: Mapping[str, float | None] = field(default_factory=dict)


@record  # eq, hash: toolkit._record
class Scorecard(FieldsEqual):
    """What a rubric says about one subject (a run, an iteration, a game).

    Attributes:
        rubric: the rubric's name, e.g. ``"simulation"``.
        rubric_version: the version of the rubric data that produced this card.
        subject: what was scored (a run slug, an iteration number, a game id).
        title: the header line of the text rendering.
        verdict: the overall verdict, in the rubric's own words.
        verdict_reason: why, naming the dimensions that decided it.
        dimensions: one row per dimension, schema :data:`toolkit.frames.SCORECARD_SCHEMA`
            (subject, dimension, name, value, status, detail, green, red).
        warnings: things the reader must know (skipped files, proxies used).
        meta: rubric-specific header facts, JSON-serialisable (window, tick counts...).
        series: optional per-tick (or per-item) time series for charts.
        measures: each dimension's secondary numbers, long form, schema
            :data:`toolkit.frames.MEASURES_SCHEMA` (subject, dimension, measure, value);
            empty for a rubric that reports none. In JSON they are each dimension's
            ``measures`` object.
    """

    rubric: str
    rubric_version: str
    subject: str
    title: str
    verdict: str
    verdict_reason: str
    dimensions: pl.DataFrame
    warnings: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    series: pl.DataFrame | None = None
    measures: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=MEASURES_SCHEMA))

    def __repr__(self) -> str:
        """Two lines: subject, rubric and verdict; then the status counts and the reason."""
        counts = self.dimensions.group_by("status", maintain_order=True).len().rows()
        tally = ", ".join(f"{n} {status}" for status, n in counts)
        reason = f" — {self.verdict_reason}" if self.verdict_reason else ""
        second = f"  {tally}{reason}"
        if len(second) > 100:
            second = second[:99] + "…"
        return (
            f"Scorecard: {self.title} · {self.verdict} (rubric {self.rubric} "
            f"{self.rubric_version})\n{second}"
        )

    def _repr_html_(self) -> str:
        """The HTML scorecard: a table with a badge per status, and the verdict
        (drawn by :func:`toolkit._html.render_card`, registered as "scorecard")."""
        rows = [
            (
                row["status"],
                row["name"],
                format_value(row["value"]),
                row["detail"],
                row["green"],
                row["red"],
            )
            for row in self.dimensions.iter_rows(named=True)
        ]
        return draw_html(
            "scorecard",
            self.title,
            rows,
            verdict=self.verdict,
            verdict_reason=self.verdict_reason,
            warnings=self.warnings,
            rubric=self.rubric,
            rubric_version=self.rubric_version,
        )

    @staticmethod
    def dimensions_frame(subject: str, dims: Iterable[Dimension]) -> pl.DataFrame:
        """Build the scorecard frame for ``subject`` from :class:`Dimension` records."""
        return Scorecard.dimensions_frames([(subject, dims)])[0]

    @staticmethod
    def dimensions_frames(
        subjects: Iterable[tuple[str, Iterable[Dimension]]],
    ) -> list[pl.DataFrame]:
        """:meth:`dimensions_frame` of each ``(subject, dims)``, as slices of one frame.

        A fleet's cards share one frame's memory instead of holding two small frames
        each (300 cards held about 9 MiB that way, docs/performance.md)."""

        def rows(subject: str, dims: Iterable[Dimension]) -> Iterator[dict[str, Any]]:
            for d in dims:
                yield {
                    "subject": subject,
                    "dimension": d.key,
                    "name": d.name,
                    "value": d.value,
                    "status": d.status,
                    "detail": d.detail,
                    "green": d.green,
                    "red": d.red,
                }

        return _sliced_rows(subjects, rows, SCORECARD_SCHEMA)

    @staticmethod
    def measures_frame(subject: str, dims: Iterable[Dimension]) -> pl.DataFrame:
        """The :attr:`measures` frame for ``subject`` from :class:`Dimension` records
        (schema :data:`toolkit.frames.MEASURES_SCHEMA`), in dimension order."""
        return Scorecard.measures_frames([(subject, dims)])[0]

    @staticmethod
    def measures_frames(
        subjects: Iterable[tuple[str, Iterable[Dimension]]],
    ) -> list[pl.DataFrame]:
        """:meth:`measures_frame` of each ``(subject, dims)``, as slices of one frame."""

        def rows(subject: str, dims: Iterable[Dimension]) -> Iterator[dict[str, Any]]:
            for d in dims:
                for name, value in d.measures.items():
                    yield {
                        "subject": subject,
                        "dimension": d.key,
                        "measure": name,
                        "value": None if value is None else float(value),
                    }

        return _sliced_rows(subjects, rows, MEASURES_SCHEMA)

    def measures_of(self, key: str) -> dict[str, float | None]:
        """Dimension ``key``'s secondary measures, name -> value (empty when none)."""
        rows = self.measures.filter(pl.col("dimension") == key)
        return dict(rows.select("measure", "value").iter_rows())

    def status_of(self, key: str) -> str:
        """The status of dimension ``key``."""
        row = self.dimensions.filter(pl.col("dimension") == key)
        if row.height != 1:
            raise KeyError(key)
        return str(row["status"][0])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the ``meta`` facts, then the rubric, verdict and dimensions
        (each with its ``measures``: name -> number, or null when not measured)."""
        measures: dict[str, dict[str, float | None]] = {}
        for dim, name, value in self.measures.select("dimension", "measure", "value").iter_rows():
            measures.setdefault(dim, {})[name] = value
        return {
            **dict(self.meta),
            "rubric": self.rubric,
            "rubric_version": self.rubric_version,
            "subject": self.subject,
            "verdict": self.verdict,
            "verdict_reason": self.verdict_reason,
            "dimensions": [
                {
                    "key": row["dimension"],
                    "name": row["name"],
                    "status": row["status"],
                    "score": row["value"],
                    "detail": row["detail"],
                    "green": row["green"],
                    "red": row["red"],
                    "measures": measures.get(row["dimension"], {}),
                }
                for row in self.dimensions.iter_rows(named=True)
            ],
            "warnings": list(self.warnings),
        }


def scorecards_frame(cards: Iterable[Scorecard]) -> pl.DataFrame:
    """Stack the dimension rows of many scorecards into one frame (same schema)."""
    frames = [c.dimensions for c in cards]
    if not frames:
        return pl.DataFrame(schema=SCORECARD_SCHEMA)
    return pl.concat(frames, how="vertical")


def measures_frame(cards: Iterable[Scorecard], *, wide: bool = False) -> pl.DataFrame:
    """Stack the secondary measures of many scorecards.

    Args:
        cards: scorecards of one rubric (or several).
        wide: one row per subject with a ``<dimension>.<measure>`` column per measure
            (for charts and gates over a fleet) instead of the long form.

    Returns:
        Long form: :data:`toolkit.frames.MEASURES_SCHEMA` (subject, dimension, measure,
        value). Wide: ``subject`` then one Float64 column per measure, in first-seen order.
    """
    frames = [c.measures for c in cards]
    long = pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=MEASURES_SCHEMA)
    if not wide:
        return long
    if long.height == 0:
        return pl.DataFrame(schema={"subject": pl.String()})
    keyed = long.with_columns(column=pl.format("{}.{}", "dimension", "measure"))
    order = keyed["column"].unique(maintain_order=True).to_list()
    out = keyed.pivot(on="column", index="subject", values="value", aggregate_function="first")
    return out.select("subject", *order)


def _sliced_rows(
    subjects: Iterable[tuple[str, Iterable[Dimension]]],
    rows: Callable[[str, Iterable[Dimension]], Iterator[dict[str, Any]]],
    schema: Mapping[str, pl.DataType],
) -> list[pl.DataFrame]:
    """One frame of every subject's ``rows``, cut into one zero-copy slice a subject."""
    every: list[dict[str, Any]] = []
    counts: list[int] = []
    for subject, dims in subjects:
        before = len(every)
        every.extend(rows(subject, dims))
        counts.append(len(every) - before)
    return slices(pl.DataFrame(every, schema=schema), counts)
