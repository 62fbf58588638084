"""Notebook set-up shared by every curated notebook, and the chart renderer of reports."""

from __future__ import annotations

import base64
import html
import json
import os
from typing import Any, Literal

import polars as pl

#: Environment variable that picks the chart renderer when ``setup_notebook`` is not told.
RENDERER_ENV = "TOOLKIT_NOTEBOOK_RENDERER"
#: The Altair renderer registered for reports (see :func:`report_chart_html`).
REPORT_RENDERER = "toolkit-report"
#: The ``class`` of every chart's spec element in a report (a JSON ``<script>``).
SPEC_CLASS = "toolkit-vega-spec"

#: The Altair renderer of stored notebooks (see :func:`stored_chart_bundle`).
STORED_RENDERER = "toolkit-stored"

Renderer = Literal["jupyter", "report", "stored"]


def vega_lite_mime() -> str:
    """The MIME type of a Vega-Lite spec in a notebook, for Altair's Vega-Lite major version.

    Altair 6 names it ``application/vnd.vegalite.v6.json``, which nbformat does not take
    for JSON (its schema wants ``+json``), so a stored notebook with it would not validate.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    return f"application/vnd.vegalite.v{alt.VEGALITE_VERSION.split('.')[0]}+json"


#: How much finer than its CSS size a stored chart's PNG is drawn (1: about 100 KB for the
#: largest chart; 2 is sharper on hi-dpi screens and three times the size).
STORED_PNG_SCALE = 1.0


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


def _plain(spec: dict[str, Any]) -> str:
    title = spec.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return f"<chart: {html.unescape(str(text))}>" if isinstance(text, str) and text else "<chart>"


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def chart_png(spec: dict[str, Any]) -> tuple[str, int, int]:
    """The chart drawn headless (vl-convert) as base64 PNG, with its CSS width and height
    (the PNG itself is :data:`STORED_PNG_SCALE` times finer)."""
    import vl_convert  # vl_convert: off the light paths (HEAVY, tests/test_startup_imports.py)

    png = vl_convert.vegalite_to_png(spec, scale=STORED_PNG_SCALE)
    width, height = _png_size(png)
    return (
        base64.b64encode(png).decode("ascii"),
        round(width / STORED_PNG_SCALE),
        round(height / STORED_PNG_SCALE),
    )


def stored_chart_bundle(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One chart as a static mimebundle, for notebooks stored with their outputs: the
    Vega-Lite spec (:func:`vega_lite_mime`), a PNG of it (what GitHub, nbviewer and a
    JupyterLab without a Vega-Lite 6 renderer show), and a one-line text form.

    Deterministic: the same spec gives the same bytes (no random ids), so stored
    notebooks diff quietly.
    """
    png, width, height = chart_png(spec)
    bundle = {vega_lite_mime(): spec, "image/png": png, "text/plain": _plain(spec)}
    return bundle, {"image/png": {"width": width, "height": height}}


def stored_mode() -> bool:
    """True inside a kernel that stores its notebook (``notebooks/refresh.py`` sets
    :data:`RENDERER_ENV` to ``"stored"``): charts and widgets add static renderings."""
    return os.environ.get(RENDERER_ENV) == "stored"


def static_chart_html(chart: Any) -> str:
    """An Altair chart as an ``<img>`` (a PNG data URI) for a widget's static fallback."""
    png, width, height = chart_png(chart.to_dict())
    return (
        f"<img src='data:image/png;base64,{png}' width='{width}' height='{height}' "
        f"alt='{html.escape(_plain(chart.to_dict()))}'>"
    )


class StaticFallback:
    """Mixin for our ipywidgets: in a stored notebook (:func:`stored_mode`) the widget's
    mimebundle also carries ``text/html``, a static picture of what it shows now (widget
    state is not stored, so without it a saved notebook shows only ``VBox(...)``)."""

    def _static_html(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        if stored_mode() and isinstance(bundle, dict):
            bundle["text/html"] = self._static_html()
            bundle["text/plain"] = f"<{type(self).__name__}: interactive when the notebook runs>"
        return bundle


def setup_notebook(renderer: Renderer | None = None) -> None:
    """Configure Altair and Polars for the curated notebooks.

    Args:
        renderer: ``"jupyter"`` (the default in a notebook): Altair's ``jupyter``
            renderer in offline mode, interactive (selections work), with the Vega
            JavaScript bundled instead of fetched from a CDN, and no random element ids in
            the stored text output. ``"report"``: each chart becomes static HTML that
            embeds its spec and draws with ``vegaEmbed`` from a script the report page
            carries once (what ``toolkit report`` uses; an anywidget chart does not survive
            HTML export). ``"stored"``: a static mimebundle per chart (its Vega-Lite spec
            and a PNG, see :func:`stored_chart_bundle`), which ``notebooks/refresh.py``
            uses so that stored notebooks show their charts on GitHub and nbviewer.
            ``None`` reads :data:`RENDERER_ENV` (``TOOLKIT_NOTEBOOK_RENDERER``), falling
            back to ``"jupyter"``.

    Polars tables show wide text columns in full enough to read evidence. Altair is
    imported here (not when the toolkit is), and the toolkit's renderers registered.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    alt.renderers.register(REPORT_RENDERER, _report_renderer)
    alt.renderers.register(STORED_RENDERER, stored_chart_bundle)
    chosen = renderer or os.environ.get(RENDERER_ENV) or "jupyter"
    if chosen == "report":
        alt.renderers.enable(REPORT_RENDERER)
    elif chosen == "stored":
        alt.renderers.enable(STORED_RENDERER)
    elif chosen == "jupyter":
        alt.renderers.enable("jupyter", offline=True)
    else:
        raise ValueError(f"unknown renderer {chosen!r}: expected 'jupyter', 'report' or 'stored'")
    alt.data_transformers.disable_max_rows()
    pl.Config.set_tbl_rows(30)
    pl.Config.set_fmt_str_lengths(120)
    pl.Config.set_tbl_width_chars(200)


def report_mode() -> bool:
    """True inside a kernel that ``toolkit report`` started (charts render as report HTML)."""
    return os.environ.get(RENDERER_ENV) == "report"
