"""First-chart benchmark: the CPU a fresh notebook kernel spends before its first chart shows.

Usage (the recorded run; about a minute on an idle machine):
    python bench/bench_first_chart.py --rounds 5

Each round starts a fresh Python process (``subprocess.run``) that does what the first cells
of ``notebooks/simulation_postmortem.ipynb`` do, timing each step's CPU (user + system of
every thread, ``time.process_time``) and wall time:

1. ``import altair`` (the floor: what any notebook drawing an Altair chart pays);
2. ``import toolkit as tk; tk.setup_notebook()`` (the Jupyter renderer);
3. ``tk.load_universe`` + ``tk.score_universe`` of ``sample_runs/universes/ashfall``;
4. ``tk.quality_panel(card)`` (building the chart);
5. the notebook's display of it: ``chart._repr_mimebundle_()`` with the Jupyter renderer
   (what IPython calls) and then ``chart.to_dict()`` (what a report or a test calls).

One untimed warm-up process runs first (bytecode caches written, page cache warm, the
widget's offline JavaScript cached as a user's second kernel finds it). Every step runs once
in each round's process, so a busy spell falls on the floor and the toolkit's steps alike.
Prints min / median / max over the rounds, the load average at the start of each round, and
the toolkit's own CPU (steps 2-5; ``to_dict`` is shown beside, not counted) as a ratio to
step 1.
Writes bench/out/results-first-chart.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = ROOT / "sample_runs" / "universes" / "ashfall"
PY = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

#: The child: the notebook's first cells, each step timed.
CHILD = f"""
import json, time
out = {{}}
def step(name, fn):
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    out[name] = {{"cpu": time.process_time() - c0, "wall": time.perf_counter() - t0}}
    return result
import sys
if sys.argv[1] == "floor":
    step("import altair", lambda: __import__("altair"))
def setup():
    import toolkit as tk
    tk.setup_notebook()
    return tk
tk = step("import toolkit + setup_notebook", setup)
card = step("load + score", lambda: tk.score_universe(tk.load_universe({str(RUN)!r}), window=50)[0])
chart = step("quality_panel", lambda: tk.quality_panel(card))
step("display (mimebundle)", lambda: chart._repr_mimebundle_())
step("to_dict", lambda: chart.to_dict())
print(json.dumps(out))
"""

OWN = ("import toolkit + setup_notebook", "load + score", "quality_panel", "display (mimebundle)")


def one_round(order: str) -> dict[str, dict[str, float]]:
    """One fresh process's step timings: ``floor`` imports Altair first (timed alone),
    ``notebook`` starts with the notebook's first cell (``setup_notebook`` imports it)."""
    done = subprocess.run(
        [PY, "-c", CHILD, order], env=ENV, cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    """Run the rounds and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "out" / "results-first-chart.json")
    args = parser.parse_args()
    one_round("floor")  # warm-up: bytecode and page cache
    rounds: list[dict[str, dict[str, float]]] = []
    notebook: list[dict[str, dict[str, float]]] = []
    loads: list[float] = []
    for _ in range(args.rounds):
        loads.append(os.getloadavg()[0])
        rounds.append(one_round("floor"))
        notebook.append(one_round("notebook"))
    steps = list(rounds[0])
    table: dict[str, dict[str, list[float]]] = {
        s: {k: [r[s][k] for r in rounds] for k in ("cpu", "wall")} for s in steps
    }
    own = [sum(r[s]["cpu"] for s in OWN) for r in rounds]
    floor = table["import altair"]["cpu"]
    print(f"python {platform.python_version()}, {os.cpu_count()} cores; {args.rounds} rounds")
    print(f"load average at the start of each round: {', '.join(f'{x:.1f}' for x in loads)}\n")
    print("| step | CPU min | CPU median | CPU max | wall median |")
    print("|---|---:|---:|---:|---:|")
    for s in steps:
        c, w = table[s]["cpu"], table[s]["wall"]
        print(
            f"| {s} | {min(c):.3f} | {statistics.median(c):.3f} | {max(c):.3f} | "
            f"{statistics.median(w):.3f} |"
        )
    print(
        f"| the toolkit's own (steps 2-5) | {min(own):.3f} | {statistics.median(own):.3f} | "
        f"{max(own):.3f} | |"
    )
    ratio = statistics.median(own) / statistics.median(floor)
    print(f"\ntoolkit's own CPU / import altair (medians): {ratio:.2f}")
    whole = [sum(r[s]["cpu"] for s in OWN) for r in notebook]
    first = [r["import toolkit + setup_notebook"]["cpu"] for r in notebook]
    print(
        "notebook order (setup_notebook imports Altair): first cell CPU "
        f"{min(first):.3f} / {statistics.median(first):.3f} / {max(first):.3f}; "
        f"to the first chart {min(whole):.3f} / {statistics.median(whole):.3f} / "
        f"{max(whole):.3f} (min / median / max); "
        f"{statistics.median(whole) / statistics.median(floor):.2f} x import altair"
    )
    result: dict[str, Any] = {
        "rounds": rounds,
        "notebook_rounds": notebook,
        "loads": loads,
        "own_cpu": own,
        "ratio": ratio,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
