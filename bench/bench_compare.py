"""Is `toolkit compare` right? A/A calibration and power, on a seeded fleet.

Usage:
    python bench/bench_compare.py [--scenarios 50] [--splits 1000] [--seed 1]

A benchmark, not a test: it prints numbers for docs/performance.md and
docs/rubrics/compare.md, and asserts nothing.

* **Fleet.** Version A of sample_runs/make_compare.py's model, run twice on each of
  ``--scenarios`` scenarios (two runs of the same agent on the same scenario, with
  different seeds), scored with the simulation rubric.
* **A/A calibration.** ``--splits`` times, each scenario's two runs are dealt at random
  to arms A and B, and the arms compared (paired, Wilcoxon signed-rank). Both arms are
  the same agent, so a test at alpha 0.05 should call about 5 % of the splits
  "significant": with 1,000 splits, the binomial band [3.6 %, 6.4 %]. Reported per
  dimension (uncorrected p), and for "any dimension significant after Holm" (the rate
  a no-regression gate would fire at on noise: at most alpha).
* **Power.** On the same random splits (50 pairs with the default 50 scenarios), B's
  groundedness is shifted by half a standard deviation of the paired differences
  (a planted effect d_z = 0.5 on real data), and the share of splits where compare
  finds it is reported, raw and after Holm across all dimensions (target >= 90 %);
  beside it the same on normal data and the paired t-test's theoretical power.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from toolkit.fleet.compare import arm_scores  # noqa: E402
from toolkit.rubrics.compare import adjust, compare_scores, paired_t_power  # noqa: E402

ALPHA = 0.05
SHIFTED = "groundedness"


def _maker() -> object:
    path = HERE.parent / "sample_runs" / "make_compare.py"
    spec = importlib.util.spec_from_file_location("make_compare", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fleet_scores(scenarios: int, out: Path) -> pl.DataFrame:
    """Version A of the sample model on ``scenarios`` scenarios, two runs each, scored."""
    maker = _maker()
    maker.write(out, scenarios)  # type: ignore[attr-defined]
    return arm_scores(out / "a", "simulation").frame


def band(n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The 95 % binomial band of the rate of ``n`` tests at level ``alpha``."""
    half = 1.96 * (alpha * (1 - alpha) / n) ** 0.5
    return alpha - half, alpha + half


def split(frame: pl.DataFrame, rng: np.random.Generator) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each unit's two runs dealt at random to A and B."""
    runs = frame.select("unit", "run").unique().sort("unit", "run")
    first = runs.group_by("unit", maintain_order=True).agg(pl.col("run"))
    pick = rng.integers(0, 2, size=first.height)
    to_a = [r[i] for r, i in zip(first["run"].to_list(), pick, strict=True)]
    in_a = pl.col("run").is_in(to_a)
    return frame.filter(in_a), frame.filter(~in_a)


def shift(b: pl.DataFrame, a: pl.DataFrame, dim: str, dz: float) -> pl.DataFrame:
    """B with ``dim`` moved up by ``dz`` standard deviations of the paired differences."""
    pa = a.filter(pl.col("dimension") == dim).select("unit", pl.col("value").alias("va"))
    pb = b.filter(pl.col("dimension") == dim).select("unit", pl.col("value").alias("vb"))
    d = pa.join(pb, on="unit").select(pl.col("vb") - pl.col("va"))["vb"].to_numpy()
    sd = float(np.std(d, ddof=1))
    step = dz * sd if sd > 0 else dz
    return b.with_columns(
        pl.when(pl.col("dimension") == dim)
        .then(pl.col("value") + step)
        .otherwise(pl.col("value"))
        .alias("value")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=50)
    parser.add_argument("--splits", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        frame = fleet_scores(args.scenarios, Path(tmp))
        built = time.perf_counter() - t0
    dims = list(dict.fromkeys(frame["dimension"].to_list()))
    value = pl.coalesce(pl.col("passed").cast(pl.Float64), pl.col("value"))
    spread = dict(
        frame.with_columns(value.alias("x"))
        .group_by("dimension")
        .agg(pl.col("x").n_unique())
        .rows()
    )
    raw_hits = dict.fromkeys(dims, 0)
    tested = dict.fromkeys(dims, 0)
    any_holm = 0
    power_raw = power_holm = 0
    t0 = time.perf_counter()
    for _ in range(args.splits):
        a, b = split(frame, rng)
        res = compare_scores(a, b, resamples=0)
        rows = res.dimensions.select("dimension", "p", "p_adj").rows()
        for dim, p, _ in rows:
            if p is not None:
                tested[dim] += 1
                raw_hits[dim] += p < ALPHA
        any_holm += any(q is not None and q < ALPHA for _, _, q in rows)
        planted = compare_scores(a, shift(b, a, SHIFTED, 0.5), resamples=0)
        row = planted.dimensions.filter(pl.col("dimension") == SHIFTED).row(0, named=True)
        power_raw += row["p"] < ALPHA
        power_holm += row["p_adj"] < ALPHA
    loop = time.perf_counter() - t0
    # The same on normal data: 50 pairs, d_z = 0.5, Wilcoxon and Holm over 9 dimensions
    # of which 8 are null.
    normal_hits = normal_holm = 0
    from scipy import stats

    pairs = args.scenarios
    for _ in range(args.splits):
        d = rng.normal(0, 1, size=(9, pairs))
        d[0] += 0.5
        p = [float(stats.wilcoxon(row).pvalue) for row in d]
        normal_hits += p[0] < ALPHA
        normal_holm += adjust(p, "holm")[0] < ALPHA
    lo, hi = band(args.splits)
    print(f"machine: {platform.machine()}, {platform.python_version()}, "
          f"{args.scenarios} scenarios x 2 runs, {args.splits} splits, "
          f"seed {args.seed}")  # fmt: skip
    print(f"fleet written and scored in {built:.1f} s; {2 * args.splits} comparisons in "
          f"{loop:.1f} s ({1000 * loop / (2 * args.splits):.1f} ms each, "
          "no bootstrap)")  # fmt: skip
    print(f"\nA/A: share of splits with p < {ALPHA} (band [{lo:.1%}, {hi:.1%}])")
    print(f"{'dimension':<20} {'tested':>6} {'rate':>6}  in band")
    for dim in dims:
        if spread.get(dim, 0) < 2:
            print(f"{dim:<20} {tested[dim]:>6} {'-':>6}  (one value in the whole fleet: p = 1)")
        elif tested[dim]:
            rate = raw_hits[dim] / tested[dim]
            inside = "yes" if lo <= rate <= hi else ("below" if rate < lo else "ABOVE")
            print(f"{dim:<20} {tested[dim]:>6} {rate:>6.1%}  {inside}")
        else:
            print(f"{dim:<20} {0:>6} {'-':>6}  (no variation: never tested)")
    print(f"any dimension after Holm (the gate on noise): {any_holm / args.splits:.1%}")
    print(f"\npower, {SHIFTED} shifted by 0.5 SD of the paired differences, {pairs} pairs:")
    print(f"  raw p < {ALPHA}: {power_raw / args.splits:.1%}; after Holm over "
          f"{len(dims)} dimensions: {power_holm / args.splits:.1%}")  # fmt: skip
    print(f"  normal data, Wilcoxon: {normal_hits / args.splits:.1%}; after Holm over 9 "
          f"(8 null): {normal_holm / args.splits:.1%}; paired t theory: "
          f"{paired_t_power(0.5, pairs):.1%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
