"""Notebook set-up shared by every curated notebook, and the chart renderer of reports."""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import sys
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

import polars as pl

from toolkit.io.atomic import write_text_atomic

#: Environment variable that picks the chart renderer when ``setup_notebook`` is not told.
RENDERER_ENV = "TOOLKIT_NOTEBOOK_RENDERER"
#: The Altair renderer registered for reports (see :func:`report_chart_html`).
REPORT_RENDERER = "toolkit-report"
#: The ``class`` of every chart's spec element in a report (a JSON ``<script>``).
SPEC_CLASS = "toolkit-vega-spec"

#: The Altair renderer of stored notebooks (see :func:`stored_chart_bundle`).
STORED_RENDERER = "toolkit-stored"

#: The Altair renderer of live notebooks (see :func:`jupyter_chart_bundle`).
JUPYTER_RENDERER = "toolkit-jupyter"

#: Where the widget's offline JavaScript is kept between kernels (default:
#: ``$XDG_CACHE_HOME/toolkit``, else ``~/.cache/toolkit``; the variable ``toolkit report``
#: reads for its Vega bundle too).
CACHE_ENV = "TOOLKIT_CACHE_DIR"

#: The top-level key of each compound Vega-Lite spec, and the Altair class that holds it.
_TOP_LEVEL = (
    ("vconcat", "VConcatChart"),
    ("hconcat", "HConcatChart"),
    ("concat", "ConcatChart"),
    ("layer", "LayerChart"),
    ("facet", "FacetChart"),
    ("repeat", "RepeatChart"),
)

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


def cache_dir() -> Path:
    """The toolkit's cache folder: ``$TOOLKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/toolkit``
    (``~/.cache/toolkit``); the built Vega bundles are kept there."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolkit"


def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def offline_widget_js() -> str:
    """The JavaScript of Altair's chart widget with Vega bundled in (no CDN), as
    ``alt.JupyterChart.enable_offline()`` builds it.

    Building it costs 2-3 s of CPU (vl-convert bundles Vega, Vega-Lite and vega-embed), and
    Altair builds it again in every kernel. It depends only on the Altair and vl-convert
    versions, so it is built once per pair and kept in the cache folder (:data:`CACHE_ENV`;
    written atomically; an unwritable cache only costs the rebuild).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    name = (
        f"jupyter-chart-altair-{_package_version('altair')}"
        f"-vlc-{_package_version('vl-convert-python')}.js"
    )

    def build() -> str:
        alt.JupyterChart.enable_offline(offline=True)
        return str(alt.JupyterChart._esm)  # anywidget's documented name for a widget's module

    return cached_text(name, build)


def cached_text(name: str, build: Callable[[], str]) -> str:
    """The text kept as ``name`` in :func:`cache_dir`, else ``build()``'s, kept there
    (written atomically; an unwritable or unreadable cache only costs the rebuild)."""
    cached = cache_dir() / name
    try:
        return cached.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    text = build()
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(cached, text, durable=False)
    except OSError:
        pass
    return text


@functools.cache
def _offline_chart_class() -> type[Any]:
    """``alt.JupyterChart`` with :func:`offline_widget_js` as its module (one per process)."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    # Altair's module and name: the widget's text form stays what Altair's renderer shows
    cls = type("JupyterChart", (alt.JupyterChart,), {"__module__": alt.JupyterChart.__module__})
    cls._esm = offline_widget_js()  # type: ignore[attr-defined]  # anywidget reads it per widget
    return cls


def chart_from_spec(spec: dict[str, Any]) -> Any:
    """The Altair chart object of a spec the toolkit's charts wrote (via ``to_dict``, which
    validated it): not validated again. Its class is read from the spec's top-level key.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    name = next((cls for key, cls in _TOP_LEVEL if key in spec), "Chart")
    if name == "Chart":
        return alt.Chart.from_dict(spec, validate=False)
    chart_class: Any = getattr(alt, name)
    return chart_class.from_dict(spec, validate=False)


def jupyter_chart_bundle(spec: dict[str, Any], **metadata: Any) -> Any:
    """One chart as Altair's interactive widget (``alt.JupyterChart``) offline, as Altair's
    ``jupyter`` renderer with ``offline=True`` shows it, for a fraction of the CPU: Altair's
    renderer rebuilds the chart with ``from_dict``, which validates the spec, then each
    anyOf branch and each object made (about 1.2 s for the quality panel); here the spec
    becomes objects unvalidated, and the offline JavaScript comes from the cache
    (:func:`offline_widget_js`).

    The spec is still validated by ``_repr_mimebundle_``'s ``to_dict`` and by the widget's;
    the quality panel is validated against the Vega-Lite schema in
    ``tests/views/test_first_chart.py``, the other charts by their tests' ``to_dict()``.
    """
    from altair.utils.schemapi import debug_mode  # imported: Altair calls this renderer

    # Altair's debug mode validates every part of a chart as it is made (about 1,400 parts
    # for the quality panel): off while the validated spec becomes objects again
    with debug_mode(False):
        chart = chart_from_spec(spec)
    widget = _offline_chart_class()(chart=chart, embed_options=metadata.get("embed_options"))
    return widget._repr_mimebundle_()


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


#: The optional module jsonschema checks the "iri" formats with; importing it builds dozens
#: of Lark parsers (about 2 s of CPU, python-jsonschema/jsonschema#1428).
IRI_MODULE = "rfc3987_syntax"


def _import_altair_without_iri_parsers() -> None:
    """Import Altair (and so jsonschema) with :data:`IRI_MODULE` hidden, when jsonschema is
    not imported yet: jsonschema then leaves the "iri" and "iri-reference" formats
    unchecked in this kernel, as it does wherever that optional module is not installed.
    The Vega-Lite schema uses neither format. The module is visible again afterwards (a
    later ``import rfc3987_syntax`` works); only jsonschema's checkers lack it.
    """
    if "jsonschema" in sys.modules or IRI_MODULE in sys.modules:
        return  # too late (or already paid): nothing to spare
    sys.modules[IRI_MODULE] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import altair  # noqa: F401  # altair (seconds, jsonschema): only when charts are drawn
    finally:
        if sys.modules.get(IRI_MODULE, "") is None:
            del sys.modules[IRI_MODULE]


def setup_notebook(renderer: Renderer | None = None, *, iri_checks: bool = False) -> None:
    """Configure Altair and Polars for the curated notebooks.

    Args:
        renderer: ``"jupyter"`` (the default in a notebook): Altair's chart widget as
            its ``jupyter`` renderer shows it in offline mode, interactive (selections
            work), with the Vega JavaScript bundled instead of fetched from a CDN, and no
            random element ids in the stored text output (:func:`jupyter_chart_bundle`:
            the spec validated once, the JavaScript built once per Altair version).
            ``"report"``: each chart becomes static HTML that
            embeds its spec and draws with ``vegaEmbed`` from a script the report page
            carries once (what ``toolkit report`` uses; an anywidget chart does not survive
            HTML export). ``"stored"``: a static mimebundle per chart (its Vega-Lite spec
            and a PNG, see :func:`stored_chart_bundle`), which ``notebooks/refresh.py``
            uses so that stored notebooks show their charts on GitHub and nbviewer.
            ``None`` reads :data:`RENDERER_ENV` (``TOOLKIT_NOTEBOOK_RENDERER``), falling
            back to ``"jupyter"``.

        iri_checks: ``False`` (the default): when this is the kernel's first import of
            jsonschema, import it without the optional ``rfc3987_syntax`` (about 2 s of
            CPU), so jsonschema's format checker leaves the "iri" formats unchecked in
            this kernel (see :func:`_import_altair_without_iri_parsers`). ``True``: import
            as usual.

    Polars tables show wide text columns in full enough to read evidence. Altair is
    imported here (not when the toolkit is), and the toolkit's renderers registered.
    """
    if not iri_checks:
        _import_altair_without_iri_parsers()
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    alt.renderers.register(REPORT_RENDERER, _report_renderer)
    alt.renderers.register(STORED_RENDERER, stored_chart_bundle)
    alt.renderers.register(JUPYTER_RENDERER, jupyter_chart_bundle)
    chosen = renderer or os.environ.get(RENDERER_ENV) or "jupyter"
    if chosen == "report":
        alt.renderers.enable(REPORT_RENDERER)
    elif chosen == "stored":
        alt.renderers.enable(STORED_RENDERER)
    elif chosen == "jupyter":
        alt.renderers.enable(JUPYTER_RENDERER)
    else:
        raise ValueError(f"unknown renderer {chosen!r}: expected 'jupyter', 'report' or 'stored'")
    alt.data_transformers.disable_max_rows()
    pl.Config.set_tbl_rows(30)
    pl.Config.set_fmt_str_lengths(120)
    pl.Config.set_tbl_width_chars(200)


def report_mode() -> bool:
    """True inside a kernel that ``toolkit report`` started (charts render as report HTML)."""
    return os.environ.get(RENDERER_ENV) == "report"
