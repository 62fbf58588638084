"""A bidirectional control in a run's name or text (U+202E RIGHT-TO-LEFT OVERRIDE and the
other embeddings, overrides and isolates) is shown on the pages of ``toolkit view`` as its
escape (``\\u202e``), as the terminal output shows it (``toolkit.io.edge.visible``),
never acted on: before, ``run\\u202eevil`` was drawn as the raw text and everything after
the control on its line was reversed ("runlive · ..."). The marks that only place a
neutral character (LRM, RLM) and the joiners a script needs are left as they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, require_browser

from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site

#: Each control the page escapes, as the CLI's ``visible`` writes it.
CONTROLS = {
    "\u202a": "\\u202a", "\u202b": "\\u202b", "\u202c": "\\u202c", "\u202d": "\\u202d",
    "\u202e": "\\u202e", "\u2066": "\\u2066", "\u2067": "\\u2067", "\u2068": "\\u2068",
    "\u2069": "\\u2069",
}  # fmt: skip
NAME = "run\u202eevil.json"
TEXT = "I vote for Wren\u202e, not Otto \u2067x\u2069"
ARABIC = "\u0645\u0631\u062d\u0628\u0627\u200f"  # a word and an RLM: kept as written


def _site(tmp_path: Path) -> Path:
    dims = [Dimension("d", "Dim", 1.0, "OK", f"detail {NAME}", ">= 1", "< 0")]
    card = Scorecard("test", "0.1.0", NAME, f"{NAME} · 1 message", "HEALTHY", "fine",
                     Scorecard.dimensions_frame(NAME, dims))  # fmt: skip
    run = SiteRun(
        id=NAME,
        family="discussion",
        card=card,
        items=(SiteItem("m1", "turn 1", who=f"Wren\u202eevil {ARABIC}", text=TEXT),),
        evidence={"d": (EvidenceRow("turn 1", 1.0, "OK", f"note {NAME}", "m1"),)},
    )
    out = tmp_path / "site"
    write_site([run], out)
    return out


@pytest.mark.timeout(120)
def test_bidi_controls_in_names_and_text_are_shown_as_escapes_on_every_page(
    tmp_path: Path,
) -> None:
    site = _site(tmp_path)
    require_browser()
    from playwright.sync_api import sync_playwright  # the browser tests only

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 900, "height": 700})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            for route in ("", "#run/run%E2%80%AEevil.json", "#run/run%E2%80%AEevil.json/dim/d",
                          "#run/run%E2%80%AEevil.json/item/m1"):  # fmt: skip
                page.goto(site.joinpath("index.html").as_uri() + route)
                page.wait_for_selector("main h1")
                page.wait_for_timeout(200)
                shown = page.evaluate(
                    "() => document.body.innerText + '\\n' + document.title + '\\n' + "
                    "[...document.querySelectorAll('[title],[aria-label]')].map("
                    "n => (n.getAttribute('title') || '') + (n.getAttribute('aria-label') "
                    "|| '')).join('\\n')"
                )
                assert not [c for c in CONTROLS if c in shown], route
                assert "run\\u202eevil.json" in shown, route
                if route.endswith("item/m1"):
                    assert "I vote for Wren\\u202e, not Otto \\u2067x\\u2069" in shown
                    assert ARABIC in shown  # right-to-left script and its RLM untouched
                    page.screenshot(path=str(tmp_path / "bidi-item.png"), full_page=True)
            assert errors == []
        finally:
            browser.close()
