"""The one table renderer of notebooks and reports: a Polars frame drawn by great_tables.

A raw Polars repr is a developer's view (``shape: (10, 10)``, a dtype row, quoted strings,
``null``, prose right-aligned in narrow columns, ``0.666667``). :func:`show_table` draws
the same frame for a reader: numbers formatted to a fixed number of decimals and
right-aligned, text left-aligned, long prose wrapped in a wide column, missing values as
an em dash, headers without underscores, no dtype row, and status cells (``OK``, ``FAIL``,
``REGRESSION``, ...) filled from the one palette (:mod:`toolkit.views.palette`) with the
status symbol beside the word, so no status is told by colour alone.

great_tables is imported when a table is drawn, never by ``import toolkit`` or the CLI.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from toolkit.views.html import NO_MATHS
from toolkit.views.palette import SWATCHES, swatch

if TYPE_CHECKING:
    from great_tables import GT

#: A text column whose longest value is longer than this is prose: wrapped, wide.
PROSE_CHARS = 40
#: How wide a prose column is drawn (CSS), so that it wraps instead of stretching.
PROSE_WIDTH = "420px"
#: Shown for a missing value.
MISSING = "—"
#: At most this many rows are drawn by default; a note says how many were left out.
MAX_ROWS = 50


@dataclass(frozen=True)
class Table:
    """A frame drawn for reading: its HTML (great_tables) and a one-line text form.

    Attributes:
        frame: the rows shown (already cut to the row limit), with the original columns.
        html: the table as a self-contained HTML fragment.
        total_rows: how many rows the frame had before the cut.
    """

    frame: pl.DataFrame = field(repr=False)
    html: str = field(repr=False)
    total_rows: int

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        shown = self.frame.height
        rows = f"{shown} of {self.total_rows} rows" if shown < self.total_rows else f"{shown} rows"
        return f"<table: {rows}; {', '.join(self.frame.columns)}>"


def status_columns(frame: pl.DataFrame) -> list[str]:
    """The text columns whose every value is a status word of the palette (at least one)."""
    found = []
    for name, dtype in frame.schema.items():
        if dtype not in (pl.String, pl.Categorical, pl.Enum):
            continue
        values = frame.get_column(name).cast(pl.String).drop_nulls().unique().to_list()
        if values and all(v in SWATCHES for v in values):
            found.append(name)
    return found


def prose_columns(frame: pl.DataFrame) -> list[str]:
    """The text columns holding prose (a value longer than :data:`PROSE_CHARS`)."""
    found = []
    for name, dtype in frame.schema.items():
        if dtype == pl.String:
            longest = frame.get_column(name).str.len_chars().max()
            if isinstance(longest, int) and longest > PROSE_CHARS:
                found.append(name)
    return found


#: Dtypes shown by their text form.
_AS_TEXT = (pl.Date, pl.Duration, pl.Time, pl.Decimal, pl.Categorical, pl.Enum)


def _plain_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """Columns great_tables cannot format (lists, structs, objects, times) as text."""
    exprs: list[pl.Expr] = []
    for name, dtype in frame.schema.items():
        col = pl.col(name)
        if isinstance(dtype, pl.List | pl.Array):
            exprs.append(col.cast(pl.List(pl.String)).list.join(", ").alias(name))
        elif isinstance(dtype, pl.Struct | pl.Object):
            exprs.append(col.map_elements(str, return_dtype=pl.String).alias(name))
        elif isinstance(dtype, pl.Datetime):
            exprs.append(col.dt.strftime("%Y-%m-%d %H:%M:%S").alias(name))
        elif isinstance(dtype, _AS_TEXT) or dtype == pl.Null:
            exprs.append(col.cast(pl.String).alias(name))
        elif dtype == pl.Boolean:
            yes_no = pl.when(col).then(pl.lit("yes")).when(~col).then(pl.lit("no"))
            exprs.append(yes_no.alias(name))
    return frame.with_columns(exprs) if exprs else frame


def _label(name: str) -> str:
    return name.replace("_", " ")


def table_gt(
    frame: pl.DataFrame,
    *,
    title: str | None = None,
    decimals: int = 3,
    status: Sequence[str] | None = None,
    prose: Sequence[str] | None = None,
    labels: dict[str, str] | None = None,
    note: str | None = None,
) -> GT:
    """The great_tables object :func:`show_table` draws (to restyle it further).

    Args:
        frame: any Polars frame.
        title: a heading above the table.
        decimals: decimals of float columns (integers are shown whole).
        status: columns coloured as statuses (default: :func:`status_columns`).
        prose: columns wrapped as prose (default: :func:`prose_columns`).
        labels: header per column (default: the column name, underscores as spaces).
        note: a line under the table.
    """
    from great_tables import GT, loc, style  # great_tables (~0.8 s): only when a table is styled

    status = status_columns(frame) if status is None else list(status)
    prose = prose_columns(frame) if prose is None else list(prose)
    plain = _plain_columns(frame)
    digest = hashlib.sha1(plain.write_csv().encode("utf-8"), usedforsecurity=False)
    table = GT(plain, id=f"tk{digest.hexdigest()[:10]}")
    if title:
        table = table.tab_header(title=title)
    names = {c: (labels or {}).get(c, _label(c)) for c in plain.columns}
    table = table.cols_label(**names)  # type: ignore[arg-type]  # untyped kwargs
    floats = [c for c, t in plain.schema.items() if t.is_float()]
    if floats:
        table = table.fmt_number(columns=floats, decimals=decimals)
    text_columns = [c for c, t in plain.schema.items() if t == pl.String]
    if text_columns:
        table = table.cols_align("left", columns=text_columns)
    numeric = [c for c, t in plain.schema.items() if t.is_numeric()]
    if numeric:
        table = table.cols_align("right", columns=numeric)
    short = [c for c in text_columns if c not in prose]
    if short:  # an id or a word is never broken across lines; only prose wraps
        table = table.tab_style(
            style=style.css("white-space: nowrap;"), locations=loc.body(columns=short)
        )
    if prose:
        table = table.cols_width({c: PROSE_WIDTH for c in prose}).tab_style(
            style=style.css("white-space: normal; overflow-wrap: anywhere;"),
            locations=loc.body(columns=prose),
        )
    for column in status:
        values = plain.get_column(column).drop_nulls().unique().sort().to_list()
        for value in values:
            s = swatch(value)
            table = table.tab_style(
                style=[style.fill(color=s.fill), style.text(color=s.text, weight="bold")],
                locations=loc.body(columns=column, rows=pl.col(column) == value),
            )
        table = table.fmt(
            lambda v: MISSING if v is None else f"{swatch(str(v)).symbol} {v}",
            columns=column,
        )
    table = table.sub_missing(missing_text=MISSING)
    if note:
        table = table.tab_source_note(note)
    return table.tab_options(
        table_font_size="13px",
        data_row_padding="3px",
        column_labels_font_weight="bold",
        table_margin_left="0",
    )


def show_table(
    frame: pl.DataFrame,
    *,
    title: str | None = None,
    decimals: int = 3,
    max_rows: int | None = MAX_ROWS,
    status: Sequence[str] | None = None,
    prose: Sequence[str] | None = None,
    labels: dict[str, str] | None = None,
) -> Table:
    """A frame drawn for a notebook or report page (great_tables).

    Numbers have ``decimals`` decimals and are right-aligned; text is left-aligned; long
    prose wraps in a wide column; a missing value is an em dash; headers read with spaces;
    status columns (every value a status word, e.g. ``status``, ``verdict``) are filled
    from the palette with the status symbol beside the word. The HTML's element id is
    derived from the content, so a stored notebook diffs quietly.

    Args:
        frame: any Polars frame (list, struct and time columns are shown as text).
        title: a heading above the table.
        decimals: decimals of float columns.
        max_rows: draw at most this many rows (``None``: all); a note says how many.
        status: columns coloured as statuses (default: detected from their values).
        prose: columns wrapped as prose (default: text longer than 40 characters).
        labels: header per column (default: the column name with spaces).

    Returns:
        A :class:`Table` (``_repr_html_`` for notebooks; ``.html`` for pages).
    """
    total = frame.height
    shown = frame if max_rows is None or total <= max_rows else frame.head(max_rows)
    note = f"First {shown.height} of {total} rows." if shown.height < total else None
    if total == 0:
        note = "No rows."
    table = table_gt(
        shown,
        title=title,
        decimals=decimals,
        status=status,
        prose=prose,
        labels=labels,
        note=note,
    )
    fragment = table.as_raw_html(inline_css=False)
    return Table(shown, _wrap(fragment), total)


def _wrap(fragment: str) -> str:
    """The table inside a wrapper that MathJax skips (``$`` in a cell is not maths)."""
    return f"<div class='tk-html tk-gt {html.escape(NO_MATHS)}'>{fragment}</div>"
