"""The site's filters by value, raw records, simulation evidence and experiments in a real
browser (Debian's Chromium driven by Playwright, from ``file://`` with the network off):
a filter hides exactly the runs planted to fail it; a bad filter is one line naming the
token, never a script error; the address reproduces a filter; a raw record with hostile
text shows it as text."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_view_site import Watched, _open, browser_page  # noqa: F401  (the fixture used below)

from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site
from toolkit.views.site.raw import raw_record

HOSTILE = '<img src=x onerror="window.owned=1"><script>window.owned=2</script>'


def _run(run_id: str, family: str, verdict: str, dims: dict[str, float | None],
         score: float | None = None) -> SiteRun:  # fmt: skip
    rows = [Dimension(k, k.title(), v, "OK" if (v or 0) >= 0.9 else "FAIL", "", ">= 0.9",
                      "< 0.5") for k, v in dims.items()]  # fmt: skip
    meta = {} if score is None else {"value": score}
    card = Scorecard(family, "1.0.0", run_id, f"Run {run_id}", verdict, "",
                     Scorecard.dimensions_frame(run_id, rows), meta=meta)  # fmt: skip
    record = {"text": HOSTILE, HOSTILE: [HOSTILE], "n": 1}
    item = SiteItem("m1", "turn 1", who=HOSTILE, text="hello", raw=raw_record(record, HOSTILE))
    evidence = {k: (EvidenceRow("turn 1", v, None, HOSTILE, "m1"),) for k, v in dims.items()}
    return SiteRun(run_id, family, card, items=(item,), evidence=evidence)


#: Planted: which runs each filter must keep (worked out from the values here, by hand).
RUNS = [
    _run("sim-low", "simulation", "FAILED", {"groundedness": 0.5, "character_stability": 1.0}),
    _run("sim-edge", "simulation", "DEGRADED", {"groundedness": 0.9, "character_stability": 0.8}),
    _run("sim-high", "simulation", "HEALTHY", {"groundedness": 0.97, "character_stability": 1.0}),
    _run("iter-1", "outcome", "good", {"landed": 1.0}, score=0.75),
    _run("iter-2", "outcome", "poor", {"landed": 0.0}, score=0.4),
    _run("game-1", "discussion", "FAILED", {"coherence": None}),
]


@pytest.fixture
def watched(request: pytest.FixtureRequest) -> Watched:
    """The browser page of the site's other browser tests (its requests watched)."""
    page: Watched = request.getfixturevalue("browser_page")
    return page


@pytest.fixture(scope="module")
def planted_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("planted")
    write_site(RUNS, out)
    return out


def _shown(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#rows a.run .id", "as => as.map(a => a.textContent)"))


def _filter(page: Any, text: str) -> None:
    page.locator("#where").fill(text)
    page.locator("#where").press("Enter")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("groundedness < 0.9", {"sim-low"}),  # 0.9 is not below 0.9; game-1 has none
        ("groundedness <= 0.9", {"sim-low", "sim-edge"}),
        ("verdict = FAILED", {"sim-low", "game-1"}),
        ("score >= 0.7 and family = outcome", {"iter-1"}),
        ("not (family = simulation) and landed.status != FAIL", {"iter-1"}),
        ("character_stability < 1 or score < 0.5", {"sim-edge", "iter-2"}),
        ("title ~ 'run sim'", {"sim-low", "sim-edge", "sim-high"}),
    ],
)
def test_a_filter_hides_exactly_the_planted_runs(
    planted_site: Path, watched: Watched, text: str, kept: set[str]
) -> None:
    w = watched
    _open(w, planted_site)
    w.page.wait_for_selector("#rows tr")
    _filter(w.page, text)
    w.page.wait_for_function(
        "n => document.getElementById('count').textContent === n", arg=f"{len(kept)} of 6 runs"
    )
    assert _shown(w.page) == kept
    assert w.page.locator("#where-msg").is_hidden()
    assert (w.failed, w.errors, w.outside) == ([], [], [])


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("groundednes < 0.9", "unknown column “groundednes” (did you mean “groundedness”?)"),
        ("groundedness < high", "“high” is not a number"),
        (
            "groundedness 0.9",
            "expected an operator (= != < <= > >= ~ !~) after “groundedness”, found “0.9”",
        ),
        ("(family = outcome", "never closed"),
        ("family = outcome)", "unexpected “)” at character 17"),
        ("verdict = 'FAILED", "the quote “'FAILED” at character 11 is never closed"),
        ("score ~ 0.5", "“~” compares text; “score” is a number"),
        ("family = outcome and", "expected a column name, the filter ends there"),
    ],
)
def test_a_bad_filter_shows_one_line_naming_the_token(
    planted_site: Path, watched: Watched, text: str, named: str
) -> None:
    w = watched
    _open(w, planted_site)
    w.page.wait_for_selector("#rows tr")
    _filter(w.page, text)
    msg = w.page.locator("#where-msg")
    msg.wait_for(state="visible")
    said = msg.inner_text()
    assert said.startswith("Filter not applied: ") and named in said, said
    assert "\n" not in said
    assert w.page.locator("#count").inner_text() == "6 runs"  # nothing hidden by it
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_address_reproduces_a_filter(planted_site: Path, watched: Watched) -> None:
    w = watched
    _open(w, planted_site)
    w.page.wait_for_selector("#rows tr")
    _filter(w.page, "verdict = FAILED")
    w.page.wait_for_function("document.getElementById('count').textContent === '2 of 6 runs'")
    address = w.page.url
    assert address.endswith("#where/" + quote("verdict = FAILED", safe=""))
    w.page.goto("about:blank")
    w.page.goto(address)
    w.page.wait_for_function("document.getElementById('count').textContent === '2 of 6 runs'")
    assert _shown(w.page) == {"sim-low", "game-1"}
    assert w.page.locator("#where").input_value() == "verdict = FAILED"
    # A bad filter's address shows its message too; clearing the box shows every run.
    w.page.goto(planted_site.joinpath("index.html").as_uri() + "#where/" + quote("nope = 1"))
    w.page.locator("#where-msg").wait_for(state="visible")
    assert "unknown column “nope”" in w.page.locator("#where-msg").inner_text()
    w.page.locator("#where").fill("")
    w.page.wait_for_function("document.getElementById('count').textContent === '6 runs'")
    assert w.page.url.endswith("#")
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_a_raw_record_with_hostile_text_shows_it_as_text(
    planted_site: Path, watched: Watched
) -> None:
    w = watched
    page = w.page
    _open(w, planted_site, "#run/sim-low/dim/groundedness")
    page.wait_for_selector("table.evidence")
    page.locator("table.evidence a.raw-link").first.click()
    page.wait_for_selector("#raw-record")
    assert page.evaluate("location.hash") == "#run/sim-low/raw/m1"
    shown = page.locator("#raw-record").inner_text()
    # The record as JSON, its strings quoted as JSON quotes them: the tags are text.
    assert f'"text": {json.dumps(HOSTILE)}' in shown
    assert page.locator("main img, main script").count() == 0
    assert page.evaluate("window.owned") is None
    assert HOSTILE in page.locator("dl.facts").inner_text()  # where it was read: as text
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_a_simulation_dimension_names_the_tick_that_broke_character(
    watched: Watched, tmp_path: Path
) -> None:
    from conftest import SAMPLE_RUNS

    from toolkit.fleet.view import collect

    collected = collect([SAMPLE_RUNS / "universes" / "ashfall"])
    write_site(collected.runs, tmp_path)
    w = watched
    page = w.page
    _open(w, tmp_path, "#run/ashfall/dim/character_stability")
    page.wait_for_selector("table.evidence")
    row = page.locator("table.evidence tbody tr", has_text="tick 125")
    assert 'broke character: the action holds the marker "framework"' in row.inner_text()
    assert page.locator("main .chart svg circle").count() == 64  # the series: every tick
    row.locator("a.raw-link").click()
    page.wait_for_selector("#raw-record")
    assert "Stepping outside the framework" in page.locator("#raw-record").inner_text()
    assert "tick_125.json" in page.locator("dl.facts").inner_text()
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_no_filter_text_raises_a_script_error(planted_site: Path, watched: Watched) -> None:
    """Random filters built from the grammar's pieces (and broken ones) are each parsed
    or refused with a message; none throws anything else."""
    pieces = [
        "groundedness",
        "score",
        "family",
        "verdict",
        "landed.status",
        "nope",
        "and",
        "or",
        "not",
        "(",
        ")",
        "<",
        "<=",
        ">",
        ">=",
        "=",
        "==",
        "!=",
        "~",
        "!~",
        "!",
        "0.9",
        "-1",
        "1e3",
        ".5",
        "FAILED",
        "'a b'",
        '"x',
        "'",
        "outcome",
        "≥",
        "",
    ]
    rng = random.Random(41)
    texts = [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))) for _ in range(400)]
    w = watched
    _open(w, planted_site)
    w.page.wait_for_selector("#rows tr")
    answers = w.page.evaluate(
        """texts => texts.map(t => {
             try { const m = window.__tk.whereParse(t); return m === null ? "ok" : "msg:" + m; }
             catch (e) { return "threw:" + e; }
           })""",
        texts,
    )
    threw = [(t, a) for t, a in zip(texts, answers, strict=True) if a.startswith("threw:")]
    assert threw == []
    assert {a[:3] for a in answers} == {"ok", "msg"}  # both kinds were met
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_inherited_names_deep_nesting_and_long_filters_are_filter_errors(
    planted_site: Path, watched: Watched
) -> None:
    """Found in review: "constructor" parsed as a column (an object's inherited name) and
    20,000 "(" overflowed the parser's stack, so the index failed to draw."""
    w = watched
    _open(w, planted_site)
    w.page.wait_for_selector("#rows tr")
    deep = "(" * 20_000 + "score = 1" + ")" * 20_000
    answers = w.page.evaluate(
        """texts => texts.map(t => {
             try { const m = window.__tk.whereParse(t); return m === null ? "ok" : "msg:" + m; }
             catch (e) { return "threw:" + e; }
           })""",
        ["constructor = 1", "__proto__ < 3", "not " * 100 + "score = 1", deep],
    )
    assert answers[0].startswith("msg:unknown column “constructor”")
    assert answers[1].startswith("msg:unknown column “__proto__”")
    assert answers[2].startswith("msg:more than 64 nested parentheses or nots")
    assert answers[3].startswith("msg:the filter is 40009 characters long; at most 2000")
    assert (w.failed, w.errors, w.outside) == ([], [], [])
