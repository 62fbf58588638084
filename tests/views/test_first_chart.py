"""A notebook's first chart: the live renderer shows Altair's widget with the spec the
chart wrote, validated once at display and once here, and the widget's offline JavaScript
built once per Altair version (issues 38, 41)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import altair as alt
import jsonschema
import pytest

import toolkit as tk
from toolkit.views import notebook
from toolkit.views.notebook import CACHE_ENV, JUPYTER_RENDERER, RENDERER_ENV

ROOT = Path(__file__).resolve().parents[2]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def card() -> tk.Scorecard:
    return tk.score_universe(tk.load_universe(ROOT / "sample_runs" / "universes" / "ashfall"))[0]


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(RENDERER_ENV, "jupyter")
    before = alt.renderers.active
    tk.setup_notebook()
    yield
    alt.renderers.enable(before)


def test_the_charts_the_toolkit_builds_are_valid_vega_lite(card: tk.Scorecard) -> None:
    # the full validation display time no longer repeats: Altair's validator against the
    # Vega-Lite schema it ships, on the first chart of the simulation notebook
    chart = tk.quality_panel(card)
    spec = chart.to_dict(validate=False)
    type(chart).validate(spec)  # raises jsonschema.ValidationError when invalid
    broken = {**spec, "vconcat": [{**spec["vconcat"][0], "mark": "no-such-mark"}]}
    with pytest.raises(jsonschema.ValidationError):
        type(chart).validate(broken)


def test_the_live_renderer_shows_the_chart_s_own_spec(live: None, card: tk.Scorecard) -> None:
    assert alt.renderers.active == JUPYTER_RENDERER
    chart = tk.quality_panel(card)
    bundle = chart._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert WIDGET_VIEW in data
    assert data["text/plain"].startswith("<altair.jupyter.jupyter_chart.JupyterChart object")
    spec = chart.to_dict()
    rebuilt = notebook.chart_from_spec(spec)
    assert isinstance(rebuilt, alt.VConcatChart)
    assert type(alt.Chart.from_dict(spec)) is alt.VConcatChart  # Altair's renderer's pick
    widget = notebook._offline_chart_class()(chart=rebuilt)
    assert widget.spec == spec
    assert widget._esm == notebook.offline_widget_js()
    assert isinstance(widget, alt.JupyterChart)


def test_a_single_view_spec_comes_back_as_a_chart() -> None:
    spec = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q").to_dict()
    rebuilt = notebook.chart_from_spec(spec)
    # what Altair's own renderer makes of it (validated, class chosen by trying each one)
    reference = alt.Chart.from_dict(spec)
    assert type(rebuilt) is type(reference) is alt.Chart
    assert rebuilt.to_dict() == reference.to_dict()


def test_the_offline_javascript_is_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    built = notebook.offline_widget_js()
    (cached,) = tmp_path.glob("jupyter-chart-altair-*-vlc-*.js")
    assert cached.read_text(encoding="utf-8") == built
    assert len(built) > 100_000  # Vega bundled in (the online module is a few KB)
    cached.write_text("// planted", encoding="utf-8")
    assert notebook.offline_widget_js() == "// planted"


def _fresh_kernel(code: str) -> str:
    """What a fresh Python process prints after ``code`` (as a notebook's first cell)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.strip()


CHECKERS = (
    "import jsonschema, importlib; "
    "print(sorted(f for f in jsonschema.FormatChecker().checkers if f.startswith('iri')), "
    "importlib.import_module('rfc3987_syntax').__name__)"
)


@pytest.mark.skipif(importlib.util.find_spec("rfc3987_syntax") is None, reason="not installed")
def test_setup_spares_the_iri_parsers_and_leaves_the_module_importable() -> None:
    printed = _fresh_kernel(f"import toolkit as tk; tk.setup_notebook(); {CHECKERS}")
    assert printed == "[] rfc3987_syntax"


@pytest.mark.skipif(importlib.util.find_spec("rfc3987_syntax") is None, reason="not installed")
def test_setup_keeps_the_iri_checks_when_asked_or_when_jsonschema_came_first() -> None:
    asked = _fresh_kernel(f"import toolkit as tk; tk.setup_notebook(iri_checks=True); {CHECKERS}")
    assert asked == "['iri', 'iri-reference'] rfc3987_syntax"
    first = _fresh_kernel(f"import jsonschema, toolkit as tk; tk.setup_notebook(); {CHECKERS}")
    assert first == "['iri', 'iri-reference'] rfc3987_syntax"
