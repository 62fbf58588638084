"""A site written by ``toolkit view --watch``, open in Chromium from ``file://``: when a
newer build lands, the index reloads by itself and shows the new runs; a run's page is
not pulled away from the reader but offers a reload."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, tick_v1, write_run

from toolkit.fleet.view import collect
from toolkit.views.site import write_site


def _page() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI: {CHROMIUM} is not installed")
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(15_000)
            yield page
        finally:
            browser.close()


@pytest.fixture
def page() -> Iterator[Any]:
    yield from _page()


def _build(runs: Path, site: Path, build: str) -> None:
    collected = collect([runs])
    watch = {"build": build, "interval": 0.5, "when": "12:00:00"}
    write_site(collected.runs, site, notes=collected.notes, watch=watch)


def test_the_index_reloads_when_a_new_build_lands(tmp_path: Path, page: Any) -> None:
    runs, site = tmp_path / "runs", tmp_path / "site"
    write_run(runs / "first", [tick_v1(n) for n in range(1, 4)])
    _build(runs, site, "a1")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site.joinpath("index.html").as_uri())
    page.wait_for_selector("#rows tr")
    assert page.locator("#rows tr").count() == 1
    write_run(runs / "second", [tick_v1(n) for n in range(1, 4)])
    _build(runs, site, "b2")
    page.wait_for_function("document.querySelectorAll('#rows tr').length === 2")
    assert page.locator("main h1").inner_text() == "Every run (2)"
    assert errors == []


def test_a_run_page_offers_a_reload_instead_of_jumping(tmp_path: Path, page: Any) -> None:
    runs, site = tmp_path / "runs", tmp_path / "site"
    write_run(runs / "first", [tick_v1(n) for n in range(1, 4)])
    _build(runs, site, "a1")
    page.goto(site.joinpath("index.html").as_uri())
    page.locator("#rows a.run").first.click()
    page.wait_for_selector("table.dims")
    where = page.url
    write_run(runs / "second", [tick_v1(n) for n in range(1, 4)])
    _build(runs, site, "b2")
    bar = page.wait_for_selector("#rebuilt")
    assert "The runs changed (2 run(s), written 12:00:00)" in bar.inner_text()
    assert page.url == where
    page.screenshot(path=str(tmp_path / "rebuilt.png"))
    with page.expect_event("load"):  # the reload: else table.dims is the page before it
        page.locator("#rebuilt button").click()
    page.wait_for_selector("table.dims")
    assert page.url == where and page.locator("#rebuilt").count() == 0
