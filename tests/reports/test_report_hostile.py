"""A report of a user's notebook shows hostile inputs and names as text, never as live HTML.

The header ``toolkit report NOTEBOOK INPUT`` adds to a notebook that has none of its own
names the notebook and the inputs as typed; both come from the user (or from a folder's
name), so a backtick, a tag, a Markdown link or a blank line in them must stay text.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS
from html_hazards import live_hazards

from toolkit.reports import render_report

HOSTILE_INPUTS = [
    "x`<img src=x onerror=alert(1)>`",
    "`` <script>alert(2)</script> ``",
    "[click](javascript:alert(3)) <a href='javascript:alert(4)'>a</a>",
    "two\n\n<img src=y onerror=alert(5)>",
    "*not* _emphasis_ & <u>under</u> &amp;",
]


def hostile_notebook(folder: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("value = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("print('ran')")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    path = folder / "mine`<img src=z onerror=alert(6)>`.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile-report")
    source = hostile_notebook(folder)
    run = folder / "sweep`<img src=w onerror=alert(7)>`" / "run"
    run.mkdir(parents=True)
    return render_report(
        str(source), [str(run), *HOSTILE_INPUTS], output=folder / "r.html", timeout=120
    )


def test_hostile_inputs_and_names_in_the_header_are_text_not_elements(
    hostile_report: Path,
) -> None:
    page = hostile_report.read_text(encoding="utf-8")
    assert live_hazards(page) == []
    text = page.replace("&#x27;", "'").replace("&quot;", '"').replace("&lt;", "<")
    text = text.replace("&gt;", ">").replace("&amp;", "&")
    assert "mine`<img src=z onerror=alert(6)>`.ipynb" in text  # shown, as typed
    assert "x`<img src=x onerror=alert(1)>`" in text
    assert "*not* _emphasis_ & <u>under</u> &amp;" in text  # no Markdown applied either


def test_hostile_header_fires_no_dialog_in_chromium(hostile_report: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    dialogs: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(hostile_report.as_uri(), timeout=20_000)
            page.wait_for_load_state("load", timeout=20_000)
            page.wait_for_timeout(500)  # an onerror of a broken image fires after load
            shown = page.inner_text("body", timeout=5_000)
            page.screenshot(path=str(hostile_report.with_suffix(".png")))
        finally:
            browser.close()
    assert dialogs == []
    assert "x`<img src=x onerror=alert(1)>`" in shown  # the text is there, shown as text
