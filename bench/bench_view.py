"""The site of ``toolkit view`` at scale, measured in Debian's Chromium.

Usage (the recorded run; a few minutes):
    python bench/bench_view.py [--runs 100000] [--transcripts 10000] [--items 40]

Two seeded synthetic sites are written with :func:`toolkit.views.site.write_site` into
``bench/out/`` (nothing is loaded or scored: the records are made here, shaped like the
samples' — eight dimensions, every family):

* **index**: ``--runs`` runs with a three-item transcript each, for the index;
* **transcripts**: ``--transcripts`` runs with ``--items`` messages of ~120 characters
  each, for search and for the site's size per run.

Then Playwright opens each from ``file://`` (every other request aborted) and measures,
in the page (``performance.now()``), best of 3:

* **index paint**: from navigation start until the first page of rows is in the DOM
  (target < 2 s for 100,000 runs);
* **filter**: typing a column filter until the rows are redrawn (target < 200 ms);
* **search**: a query over the text of every transcript until the rows are redrawn, cold
  (the search shards are loaded on first use) and warm (target < 1 s);

and the bytes written per run. Prints a Markdown table and writes
``bench/out/results-view.json``.

Building the site of a simulation fleet (issue 38: linear in runs):
    python bench/make_fleet.py /tmp/f1000 --runs 1000 --ticks 30 --nights 1   # each size
    python bench/bench_view.py --build /tmp/f100 /tmp/f1000 /tmp/f3000 [--build-rounds 1]

runs ``toolkit view FLEET -o SITE`` in a fresh process per fleet and round (the fleets
interleaved within a round), and reports the CPU time (user + system) and peak resident
memory of the whole process (``wait4``), the CPU per run, and the growth exponent of CPU
and of memory in runs (least squares of the logs, over the medians), with the load
average. No browser.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from toolkit.scorecard import Dimension, Scorecard  # noqa: E402
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun, write_site  # noqa: E402

OUT = ROOT / "bench" / "out"
FAMILIES = ("simulation", "outcome", "discussion", "persona")
VERDICTS = ("HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT_DATA")
STATUSES = ("OK", "OK", "OK", "WARN", "FAIL", "N/A")
WORDS = [
    "mill",
    "well",
    "forge",
    "dock",
    "orchard",
    "bread",
    "nail",
    "cloth",
    "net",
    "flour",
    "take",
    "give",
    "walk",
    "bake",
    "plant",
    "talk",
    "vote",
    "suspect",
    "villager",
    "mafia",
    "truth",
    "calm",
    "reason",
    "round",
    "agent",
    "tool",
    "patch",
    "test",
]


def _run(n: int, items: int, rng: random.Random) -> SiteRun:
    subject = f"run-{n:06d}"
    dims = [
        Dimension(f"dim_{d}", f"Dimension {d}", round(rng.random(), 3), rng.choice(STATUSES),
                  f"{rng.randint(0, 50)}/50 ticks", ">= 0.9", "< 0.5")
        for d in range(8)
    ]  # fmt: skip
    card = Scorecard(
        rubric="simulation",
        rubric_version="1.1.0",
        subject=subject,
        title=f"Run {n}",
        verdict=rng.choice(VERDICTS),
        verdict_reason="fail: dimension 3",
        dimensions=Scorecard.dimensions_frame(subject, dims),
    )
    its = tuple(
        SiteItem(
            key=f"t{i}",
            label=f"tick {i}",
            who=rng.choice(("tobin", "elsie", "mara")),
            text=" ".join(rng.choice(WORDS) for _ in range(20)) + f" #{n}-{i}",
        )
        for i in range(items)
    )
    evidence = {
        f"dim_{d}": tuple(
            EvidenceRow(f"tick {i}", round(rng.random(), 3), rng.choice(STATUSES), "", f"t{i}")
            for i in range(items)
        )
        for d in range(8)
    }
    return SiteRun(
        id=f"fleet/{subject}",
        family=FAMILIES[n % 4],
        card=card,
        items=its,
        evidence=evidence,
        source=f"fleet/{subject}",
        size=rng.randint(1_000, 400_000),
        time=f"2026-11-{1 + n % 28:02d}T{n % 24:02d}:00:00Z",
    )


def build(name: str, runs: int, items: int) -> tuple[Path, float, int]:
    """Write the site; its folder, the seconds it took, and its bytes."""
    rng = random.Random(20261124 + runs)
    site = OUT / f"site-{name}"
    if site.exists():
        shutil.rmtree(site)
    t0 = time.perf_counter()
    write_site((_run(n, items, rng) for n in range(runs)), site)
    seconds = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    return site, seconds, size


TYPE = """([selector, text]) => new Promise(resolve => {
  const input = document.querySelector(selector);
  const count = document.getElementById('count');
  const t0 = performance.now();
  const finish = () => resolve(performance.now() - t0);
  const obs = new MutationObserver(() => {
    if (!/searching/.test(count.textContent)) { obs.disconnect(); finish(); }
  });
  obs.observe(count, {childList: true, characterData: true, subtree: true});
  input.value = text;
  input.dispatchEvent(new Event('input'));
  // A synchronous redraw that leaves the same text fires no mutation: time it anyway.
  setTimeout(() => { obs.disconnect(); finish(); }, 5000);
})"""


def measure(site: Path, repeat: int) -> dict[str, Any]:
    """Paint, filter and search times in Chromium (ms, best of ``repeat``)."""
    from playwright.sync_api import sync_playwright

    url = (site / "index.html").as_uri()
    out: dict[str, list[float]] = {"paint": [], "filter": [], "search_cold": [], "search_warm": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)  # fmt: skip
        try:
            for _ in range(repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                failed: list[str] = []
                page.on("requestfailed", lambda r, f=failed: f.append(r.url))
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(
                    "file://") else r.abort())  # fmt: skip
                page.goto(url, wait_until="commit", timeout=120_000)
                page.wait_for_selector("#rows tr", timeout=120_000)
                out["paint"].append(page.evaluate(
                    "performance.getEntriesByType('navigation')[0] ? "
                    "performance.now() - performance.getEntriesByType('navigation')[0].startTime"
                    " : performance.now()"))  # fmt: skip
                out["filter"].append(page.evaluate(TYPE, ["input[data-filter=family]", "outc"]))
                page.evaluate(TYPE, ["input[data-filter=family]", ""])
                out["search_cold"].append(page.evaluate(TYPE, ["#q", "forge bread #1234-"]))
                out["search_warm"].append(page.evaluate(TYPE, ["#q", "calm reason"]))
                shown = page.locator("#count").inner_text()
                assert not failed, failed
                page.close()
        finally:
            browser.close()
    return {k: round(min(v), 1) for k, v in out.items()} | {"last_count": shown}


def _view_process(fleet: Path, site: Path) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of one ``toolkit view FLEET -o SITE`` process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cli = "import sys; from toolkit.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", cli, "view", str(fleet), "-o", str(site)],
                            env=env, stdout=subprocess.DEVNULL)  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"toolkit view {fleet} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _exponent(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / den


def build_growth(fleets: list[Path], rounds: int) -> None:
    """The site build's CPU and peak memory per fleet size, and their growth exponents."""
    load = os.getloadavg()
    sizes = [sum(1 for p in f.iterdir() if p.is_dir()) for f in fleets]
    cpu: dict[Path, list[float]] = {f: [] for f in fleets}
    rss: dict[Path, list[float]] = {f: [] for f in fleets}
    for _ in range(rounds):
        for fleet in fleets:
            site = OUT / f"site-build-{fleet.name}"
            shutil.rmtree(site, ignore_errors=True)
            c, m = _view_process(fleet, site)
            cpu[fleet].append(c)
            rss[fleet].append(m)
            print(json.dumps({"fleet": str(fleet), "cpu_s": c, "peak_mib": m}), flush=True)
    print("\n| runs | CPU min | CPU median | CPU max | CPU ms a run | peak RSS MiB (median) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, f in zip(sizes, fleets, strict=True):
        med = statistics.median(cpu[f])
        print(f"| {n:,} | {min(cpu[f]):.1f} | {med:.1f} | {max(cpu[f]):.1f} | "
              f"{1000 * med / n:.1f} | {statistics.median(rss[f]):.0f} |")  # fmt: skip
    if len(fleets) > 1:
        meds = [statistics.median(cpu[f]) for f in fleets]
        mems = [statistics.median(rss[f]) for f in fleets]
        print(f"\ngrowth exponent in runs: CPU {_exponent(sizes, meds):.2f}, "
              f"peak RSS {_exponent(sizes, mems):.2f}")  # fmt: skip
    print(f"load average at the start {load}, at the end {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, nargs="+", help="fleets: time toolkit view")
    parser.add_argument("--build-rounds", type=int, default=1)
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--transcripts", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--reuse", action="store_true", help="measure the sites already in bench/out"
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.build:
        build_growth(args.build, args.build_rounds)
        return
    results: dict[str, Any] = {}
    for name, runs, items in (("index", args.runs, 3), ("transcripts", args.transcripts,
                                                         args.items)):  # fmt: skip
        site = OUT / f"site-{name}"
        manifest = site / "data" / "manifest.js"
        if args.reuse and manifest.is_file() and f'"runs":{runs},' in manifest.read_text():
            seconds = float("nan")
            size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        else:
            site, seconds, size = build(name, runs, items)
        timing = measure(site, args.repeat)
        results[name] = {"runs": runs, "items": items, "write_s": round(seconds, 1),
                         "bytes": size, "bytes_per_run": round(size / runs),
                         **timing}  # fmt: skip
        print(json.dumps({name: results[name]}), flush=True)
    (OUT / "results-view.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    print("\n| site | runs | items/run | write | KB/run | paint | filter | search cold | warm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(f"| {name} | {r['runs']:,} | {r['items']} | {r['write_s']} s | "
              f"{r['bytes_per_run'] / 1024:.1f} | {r['paint']:.0f} ms | {r['filter']:.0f} ms | "
              f"{r['search_cold']:.0f} ms | {r['search_warm']:.0f} ms |")  # fmt: skip


if __name__ == "__main__":
    main()
