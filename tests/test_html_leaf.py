"""A result draws its notebook HTML through the leaf toolkit._html: loading a run, scoring
it and showing both never imports toolkit.views, and the views name the same helpers
(one definition of each)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT, SAMPLE_RUNS

import toolkit._html as leaf
from toolkit.views import html, palette, text

SHOW_WITHOUT_VIEWS = f"""
import sys
import toolkit as tk
universe = tk.load_universe({str(SAMPLE_RUNS / "universes" / "ashfall")!r})
card = tk.score_universe(universe)[0]
assert universe._repr_html_().startswith("<div class='tk-summary tk-html")
assert card._repr_html_().startswith("<div class='tk-scorecard tk-html")
print(sorted(name for name in sys.modules if name.startswith("toolkit.views")))
"""


def test_a_result_shows_itself_without_importing_the_views() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SHOW_WITHOUT_VIEWS],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_views_name_the_leaf_helpers() -> None:
    for name in ("text", "wrap", "badge", "table", "render_summary", "NO_MATHS", "STYLE"):
        assert getattr(html, name) is getattr(leaf, name), name
    for name in ("Swatch", "SWATCHES", "UNKNOWN", "swatch", "WHITE", "INK"):
        assert getattr(palette, name) is getattr(leaf, name), name
    assert text.format_value(0.5) == "0.500" and text.format_value(None) == "-"
