"""Notebook set-up shared by every curated notebook."""

from __future__ import annotations

import altair as alt
import polars as pl


def setup_notebook() -> None:
    """Configure Altair and Polars for the curated notebooks.

    Charts render through Altair's ``jupyter`` renderer in offline mode: interactive
    (selections work), with the Vega JavaScript bundled instead of fetched from a CDN,
    and with no random element ids in the stored text output. Polars tables show wide
    text columns in full enough to read evidence.
    """
    alt.renderers.enable("jupyter", offline=True)
    alt.data_transformers.disable_max_rows()
    pl.Config.set_tbl_rows(30)
    pl.Config.set_fmt_str_lengths(120)
    pl.Config.set_tbl_width_chars(200)
