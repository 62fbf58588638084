"""The HTML views (notebooks, ``toolkit report``, CI artefacts) show a bidirectional
embedding, override or isolate in a name or text as its escape (``\\u202e``), as the
terminal output and the pages of ``toolkit view`` do: a scorecard of a run named
``run<U+202E>evil.json`` read ``runnosj.live`` and reversed the rest of its line. Marks
that only place a neutral character (RLM) are kept."""

from __future__ import annotations

from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.html import render_html, text

CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_text_writes_each_bidi_control_as_its_escape() -> None:
    assert text("run\u202eevil.json") == "run\\u202eevil.json"
    assert text(CONTROLS) == ("\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069")
    assert text("\u0645\u0631\u062d\u0628\u0627\u200f <b>") == (
        "\u0645\u0631\u062d\u0628\u0627\u200f &lt;b&gt;"
    )


def test_a_scorecard_named_with_an_override_shows_it_as_its_escape() -> None:
    name = "run\u202eevil.json"
    dims = [Dimension("d", "Dim", 1.0, "OK", f"detail {name}", ">= 1", "< 0")]
    card = Scorecard("test", "0.1.0", name, f"{name} · 3 ticks", "HEALTHY", "fine",
                     Scorecard.dimensions_frame(name, dims))  # fmt: skip
    page = render_html(card)
    assert not [c for c in CONTROLS if c in page]
    assert "run\\u202eevil.json · 3 ticks" in page
