"""Reports and the rater page: what a person waits for.

Usage (the recorded run; a few minutes):
    python bench/bench_reports.py [--templates simulation,experiment] [--no-page]

For each report template (its first sample input) it measures, in fresh processes:

* **report CPU**: user + system seconds of ``toolkit report`` and everything it starts
  (the kernel included: children are reaped, so their time is counted);
* **the notebook's own work**: the same notebook's code cells, with the same parameters,
  run by IPython in one plain process (imports, loading, scoring, displaying);
* **beyond**: report CPU minus the notebook's own work (target <= 5 s): kernel start,
  nbclient, nbconvert, the embedded Vega bundle;
* **a misspelt --param**: wall seconds until ``toolkit report`` refuses it (no kernel).

and for the rater page (``toolkit rate``, the rating server on 127.0.0.1), driven by
Playwright with Debian's Chromium: seconds from ``page.goto`` until the rating form is
live (its script has run), on the first visit and on two reloads.
Target: interactive <= 3 s after load.

Prints a Markdown table and writes bench/out/results-reports.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CLI = [sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())"]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# The notebook's own work: its cells (parameters injected) run by IPython, no kernel.
OWN_WORK = r"""
import json, os, sys
from IPython.core.interactiveshell import InteractiveShell
cells = json.loads(sys.stdin.read())
shell = InteractiveShell.instance()
for source in cells:
    result = shell.run_cell(source, store_history=False)
    if not result.success:
        raise SystemExit(f"cell failed: {result.error_in_exec or result.error_before_exec}")
"""


def _cpu_of(command: list[str], **kw: Any) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(CPU seconds of the command and its reaped children, wall seconds, the result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kw)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done


def _cells(template: str, inputs: list[str], params: dict[str, Any]) -> list[str]:
    """The template's code cells as ``toolkit report`` runs them (parameters injected,
    notebook-only cells left out)."""
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    from toolkit.reports import prepare
    from toolkit.reports._render import NOTEBOOK_ONLY_TAG

    prepared = prepare(template, inputs, params)
    nb = load_notebook_node(str(prepared.source))
    nb = parameterize_notebook(nb, prepared.parameters, kernel_name="python3", language="python")
    return [
        c.source
        for c in nb.cells
        if c.cell_type == "code" and NOTEBOOK_ONLY_TAG not in c.metadata.get("tags", [])
    ]


def bench_report(name: str, out: Path) -> dict[str, Any]:
    from toolkit.reports import TEMPLATES

    template = TEMPLATES[name]
    sample = template.samples[0]
    inputs, params = list(sample.inputs), dict(sample.params)
    param_args = [a for k, v in params.items() for a in ("--param", f"{k}={json.dumps(v)}")]
    report_cpu, report_wall, done = _cpu_of(
        [*CLI, "report", name, *inputs, *param_args, "-o", str(out / f"{name}.html")], cwd=ROOT
    )
    if done.returncode != 0:
        raise SystemExit(f"toolkit report {name} failed: {done.stderr.strip()}")
    env = dict(os.environ, TOOLKIT_NOTEBOOK_RENDERER="report", TQDM_DISABLE="1")
    cells = json.dumps(_cells(name, [str(ROOT / i) for i in inputs], params))
    own_cpu, own_wall, done = _cpu_of(
        [sys.executable, "-c", OWN_WORK], input=cells, cwd=template.path.parent, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"{name}: the notebook's cells failed: {done.stderr.strip()[-400:]}")
    typo_cpu, typo_wall, done = _cpu_of(
        [*CLI, "report", name, *inputs, "--param", "windw=3"], cwd=ROOT
    )
    assert done.returncode == 2, done.stderr
    return {
        "template": name,
        "report_cpu_s": round(report_cpu, 2),
        "report_wall_s": round(report_wall, 2),
        "own_work_cpu_s": round(own_cpu, 2),
        "own_work_wall_s": round(own_wall, 2),
        "beyond_cpu_s": round(report_cpu - own_cpu, 2),
        "param_typo_refused_s": round(typo_wall, 2),
        "param_typo_cpu_s": round(typo_cpu, 2),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bench_page(work: Path) -> dict[str, Any]:
    """Seconds until a rater's page is usable: first visit and two reloads."""
    from playwright.sync_api import sync_playwright

    games = ROOT / "sample_runs" / "discussions"
    store = work / "ratings-page.db"
    port = _free_port()
    command = [
        sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())",
        "rate", str(games), "--store", str(store),
        "--raters", "ana,ben", "--port", str(port),
    ]  # fmt: skip
    links = work / "links.txt"
    with links.open("wb") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.DEVNULL, start_new_session=True
        )
    try:
        t0 = time.perf_counter()
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if time.perf_counter() - t0 > 180:
                raise SystemExit("toolkit rate did not listen")
            time.sleep(0.05)
        listening = time.perf_counter() - t0
        while "Organiser:" not in links.read_text():  # the links follow the bind at once
            time.sleep(0.05)
        url = next(
            line.split()[1] for line in links.read_text().splitlines() if line.startswith("  ")
        )
        loads = []
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page()
            for visit in range(3):
                t1 = time.perf_counter()
                if visit == 0:
                    page.goto(url, timeout=180_000)
                else:
                    page.reload(timeout=180_000)
                page.locator('form[data-ready="1"]').wait_for(timeout=180_000)
                loads.append(round(time.perf_counter() - t1, 2))
            browser.close()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
    return {"server_listening_s": round(listening, 2), "interactive_s": loads}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--templates", default="simulation,experiment,rating-agreement", help="'' for none"
    )
    parser.add_argument("--no-page", action="store_true", help="skip the rater page")
    args = parser.parse_args()
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}",
        "reports": [],
        "page": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in filter(None, args.templates.split(",")):
            row = bench_report(name, Path(tmp))
            results["reports"].append(row)
            print(json.dumps(row), flush=True)
        if not args.no_page and CHROMIUM.exists():
            row = bench_page(Path(tmp))
            results["page"].append(row)
            print(json.dumps(row), flush=True)
    (out / "results-reports.json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n| template | report CPU s | own work CPU s | beyond s | typo refused: wall s, CPU s |")
    print("|---|---:|---:|---:|---:|")
    for r in results["reports"]:
        typo = f"{r['param_typo_refused_s']}, {r['param_typo_cpu_s']}"
        print(f"| {r['template']} | {r['report_cpu_s']} | {r['own_work_cpu_s']} | "
              f"{r['beyond_cpu_s']} | {typo} |")  # fmt: skip
    for r in results["page"]:
        print(f"rater page: listening after {r['server_listening_s']} s, interactive after "
              f"{r['interactive_s']} s")  # fmt: skip
    print(results["machine"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
