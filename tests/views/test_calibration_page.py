"""``toolkit calibrate --html``: one offline page with the numbers, the band and bias
charts, the confusion table and the disagreements side by side (issue 27)."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, SAMPLE_RUNS

from toolkit.cli import main
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate
from toolkit.views.calibration_page import (
    band_chart,
    band_frame,
    bias_chart,
    bias_frame,
    render_calibration_page,
    source_href,
)
from toolkit.views.palette import swatch

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
PLANTED = json.loads((SAMPLE_RUNS / "calibration" / "planted.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return calibrate(load_calibration_scores(SCORES))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _linked_session(tmp_path: Path, reasoning: str = "it reads fine") -> Path:
    """Three items, two humans and a judge; item a's evidence comes from a chat file."""
    (tmp_path / "chats").mkdir()
    (tmp_path / "chats" / "a.jsonl").write_text('{"type": "run"}\n', encoding="utf-8")
    rows: list[dict[str, Any]] = []
    for item, base in (("a", 1), ("b", 4), ("c", 6)):
        for rater, shift in (("ana", 0), ("ben", 1), ("judge", 3)):
            row: dict[str, Any] = {"item": item, "rater": rater, "score": base + shift}
            if rater == "judge":
                row["reasoning"] = reasoning
            if item == "a":
                row.update(evidence="a: hello", source="chats/a.jsonl", anchor="m3-m9")
            rows.append(row)
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# The charts: data and encodings
# ---------------------------------------------------------------------------


def test_the_band_chart_has_a_point_per_human_left_out_and_per_replacement(result) -> None:  # type: ignore[no-untyped-def]
    frame = band_frame(result)
    assert frame.height == 2 * len(PLANTED["humans"])
    for row in result.band.iter_rows(named=True):
        mine = frame.filter(pl.col("left_out") == row["left_out"])
        assert mine.filter(pl.col("kind") == "the other humans")["alpha"][0] == row["alpha_without"]
        judged = mine.filter(pl.col("kind").str.starts_with("judge"))
        assert judged["alpha"][0] == row["alpha_replaced"]
        where = "inside the band" if row["inside"] else "below the band"
        assert judged["kind"][0].endswith(where)
    spec = band_chart(result, 0.667).to_dict()
    points = [layer for layer in spec["layer"] if layer["mark"]["type"] == "point"]
    assert len(points) == 1
    scale = points[0]["encoding"]["shape"]["scale"]
    shapes = dict(zip(scale["domain"], scale["range"], strict=True))
    assert shapes["judge in place: below the band"] == swatch("FAIL").shape  # not colour only
    assert shapes["judge in place: inside the band"] == swatch("OK").shape
    texts = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert texts, "the threshold lines carry words"


def test_the_bias_chart_marks_lenny_as_biased_and_the_others_as_noise(result) -> None:  # type: ignore[no-untyped-def]
    frame = bias_frame(result).filter(pl.col("label").str.starts_with("agent="))
    kinds = dict(frame.select("label", "kind").iter_rows())
    lenient = f"agent={PLANTED['lenient_agent']}"
    assert kinds.pop(lenient) == "interval excludes 0"
    assert set(kinds.values()) == {"interval includes 0"}
    spec = bias_chart(result).to_dict()
    assert {layer["mark"]["type"] for layer in spec["layer"]} == {"rule", "point"}


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


def test_the_page_is_self_contained_and_shows_every_section(result) -> None:  # type: ignore[no-untyped-def]
    page = render_calibration_page(result, "scores.csv", top=6, min_alpha=0.667, failures=["x"])
    tags = _tags(page)
    assert not [t for t, _ in tags if t in {"script", "link", "iframe", "img"}]
    assert not [a for _, a in tags for v in a.values() if v and "//" in v and "w3.org" not in v]
    assert page.count("<svg") == 2  # the band and the bias charts, drawn inline
    for heading in ("The numbers", "inside the human band", "bias", "Confusion at threshold 5"):
        assert heading in page
    sections = [a for t, a in tags if t == "section"]
    assert len(sections) == 6
    from toolkit.views.html import text

    for item in PLANTED["misreads"]:
        row = result.disagreements.filter(pl.col("item") == item).row(0, named=True)
        assert text(row["reasoning"]) in page and text(row["evidence"]) in page
        for note in row["notes"]:
            assert text(note["note"]) in page


def test_hostile_words_are_text_and_an_unsafe_source_is_no_link(tmp_path: Path) -> None:
    path = _linked_session(tmp_path, reasoning="<script>alert(1)</script><img src=x onerror=y>")
    frame = load_calibration_scores(path).with_columns(
        pl.when(pl.col("item") == "a")
        .then(pl.lit("javascript:alert(1)"))
        .otherwise(pl.col("source"))
        .alias("source")
    )
    page = render_calibration_page(calibrate(frame), "s.json", base=tmp_path)
    tags = _tags(page)
    assert not [t for t, _ in tags if t in {"script", "img"}]
    assert not [t for t, a in tags if t == "a"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "at javascript:alert(1)#m3-m9" in page  # shown as text, never a link


def test_source_links_are_relative_to_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    assert source_href("chats/a.jsonl", "m3-m9", tmp_path / "out") == "../chats/a.jsonl#m3-m9"
    assert source_href("https://x.org/r.json", "d2", None) == "https://x.org/r.json#d2"
    assert source_href("data:text/html,hi", None, None) is None
    assert source_href(None, "m1", None) is None


def test_the_cli_writes_the_page_and_chromium_opens_it_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    _linked_session(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report" / "calibration.html"
    out.parent.mkdir()
    assert main(["calibrate", "scores.json", "--html", str(out)]) == 0
    capsys.readouterr()
    sample = tmp_path / "sample.html"
    assert main(["calibrate", str(SCORES), "--html", str(sample), "--top", "6"]) == 0
    failed: list[str] = []
    errors: list[str] = []
    outside: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    shot = tmp_path / "calibration.png"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route("**/*", route)
            page.goto(out.as_uri(), timeout=20_000)
            href = page.locator("section a").first.evaluate("a => a.href")
            page.goto(sample.as_uri(), timeout=20_000)
            sections = page.locator("section.tk-disagreement").count()
            charts = page.locator("figure svg").count()
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert (failed, errors, outside) == ([], [], [])
    assert href == (tmp_path / "chats" / "a.jsonl").as_uri() + "#m3-m9"
    assert Path(href.split("#")[0].removeprefix("file://")).exists()
    assert (sections, charts) == (6, 2)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_with_two_humans_the_judge_points_say_there_is_no_band() -> None:
    rows = [
        {"item": i, "rater": r, "score": float(s + d)}
        for i, s in (("a", 1), ("b", 4), ("c", 6), ("d", 2))
        for r, d in (("ana", 0), ("ben", 1), ("judge", 2))
    ]
    result = calibrate(pl.DataFrame(rows))
    frame = band_frame(result)
    assert frame["kind"].to_list() == ["judge in place: no band"] * 2  # never "inside"
    spec = band_chart(result).to_dict()
    point = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "point")
    scale = point["encoding"]["shape"]["scale"]
    assert dict(zip(scale["domain"], scale["range"], strict=True))["judge in place: no band"] == (
        "diamond"
    )
    assert "the judge in the band" in render_calibration_page(result, "s")
