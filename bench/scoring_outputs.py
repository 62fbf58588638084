"""Every output of simulation scoring written to a folder, to compare two versions of the
scoring byte for byte (issue 38: the fleet scoring made cheaper must score the same).

Usage:
    python bench/scoring_outputs.py OUT [--fleet DIR ...]
    diff -r OUT_BEFORE OUT_AFTER

Written for each data set (the sample fleet, universes and compare sets, and each
--fleet, e.g. folders from bench/make_fleet.py, one of more than 16,384 ticks so that it
is scored in chunks): through the API, under the three published rubric versions and a
mechanic-unit rubric, at the default window, 10 and 100000, each card's JSON, its
dimensions, measures and per-tick series frames, the fleet's ``dimension_series`` and the
input digests, with and without series; through the CLI, ``quality --all`` in every
format (plus ``--junit``), ``quality RUN --format json`` for every sample universe,
``rescore --sweep``, ``compare`` of the sample compare sets and ``view``'s site (every
file). Wall-clock facts a CLI prints (elapsed seconds) are not part of the outputs
compared; nothing else is filtered.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import toolkit as tk
from toolkit.cli import main as cli
from toolkit.rubrics.simulation import dimension_series
from toolkit.rubrics.simulation.spec import DEFAULT_RUBRIC, PUBLISHED, VocabularySpec

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = {
    "sample-fleet": ROOT / "sample_runs" / "fleet",
    "sample-universes": ROOT / "sample_runs" / "universes",
    "compare-a": ROOT / "sample_runs" / "compare" / "a",
    "compare-b": ROOT / "sample_runs" / "compare" / "b",
}

RUBRICS = {
    **{f"v{v}": r for v, r in PUBLISHED.items()},
    "mechanic": DEFAULT_RUBRIC.model_copy(
        update={
            "version": "9.9.9",
            "vocabulary_growth": DEFAULT_RUBRIC.vocabulary_growth.model_copy(
                update={"unit": "mechanic"}
            ),
        }
    ),
}
assert isinstance(RUBRICS["mechanic"].vocabulary_growth, VocabularySpec)

#: Lines a CLI prints that hold wall-clock time (never part of a score).
_CLOCK = re.compile(r"\b\d+(\.\d+)?\s*(s|ms|seconds)\b")


def api_outputs(name: str, folder: Path, out: Path) -> None:
    """The cards of every rubric and window, as JSON lines, and their frames."""
    universe = tk.load_universes(str(folder / "*"), progress=False)
    lines: list[str] = []
    for rname, rubric in RUBRICS.items():
        for window in (None, 10, 100000):
            for series in (True, False):
                cards = tk.score_universe(universe, rubric, window, series=series)
                tag = f"{rname}-w{window}-s{int(series)}"
                for card in cards:
                    lines.append(json.dumps({"tag": tag, **card.to_dict()}, default=str))
                    lines.append(card.dimensions.write_ndjson())
                    lines.append(card.measures.write_ndjson())
                    if card.series is not None:
                        lines.append(card.series.write_ndjson())
            frame = dimension_series(universe, rubric, window)
            (out / f"{name}-series-{rname}-w{window}.ndjson").write_text(frame.write_ndjson())
    (out / f"{name}-cards.ndjson").write_text("\n".join(lines))


def run_cli(args: list[str], out: Path) -> None:
    """One CLI call: its exit code, stdout and stderr, to ``out``."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = cli(args)
        except SystemExit as stop:
            code = stop.code  # type: ignore[assignment]
    text = f"exit {code}\n--- stdout\n{stdout.getvalue()}\n--- stderr\n{stderr.getvalue()}"
    out.write_text(_CLOCK.sub("<clock>", text))


def cli_outputs(name: str, folder: Path, out: Path, site: bool = True) -> None:
    for fmt in ("table", "json", "markdown", "html"):
        run_cli(["quality", "--all", str(folder), "--format", fmt], out / f"{name}-all.{fmt}")
    junit = out / f"{name}-junit.xml"
    gate = ["quality", "--all", str(folder), "--gate", "--junit", str(junit)]
    run_cli(gate, out / f"{name}-gate")
    sweep = ["rescore", str(folder), "--sweep", "groundedness.ok_min=0.8:0.95:0.05"]
    run_cli([*sweep, "--format", "json"], out / f"{name}-sweep.json")
    if site:
        run_cli(["view", str(folder), "-o", str(out / f"{name}-site")], out / f"{name}-view")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("--fleet", type=Path, action="append", default=[])
    p.add_argument("--no-site", action="store_true", help="skip toolkit view (the slowest)")
    p.add_argument("--only", action="append", default=[], help="only this data set (repeat)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sets = {**SAMPLES, **{f.name: f for f in args.fleet}}
    sets = {k: v for k, v in sets.items() if not args.only or k in args.only}
    for name, folder in sets.items():
        print(name, file=sys.stderr)
        api_outputs(name, folder, args.out)
        cli_outputs(name, folder, args.out, site=not args.no_site)
    for run in sorted((ROOT / "sample_runs" / "universes").iterdir()):
        run_cli(["quality", str(run), "--format", "json"], args.out / f"run-{run.name}.json")
    run_cli(
        ["compare", str(SAMPLES["compare-a"]), str(SAMPLES["compare-b"]), "--format", "json"],
        args.out / "compare.json",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
