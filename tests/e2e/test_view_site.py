"""The site of ``toolkit view`` in a real browser: Debian's Chromium, driven by Playwright,
opens the site of the samples from ``file://`` with every other request aborted. No request
fails and nothing is logged as an error; every number on the pages links to evidence that
exists; the index works from the keyboard; hostile text is shown as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from calibration_fixture import HOSTILE, calibration_result
from conftest import CHROMIUM, CHROMIUM_ARGS, COMPARE_RESULT, SAMPLE_RUNS, require_browser

from toolkit.fleet.view import calibration_links, collect
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site

STEP_MS = 15_000
#: The most pages the crawl visits (the samples' site has 130 runs, most with 8 dimensions).
CRAWL_LIMIT = 500


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples' site, with the calibration page of the test's calibration result
    (its disagreements pointing at the sample persona chats)."""
    from calibration_fixture import calibration_result

    collected = collect([SAMPLE_RUNS])
    out = tmp_path_factory.mktemp("site")
    doc = calibration_result()
    calibration = {**doc, "links": calibration_links(doc, collected.runs)}
    write_site(collected.runs, out, notes=collected.notes, calibration=calibration)
    return out


class Watched:
    """A page whose failed requests, console errors and page errors are recorded, and
    whose requests to anything but ``file://`` are aborted (the network is off)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.failed: list[str] = []
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("requestfailed", lambda r: self.failed.append(r.url))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()


@pytest.fixture
def browser_page() -> Iterator[Watched]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(STEP_MS)
            yield Watched(page)
        finally:
            browser.close()


def _open(w: Watched, site: Path, route: str = "") -> None:
    w.page.goto(site.joinpath("index.html").as_uri() + route)
    w.page.wait_for_selector("main h1")


#: Run and transcript data files arrive this late (what a loaded machine does to a
#: ``<script>`` load), so a test that looks before the page is drawn fails every time.
SLOW_DATA_MS = 400
SLOW_DATA = f"""(() => {{
  const append = Node.prototype.appendChild;
  Node.prototype.appendChild = function (n) {{
    if (n && n.tagName === 'SCRIPT' && /data\\/(run|transcript)\\//.test(n.src || '')) {{
      setTimeout(() => append.call(this, n), {SLOW_DATA_MS});
      return n;
    }}
    return append.call(this, n);
  }};
}})();"""


def _go(page: Any, href: str) -> None:
    """Set the address's hash to ``href`` and wait until the page it names is drawn.

    A run's page is drawn only once its data file has loaded, and until then the last
    page stays (its ``main h1`` included), so waiting for ``main h1`` alone can look at
    the page before. The last page's heading is marked first; a heading without the
    mark is the new page's."""
    page.evaluate(
        """h => {
             if (location.hash === h) return;
             const old = document.querySelector('main h1');
             if (old) old.dataset.before = '1';
             location.hash = h;
           }""",
        href,
    )
    page.wait_for_function("h => location.hash === h", arg=href)
    page.wait_for_selector("main h1:not([data-before])")


def test_the_index_opens_from_file_with_the_network_off(site: Path, browser_page: Watched) -> None:
    w = browser_page
    _open(w, site)
    w.page.wait_for_selector("#rows tr")
    assert w.page.locator("main h1").inner_text() == "Every run (130)"
    assert w.page.locator("#rows tr[data-row]").count() == 100  # the first page of 100 rows
    assert w.page.locator("#count").inner_text() == "130 runs"
    # Status badges carry a symbol and a name, not colour alone.
    first = w.page.locator("#rows tr[data-row]").first.locator(".dots .badge").first
    assert first.inner_text() in {"✓", "!", "✗", "–", "○", "★", "▼"}
    assert ":" in (first.get_attribute("title") or "")
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def _numbers_unlinked(page: Any) -> list[str]:
    """Texts of table cells that hold a digit but are not inside a link (rubric rules,
    marked data-rule, are the rubric's thresholds, not measurements; a judge's reasoning
    or a rater's note, marked quote, is text someone wrote)."""
    return list(
        page.evaluate(
            """() => {
              const out = [];
              const walk = document.createTreeWalker(document.querySelector('main'),
                                                     NodeFilter.SHOW_TEXT);
              while (walk.nextNode()) {
                const n = walk.currentNode, p = n.parentElement;
                if (!/\\d/.test(n.textContent)) continue;
                if (!p.closest('td, dd')) continue;
                if (p.closest('a, [data-rule], .quote')) continue;  // quoted text: not numbers
                out.push(n.textContent);
              }
              return out;
            }"""
        )
    )


def _route_exists(page: Any) -> str | None:
    """None when the page shows what its route names, else what is wrong."""
    h1 = page.locator("main h1").inner_text()
    if h1 in {"Not found", "A file of this site is missing"}:
        return h1 + ": " + page.locator("main p").first.inner_text()
    hash_ = page.evaluate("location.hash")
    if hash_.startswith("#run/") and "/item/" in hash_ and page.locator("li.current").count() < 1:
        return "the item is not on the page"
    return None


def test_every_number_links_to_evidence_that_exists(site: Path, browser_page: Watched) -> None:
    w = browser_page
    page = w.page
    _open(w, site)
    page.wait_for_selector("#rows tr")
    runs = page.eval_on_selector_all("#rows a.run", "as => as.map(a => a.getAttribute('href'))")
    # 46 runs, logs, games and chats + the compare pair (24 + 12) + 48 eval-harness runs:
    # 130, of which the index's first page shows 100
    assert len(runs) == 100
    to_visit = list(runs)
    seen: set[str] = set()
    numbers = 0
    while to_visit and len(seen) < CRAWL_LIMIT:
        href = to_visit.pop()
        if href in seen:
            continue
        seen.add(href)
        _go(page, href)
        problem = _route_exists(page)
        assert problem is None, f"{href}: {problem}"
        # Every number rendered as a number is a link with a target.
        hrefs = page.eval_on_selector_all(
            "main .num", "ns => ns.map(n => n.tagName === 'A' ? n.getAttribute('href') : null)"
        )
        assert None not in hrefs, f"{href}: a number that is not a link"
        numbers += len(hrefs)
        unlinked = [t for t in _numbers_unlinked(page) if "/item/" not in href]
        assert not unlinked, f"{href}: numbers without a link: {unlinked[:5]}"
        # Follow the run's dimension pages and one item per dimension page.
        if "/dim/" not in href and "/item/" not in href:
            to_visit.extend(page.eval_on_selector_all(
                "table.dims a.num", "as => as.map(a => a.getAttribute('href'))"))  # fmt: skip
        elif "/dim/" in href:
            items = page.eval_on_selector_all(
                "table.evidence a.num", "as => as.map(a => a.getAttribute('href'))"
            )
            to_visit.extend(items[-1:])
    assert len(seen) > 200 and numbers > 2000
    # The scored persona chats were crawled down to the message windows the judge read.
    assert [h for h in seen if "persona" in h and "/dim/" in h]
    assert [h for h in seen if "persona" in h and "/item/s" in h and "%2C" in h]
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_a_persona_proposition_links_to_the_window_the_judge_read(
    site: Path, browser_page: Watched
) -> None:
    w = browser_page
    page = w.page
    run = quote("sample_runs/persona/radio-week2.jsonl/lenny", safe="")
    _open(w, site, f"#run/{run}/dim/consistency")
    page.wait_for_selector("table.evidence")
    # Propositions are parts of the score, not a series over the run: no time chart.
    assert page.locator("main .chart").count() == 0
    row = page.locator("table.evidence tr", has_text="same-register")
    assert "judge said 0" in row.inner_text() and "later messages" in row.inner_text()
    row.locator("a.num").click()
    page.wait_for_selector("li.current")
    assert page.evaluate("location.hash") == f"#run/{run}/item/" + quote("s1-s6,s26-s31", safe="")
    marked = page.locator("li.current").count()
    assert marked > 1  # the window, every message of it marked
    assert page.locator("main h1").inner_text().startswith("Window s1-s6,s26-s31 · ")
    assert marked == 12  # the two runs of steps the judge read, not the steps between
    assert "same-register" in page.locator("main .cites").inner_text()
    assert page.evaluate("window.scrollY") == 0  # what was scored on the window is in view
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_a_simulation_dimensions_rows_are_the_ticks_that_decided_it(
    site: Path, browser_page: Watched
) -> None:
    """A simulation dimension's evidence is the ticks that decided it (no longer one row
    per tick saying only "over the window ending at tick N"); its chart is still every
    tick's window value; and what was scored at a tick names its own reason."""
    w = browser_page
    page = w.page
    run = quote("sample_runs/universes/ashfall", safe="")
    _open(w, site, f"#run/{run}/dim/conservation_drift")
    page.wait_for_selector("table.evidence")
    why = page.eval_on_selector_all(
        "table.evidence tbody tr td:nth-child(4)", "ts => ts.map(t => t.textContent)"
    )
    assert 1 < len(why) < 64
    assert why[0] == "the window's status from the first tick: OK"
    assert any(t.startswith("rolled back: conservation_violation") for t in why)
    assert page.locator("main .chart svg circle").count() == 64
    page.locator("table.evidence tbody tr", has_text="rolled back").first.locator(
        "a.detail"
    ).click()
    page.wait_for_selector("li.current .cites")
    cites = page.locator("li.current .cites").inner_text()
    assert "Conservation drift" in cites and "rolled back: conservation_violation" in cites
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_index_works_from_the_keyboard(site: Path, browser_page: Watched) -> None:
    w = browser_page
    page = w.page
    _open(w, site)
    page.wait_for_selector("#rows tr")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.press("ArrowDown")
    first = page.evaluate("document.activeElement.getAttribute('href')")
    page.keyboard.press("ArrowDown")
    second = page.evaluate("document.activeElement.getAttribute('href')")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.getAttribute('href')") == first
    assert first.startswith("#run/") and second.startswith("#run/") and first != second
    page.keyboard.press("Enter")
    page.wait_for_function("h => location.hash === h", arg=first)
    page.wait_for_selector("table.dims")
    # Sort by clicking a column head from the keyboard: Tab to it, Enter.
    _open(w, site)
    page.locator("th button[data-sort=size]").focus()
    page.keyboard.press("Enter")
    assert page.locator("th[aria-sort=ascending] button").inner_text().startswith("Size")
    sizes = page.eval_on_selector_all("#rows td.n a", "as => as.map(a => a.textContent)")
    assert sizes[0].endswith(" B") or sizes[0].endswith("KB")
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_filter_by_column_and_search_inside_transcripts(site: Path, browser_page: Watched) -> None:
    w = browser_page
    page = w.page
    _open(w, site)
    page.wait_for_selector("#rows tr")
    page.locator("input[data-filter=family]").fill("outcome")
    assert page.locator("#count").inner_text() == "54 of 130 runs"  # 6 + 48 eval runs
    page.locator("input[data-filter=family]").fill("")
    page.locator("input[data-filter=verdict]").fill("failed")
    failed = page.locator("#rows tr[data-row]").count()
    assert 0 < failed < 130
    page.locator("input[data-filter=verdict]").fill("")
    # Text that is only inside one game's messages.
    page.locator("#q").fill("leave me alone")
    page.wait_for_function("document.getElementById('count').textContent === '1 of 130 runs'")
    assert "game-role-repetition" in page.locator("#rows a.run").inner_text()
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_hostile_text_is_shown_as_text(tmp_path: Path, browser_page: Watched) -> None:
    from toolkit.scorecard import Dimension, Scorecard

    hostile = '<img src=x onerror="window.owned=1;alert(1)"><script>window.owned=2</script>'
    dims = [Dimension("d", "Dim", 1.0, "OK", hostile, ">= 1", "< 0")]
    card = Scorecard("test", "0.1.0", "evil", hostile, "HEALTHY", hostile,
                     Scorecard.dimensions_frame("evil", dims))  # fmt: skip
    run = SiteRun(
        id="evil",
        family="discussion",
        card=card,
        items=(SiteItem("m1", "turn 1", who=hostile, text=hostile),),
        evidence={"d": (EvidenceRow("turn 1", 1.0, "OK", hostile, "m1"),)},
    )
    write_site([run], tmp_path)
    w = browser_page
    page = w.page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for route in ("", "#run/evil", "#run/evil/dim/d", "#run/evil/item/m1"):
        _open(w, tmp_path, route)
        page.wait_for_timeout(100)
        assert page.locator("main img, main script").count() == 0
        assert page.evaluate("window.owned === undefined")
    _open(w, tmp_path, "#run/evil/item/" + quote("m1"))
    assert hostile in page.locator("li.current .text").inner_text()
    assert dialogs == [] and (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_comparison_page_links_every_number_to_runs_of_its_arm(
    tmp_path: Path, browser_page: Watched
) -> None:
    from playwright.sync_api import expect  # optional: the browser tests' extra

    from toolkit.scorecard import Dimension, Scorecard

    def run(arm: str, n: int, status: str) -> SiteRun:
        dims = [Dimension("dim_a", "Dim A", 0.5, status, "1/2", ">= 0.9", "< 0.2")]
        card = Scorecard("test", "0.1.0", f"r{n}", f"Run {n}", "DEGRADED", "",
                         Scorecard.dimensions_frame(f"r{n}", dims))  # fmt: skip
        return SiteRun(id=f"{arm}/r{n}", family="simulation", card=card)

    runs = [run("a", 1, "OK"), run("a", 2, "FAIL"), run("b", 1, "OK"), run("b", 2, "OK")]
    write_site(runs, tmp_path, compare=COMPARE_RESULT)
    w = browser_page
    page = w.page
    _open(w, tmp_path)
    page.locator("#compare-link").click()
    page.wait_for_selector("table.compare")
    assert page.locator("main h1").inner_text() == "simulation: b against a"
    assert page.locator(".notes li").inner_text() == "<b>a note</b>"  # text, not markup
    assert page.locator("svg[role=img] a").count() == 1  # the forest plot's one dimension
    hrefs = page.eval_on_selector_all(
        "main .num", "ns => ns.map(n => n.tagName === 'A' ? n.getAttribute('href') : null)"
    )
    assert len(hrefs) == 11 and None not in hrefs  # 6 of the dimension, 5 of its flips
    assert not _numbers_unlinked(page)
    expected = {"#filter/arm/a/statuses/dim_a%3A": "2 of 4 runs",
                "#filter/arm/b/statuses/dim_a%3A": "2 of 4 runs",
                "#filter/statuses/dim_a%3A": "4 runs"}  # fmt: skip
    assert expected.keys() <= set(hrefs)
    for href, count in expected.items():
        _go(page, href)
        expect(page.locator("#count")).to_have_text(count)
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_calibration_page_links_every_number_to_evidence_that_exists(
    site: Path, browser_page: Watched
) -> None:
    w = browser_page
    page = w.page
    page.add_init_script(SLOW_DATA)  # the data as late as on a loaded machine
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _open(w, site)
    page.locator("#calibration-link").click()
    page.wait_for_selector("table.cal-disagreements")
    assert page.locator("main h1").inner_text() == "Calibration: judge “judge” against 3 humans"
    headline = page.locator("table.cal-headline").inner_text()
    for said in ("Alpha among the humans\t0.851", "Alpha with the judge added\t0.744",
                 "[0.850, 0.853]", "BELOW the band", "Spearman", "0.653", "0.639"):  # fmt: skip
        assert said in headline, said
    heads = page.eval_on_selector_all(".cal-disagreements th", "hs => hs.map(h => h.textContent)")
    assert heads[:4] == ["#", "Item", "agent", "proposition"] and "ratings" not in heads
    assert page.locator(".cal-bias tbody tr").count() == 15  # all, 4 agents, 10 propositions
    # Numbers as `toolkit calibrate` prints them (views/calibration.py's format specs):
    # bias and its interval to two decimals with a sign (+0.00 for none), the judge's
    # score with g, the humans' mean to two decimals.
    doc = calibration_result()
    shown = page.eval_on_selector_all(
        ".cal-bias tbody tr", "rs => rs.map(r => [...r.cells].slice(3).map(c => c.textContent))"
    )
    assert shown == [
        [f"{b['bias']:+.2f}", f"[{b['low']:+.2f}, {b['high']:+.2f}]"] for b in doc["bias"]
    ]
    first = page.locator("table.cal-disagreements tbody tr").first.inner_text()
    row = doc["disagreements"][0]
    said = f"{row['judge']:g}\t{row['human_mean']:.2f}\t{row['diff']:+.2f}"
    assert said in first, first
    assert page.locator("svg[aria-label^='Bias'] circle").count() == 15
    # Hostile reasoning, notes and evidence are shown as text.
    assert page.locator("main img, main script").count() == 0
    assert HOSTILE in page.locator("table.cal-disagreements").inner_text()
    # Every number is a link, and every link of the page leads to what it names.
    hrefs = page.eval_on_selector_all(
        "main .num", "ns => ns.map(n => n.tagName === 'A' ? n.getAttribute('href') : null)"
    )
    assert None not in hrefs and len(hrefs) > 100
    assert not _numbers_unlinked(page)
    targets = set(hrefs) | set(
        page.eval_on_selector_all("main a", "as => as.map(a => a.getAttribute('href'))")
    )
    runs = {h for h in targets if h.startswith("#run/")}
    assert {h for h in runs if "/item/" in h} >= {
        "#run/sample_runs%2Fpersona%2Fradio-week2.jsonl%2Flenny/item/s1-s5%2Cs26-s31",
        "#run/sample_runs%2Fpersona%2Fradio-week2.jsonl%2Flenny/item/s3",
    }
    for href in sorted(targets):
        _go(page, href)
        problem = _route_exists(page)
        assert problem is None, f"{href}: {problem}"
        if href.startswith("#calibration/disagreements/"):
            shown = page.locator("table.cal-disagreements tbody tr:not(.cal-more)").count()
            said = page.locator("#cal-disagreements + p").inner_text()
            assert f"Showing the {shown} " in said, (href, said)
    # A disagreement the site does not hold is shown, unlinked, with the reason.
    _go(page, "#calibration/item/3")
    page.wait_for_selector("main .facts")
    assert "not a run of this site" in page.locator("main .facts").inner_text()
    assert page.evaluate("window.owned === undefined") and dialogs == []
    assert (w.failed, w.errors, w.outside) == ([], [], [])


@pytest.mark.parametrize(
    ("with_judge", "humans", "said"),
    [
        (0.813, 0.793, "Above the humans' alpha:"),  # the case that read "Below"
        (0.744, 0.851, "Below the humans' alpha:"),
        (0.8502, 0.8498, "Equal to the humans' alpha at this precision"),
    ],
)
def test_the_sentence_beside_alpha_with_the_judge_follows_the_numbers(
    tmp_path: Path, browser_page: Watched, with_judge: float, humans: float, said: str
) -> None:
    """The calibration page said "Below the humans' alpha" whatever the two alphas were
    (0.813 with the judge beside 0.793 among the humans); the sentence is now computed
    from the numbers as they are printed (and names none itself: every number on the
    page is a link to its evidence)."""
    from calibration_fixture import calibration_result

    collected = collect([SAMPLE_RUNS / "persona"])
    doc = {**calibration_result(), "alpha_with_judge": with_judge, "alpha_humans": humans}
    calibration = {**doc, "links": calibration_links(doc, collected.runs)}
    write_site(collected.runs, tmp_path, notes=collected.notes, calibration=calibration)
    page = browser_page.page
    _open(browser_page, tmp_path)
    page.locator("#calibration-link").click()
    page.wait_for_selector("table.cal-headline")
    row = page.locator("table.cal-headline tr", has_text="Alpha with the judge added").inner_text()
    assert said in row, row
    assert browser_page.errors == []


def test_an_arm_is_the_runs_of_a_folder_of_that_name_anywhere_under_the_sources(
    tmp_path: Path, browser_page: Watched
) -> None:
    from toolkit.scorecard import Dimension, Scorecard

    def run(run_id: str) -> SiteRun:
        dims = [Dimension("dim_a", "Dim A", 0.5, "OK", "1/2", ">= 0.9", "< 0.2")]
        card = Scorecard("test", "0.1.0", run_id, run_id, "HEALTHY", "",
                         Scorecard.dimensions_frame(run_id, dims))  # fmt: skip
        return SiteRun(id=run_id, family="simulation", card=card)

    # As `toolkit view sample_runs --compare ...` names them: the arms are folders inside.
    ids = ["sample_runs/compare/a/r1", "sample_runs/compare/b/r1", "a/r2", "data/r3"]
    write_site([run(i) for i in ids], tmp_path, compare=COMPARE_RESULT)
    w = browser_page
    _open(w, tmp_path, "#filter/arm/a")
    w.page.wait_for_selector("#rows")
    shown = w.page.eval_on_selector_all("#rows a.run", "as => as.map(a => a.textContent)")
    assert sorted(shown) == ["a/r2", "sample_runs/compare/a/r1"]
    assert (w.failed, w.errors, w.outside) == ([], [], [])


@pytest.fixture(scope="module")
def quick_start_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's quick start, as typed from the repository:
    ``toolkit view sample_runs -o build/site`` (into a temporary folder)."""
    import contextlib
    import io

    from toolkit.cli import main

    out = tmp_path_factory.mktemp("quick-start") / "site"
    notes = io.StringIO()
    with contextlib.chdir(SAMPLE_RUNS.parent), contextlib.redirect_stderr(notes):
        assert main(["view", "sample_runs", "-o", str(out)]) == 0
    # Files that are no chats are not tried as chats (the agent transcript beside the
    # iteration log, the gate's correction log): no such note.
    assert "not a persona chat" not in notes.getvalue()
    return out


def _steps(anchor: str) -> set[int]:
    """The step numbers an anchor such as ``s1-s6,s31-s36`` spans."""
    steps: set[int] = set()
    for part in anchor.split(","):
        first, _, last = part.partition("-")
        steps.update(range(int(first[1:]), int((last or first)[1:]) + 1))
    return steps


def test_the_quick_starts_site_links_each_disagreement_to_the_chat_window_rated(
    quick_start_site: Path, browser_page: Watched
) -> None:
    import json

    from toolkit.load.persona import load_chat

    result = json.loads(
        (SAMPLE_RUNS / "calibration" / "persona" / "calibration.json").read_text("utf-8")
    )
    w = browser_page
    page = w.page
    _open(w, quick_start_site)
    page.locator("#calibration-link").click()
    page.wait_for_selector("table.cal-disagreements")
    headline = page.locator("table.cal-headline").inner_text()
    assert f"Alpha among the humans\t{result['alpha_humans']:.3f}" in headline
    wheres = page.locator("table.cal-disagreements a.where")
    assert wheres.count() == len(result["disagreements"]) == 10  # every one in the site
    hrefs = wheres.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    chats: dict[str, Any] = {}
    for row, href in zip(result["disagreements"], hrefs, strict=True):
        run = f"{row['source']}/{row['agent'].lower()}"
        assert href == f"#run/{quote(run, safe='')}/item/{quote(row['anchor'], safe='')}"
        page.evaluate("h => { location.hash = h; }", href)
        # The chat's page for the agent, at the window (the agent's name is in its title).
        page.wait_for_function(
            "([a, b]) => { const h = document.querySelector('main h1').textContent;"
            " return h.startsWith(a) && h.includes(b); }",
            arg=[f"Window {row['anchor']} · ", f"· {row['agent']} ("],
        )
        # Marked: every message of the chat at a step of the window the raters read.
        chat = chats.setdefault(row["source"], load_chat(SAMPLE_RUNS.parent / row["source"]))
        want = [s for s in chat.messages["step"].to_list() if s in _steps(row["anchor"])]
        marked = page.locator("li.current a.label").all_inner_texts()
        assert marked == [f"step {s}" for s in want], (href, marked)
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_search_finds_the_judges_reasoning_and_the_disagreements(
    quick_start_site: Path, browser_page: Watched
) -> None:
    w = browser_page
    page = w.page
    _open(w, quick_start_site)
    page.wait_for_selector("#rows tr")
    # Only in the sample judge's reasoning about Lenny's same-register proposition (the
    # persona cassette), not in any message.
    page.locator("#q").fill("0% of the later messages")
    page.wait_for_function("!/searching/.test(document.getElementById('count').textContent)")
    shown = page.eval_on_selector_all("#rows a.run .id", "as => as.map(a => a.textContent)")
    assert "sample_runs/persona/radio-week2.jsonl/lenny" in shown
    assert all("/persona/" in s for s in shown) and len(shown) < 15
    # Only in the planted judge's reasoning of the calibration (its cassette): the
    # disagreements that say it are listed, and the runs they link to are found.
    import json

    result = json.loads(
        (SAMPLE_RUNS / "calibration" / "persona" / "calibration.json").read_text("utf-8")
    )
    said = "planted sample judge: score 3"
    rows = [d for d in result["disagreements"] if said in d["reasoning"]]
    assert 0 < len(rows) < 10
    page.locator("#q").fill(said)
    page.wait_for_selector("#cal-hits:not([hidden])")
    hits = page.locator("#cal-hits a.cal-hit")
    assert hits.all_inner_texts() == [d["item"] for d in rows]
    shown = page.eval_on_selector_all("#rows a.run .id", "as => as.map(a => a.textContent)")
    assert sorted(shown) == sorted({f"{d['source']}/{d['agent'].lower()}" for d in rows})
    hits.first.click()
    page.wait_for_selector("main .cal-detail")
    assert "score 3" in page.locator("main .cal-detail").inner_text()
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_the_index_groups_and_labels_runs_by_epoch(site: Path, browser_page: Watched) -> None:
    """The samples' site holds several epochs (a rubric each, and the compare pair's two
    rubrics): every run's rubric cell names its epoch, a heading names each epoch's
    rubric and version, and however the index is sorted no two epochs interleave."""
    import json

    w = browser_page
    page = w.page
    _open(w, site)
    page.wait_for_selector("#rows tr.epoch-head")
    man = json.loads(
        (site / "data" / "manifest.js").read_text("utf-8").split("(", 1)[1].rsplit(")", 1)[0]
    )
    assert "epoch" in man["columns"]
    for sort in ("verdict", "size", "title"):
        page.locator(f"th button[data-sort={sort}]").click()
        rows = page.eval_on_selector_all(
            "#rows tr",
            "trs => trs.map(t => t.classList.contains('epoch-head') ? "
            "['head', t.getAttribute('data-epoch'), t.textContent] : "
            "['run', t.children[2].textContent])",
        )
        assert rows[0][0] == "head"  # a page starts under its epoch's heading
        seen: list[str] = []
        current = None
        for kind, *rest in rows:
            if kind == "head":
                current = rest[0]
                assert current not in seen, f"epoch {current} shown twice: interleaved"
                seen.append(current)
                if current:
                    assert f"epoch {current}" in rest[1] and "run(s) in this epoch" in rest[1]
            elif current:
                assert rest[0].endswith(f"· epoch {current}")  # the run's cell names it
        assert len(seen) >= 2
    assert (w.failed, w.errors, w.outside) == ([], [], [])


def test_a_run_page_prints_values_as_the_text_views_do(
    tmp_path: Path, browser_page: Watched
) -> None:
    """1.625 is "1.625" (as `toolkit quality` prints it; the site once showed 1.63) and
    0.0625, a tie at three decimals, "0.062" (toFixed gives 0.063)."""
    import dataclasses

    import polars as pl

    from toolkit import load_universe
    from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe

    run = SAMPLE_RUNS / "universes" / "ashfall"
    [card] = score_universe(load_universe(run), DEFAULT_RUBRIC, series=False)
    planted = [1.625, 0.0625, 123.4567, 2.0, 2 / 3]
    dims = card.dimensions.head(len(planted)).with_columns(value=pl.Series(planted))
    card = dataclasses.replace(card, dimensions=dims)
    write_site([SiteRun(id="run-0000", family="simulation", card=card)], tmp_path / "site")
    w = browser_page
    _open(w, tmp_path / "site", "#run/run-0000")
    w.page.wait_for_selector("table.dims")
    cells = w.page.eval_on_selector_all(
        "table.dims tbody tr", "rs => rs.map(r => r.cells[1].textContent)"
    )
    assert cells == ["1.625", "0.062", "123.457", "2", "0.667"]
    assert (w.failed, w.errors, w.outside) == ([], [], [])
