"""Notebook set-up shared by every curated notebook, and the chart renderer of reports."""

from __future__ import annotations

import html
import json
import os
from typing import Any, Literal

#: Environment variable that picks the chart renderer when ``setup_notebook`` is not told.
RENDERER_ENV = "TOOLKIT_NOTEBOOK_RENDERER"
#: The Altair renderer registered for reports (see :func:`report_chart_html`).
REPORT_RENDERER = "toolkit-report"
#: The ``class`` of every chart's spec element in a report (a JSON ``<script>``).
SPEC_CLASS = "toolkit-vega-spec"

Renderer = Literal["jupyter", "report"]


def _spec_json(spec: dict[str, Any]) -> str:
    """The spec as JSON that is safe inside a ``<script>`` element."""
    return json.dumps(spec, separators=(",", ":")).replace("</", "<\\/")


def report_chart_html(spec: dict[str, Any]) -> str:
    """One chart as report HTML: a container, its Vega-Lite spec as JSON, and a call to
    ``vegaEmbed``.

    The Vega JavaScript itself is not in this fragment: the report page carries it once
    (``vl_convert.javascript_bundle()``), so a report with ten charts holds one copy. The
    spec sits in a ``<script type="application/json" class="toolkit-vega-spec">`` element,
    which a test (or a reader) can parse back.
    """
    payload = _spec_json(spec)
    return (
        '<div class="toolkit-chart">'
        '<div class="toolkit-chart-view"></div>'
        f'<script type="application/json" class="{SPEC_CLASS}">{payload}</script>'
        "<script>(function(){"
        "var box=document.currentScript.parentElement;"
        'var view=box.querySelector(".toolkit-chart-view");'
        f'var spec=JSON.parse(box.querySelector(".{SPEC_CLASS}").textContent);'
        'if(typeof vegaEmbed!=="function"){view.textContent="(chart: the Vega JavaScript '
        'is not loaded)";return;}'
        'vegaEmbed(view,spec,{actions:false,renderer:"svg"}).catch(function(e){'
        'view.textContent="chart error: "+e.message;});'
        "})();</script></div>"
    )


def _report_renderer(spec: dict[str, Any], **_: Any) -> dict[str, str]:
    title = spec.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    plain = f"<chart: {html.unescape(str(text))}>" if text else "<chart>"
    return {"text/html": report_chart_html(spec), "text/plain": plain}


def setup_notebook(renderer: Renderer | None = None) -> None:
    """Configure Altair and Polars for the curated notebooks.

    Args:
        renderer: ``"jupyter"`` (the default in a notebook): Altair's ``jupyter``
            renderer in offline mode, interactive (selections work), with the Vega
            JavaScript bundled instead of fetched from a CDN, and no random element ids in
            the stored text output. ``"report"``: each chart becomes static HTML that
            embeds its spec and draws with ``vegaEmbed`` from a script the report page
            carries once (what ``toolkit report`` uses; an anywidget chart does not survive
            HTML export). ``None`` reads :data:`RENDERER_ENV` (``TOOLKIT_NOTEBOOK_RENDERER``),
            falling back to ``"jupyter"``.

    Polars tables show wide text columns in full enough to read evidence.
    """
    import altair as alt
    import polars as pl

    alt.renderers.register(REPORT_RENDERER, _report_renderer)
    chosen = renderer or os.environ.get(RENDERER_ENV) or "jupyter"
    if chosen == "report":
        alt.renderers.enable(REPORT_RENDERER)
    elif chosen == "jupyter":
        alt.renderers.enable("jupyter", offline=True)
    else:
        raise ValueError(f"unknown renderer {chosen!r}: expected 'jupyter' or 'report'")
    alt.data_transformers.disable_max_rows()
    pl.Config.set_tbl_rows(30)
    pl.Config.set_fmt_str_lengths(120)
    pl.Config.set_tbl_width_chars(200)


def report_mode() -> bool:
    """True inside a kernel that ``toolkit report`` started (charts render as report HTML)."""
    return os.environ.get(RENDERER_ENV) == "report"
