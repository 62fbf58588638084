"""Write the sample treatment-vs-control experiments in sample_runs/experiments/.

Usage: python sample_runs/make_experiments.py [OUT_DIR]

Three files, written for this project:

* ``harbour_council_gate.json``: TinyTroupe's results format. Thirty townsfolk of an
  invented harbour council brainstorm a winter festival in six sessions, once with an
  action-correction gate (Treatment) and once without (Control): per-agent 0-9 judge
  scores for Persona Adherence, Self-consistency and Fluency, per-session Divergence and
  ideas_qty. The gate buys adherence and costs fluency; two Treatment adherence scores
  are null (the judge did not answer). Like TinyTroupe, the file carries its own Welch
  test per metric under ``Control.statistical_test_results_vs_others`` (computed here
  with the ``statistics`` module and scipy's t distribution, nulls left out).
* ``orchard_variety.csv``: a tidy score table, as the persona scorers write it for two
  runs of the same eight characters (``run`` ``orchard-a`` with a variety prompt,
  ``orchard-b`` without): group, agent, dimension, score; ``ideas_quantity`` is scored
  once per run, so its test is absent (one score per group).
* ``harbour_council_reference.json``: a reference table for the gate experiment, as an
  earlier run with another model reported it, for the directional check: it agrees on
  every metric but Divergence.
* ``lantern_fair_arms.json``: TinyTroupe's results format with one Control and two
  treatment groups (``Gate`` and ``Gate+Variety``) of 24 stall-keepers planning a lantern
  fair: several treatments against one control, and a one-way ANOVA over the three.
  ``ideas_qty`` is skewed (most agents offer none or one idea, a few many), so its
  Shapiro-Wilk check fails; ``Fluency`` of ``Gate+Variety`` is spread wider than the
  control's. No stored test results (the file was saved before TinyTroupe's tests ran).
* ``harbour_council_office_report.json``: the same gate experiment as the-office's
  experiment runner reports it (``{scenario, seed, agentsCount, environmentsCount,
  metrics: {<dimension>: {treatment, control, delta, tTest, effectSize}}, displayLabels,
  timestamp}``), from a rerun with 24 agents per arm: its summaries only, numbers written
  as JavaScript's JSON.stringify writes them. Against the reference it keeps the
  direction of adherence and ideas but not of fluency: 2 of 3 significant findings.

Everything is drawn from ``random.Random(seed)``, so the output is byte-for-byte stable.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import statistics
from pathlib import Path

from scipy import stats as sps

AGENTS = 30
SESSIONS = 6

#: metric -> (control mean, treatment mean, sd), per agent.
AGENT_METRICS: dict[str, tuple[float, float, float]] = {
    "Persona Adherence": (6.1, 7.0, 1.3),
    "Self-consistency": (6.8, 6.6, 1.2),
    "Fluency": (7.4, 6.5, 0.9),
}
#: metric -> (control mean, treatment mean, sd), per session.
SESSION_METRICS: dict[str, tuple[float, float, float]] = {
    "Divergence": (6.2, 5.0, 1.0),
    "ideas_qty": (6.0, 9.5, 2.0),
}

CHARACTERS = [
    "Wren Halloway",
    "Ossian Pike",
    "Marisol Vane",
    "Tobiah Crane",
    "Ilse Marrow",
    "Fenwick Doyle",
    "Agathe Brune",
    "Casimir Holt",
]
DIMENSIONS: dict[str, tuple[float, float, float]] = {
    "adherence": (6.9, 6.4, 1.0),
    "consistency": (7.2, 6.9, 0.9),
    "fluency": (6.0, 7.3, 0.8),
    "convergence": (6.3, 6.5, 1.1),
}


def _score(rng: random.Random, mean: float, sd: float, top: int = 9) -> int:
    return max(0, min(top, round(rng.gauss(mean, sd))))


def welch(control: list[int | None], treatment: list[int | None]) -> dict[str, object]:
    """What TinyTroupe stores for one metric: its t is control - treatment."""
    c = [float(x) for x in control if x is not None]
    t = [float(x) for x in treatment if x is not None]
    c_mean, t_mean = statistics.fmean(c), statistics.fmean(t)
    c_sd, t_sd = statistics.stdev(c), statistics.stdev(t)
    v_c, v_t = c_sd**2 / len(c), t_sd**2 / len(t)
    se = math.sqrt(v_c + v_t)
    df = (v_c + v_t) ** 2 / (v_c**2 / (len(c) - 1) + v_t**2 / (len(t) - 1))
    t_stat = (c_mean - t_mean) / se
    p = float(2 * sps.t.sf(abs(t_stat), df))
    crit = float(sps.t.ppf(0.975, df))
    diff = t_mean - c_mean
    pooled = math.sqrt(((len(c) - 1) * c_sd**2 + (len(t) - 1) * t_sd**2) / (len(c) + len(t) - 2))
    return {
        "test_type": "Welch t-test (unequal variance)",
        "control_mean": c_mean,
        "treatment_mean": t_mean,
        "mean_difference": diff,
        "percent_change": diff / c_mean * 100,
        "t_statistic": t_stat,
        "p_value": p,
        "confidence_interval": [diff - crit * se, diff + crit * se],
        "confidence_level": 0.95,
        "significant": p < 0.05,
        "degrees_of_freedom": df,
        "control_sample_size": len(c),
        "treatment_sample_size": len(t),
        "control_std": c_sd,
        "treatment_std": t_sd,
        "effect_size": diff / pooled,
    }


def harbour_council(rng: random.Random) -> dict[str, object]:
    groups: dict[str, dict[str, object]] = {}
    for group, index in (("Control", 0), ("Treatment", 1)):
        results: dict[str, list[int | None]] = {}
        for metric, spec in AGENT_METRICS.items():
            mean, sd = spec[index], spec[2]
            results[metric] = [_score(rng, mean, sd) for _ in range(AGENTS)]
        for metric, spec in SESSION_METRICS.items():
            mean, sd = spec[index], spec[2]
            top = 30 if metric == "ideas_qty" else 9
            results[metric] = [_score(rng, mean, sd, top) for _ in range(SESSIONS)]
        groups[group] = {"results": results}
    treatment = groups["Treatment"]["results"]
    assert isinstance(treatment, dict)
    treatment["Persona Adherence"][4] = None
    treatment["Persona Adherence"][17] = None
    control = groups["Control"]["results"]
    assert isinstance(control, dict)
    groups["Control"]["statistical_test_results_vs_others"] = {
        "Treatment": {metric: welch(control[metric], treatment[metric]) for metric in control}
    }
    return {
        "experiments": groups,
        "active_experiment": None,
        "finished_all_experiments": True,
        "finished_experiments": ["Control", "Treatment"],
    }


def orchard_variety(rng: random.Random) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["experiment", "run", "group", "agent", "dimension", "score"])
    for run, group, index in (("orchard-a", "treatment", 1), ("orchard-b", "control", 0)):
        for agent in CHARACTERS:
            for dimension, spec in DIMENSIONS.items():
                score = round(min(9.0, max(0.0, rng.gauss(spec[index], spec[2]))), 2)
                writer.writerow(["orchard_variety", run, group, agent, dimension, f"{score:.2f}"])
        ideas = 14 if group == "treatment" else 9
        writer.writerow(["orchard_variety", run, group, "(environment)", "ideas_quantity", ideas])
    return out.getvalue()


def reference() -> dict[str, object]:
    return {
        "experiments": {
            "harbour_council_gate": {
                "label": "Harbour council, action-correction gate (earlier run, other model)",
                "metrics": {
                    "Persona Adherence": {"delta": 0.71, "p_value": 0.012},
                    "Self-consistency": {"delta": 0.12, "p_value": 0.62},
                    "Fluency": {"delta": -0.66, "p_value": "<0.001"},
                    "Divergence": {"delta": 0.35, "p_value": 0.61},
                    "ideas_qty": {"delta": 2.9, "p_value": 0.004},
                },
            }
        }
    }


#: group -> (Persona Adherence mean, Fluency mean, Fluency sd, ideas_qty rate)
ARMS: dict[str, tuple[float, float, float, float]] = {
    "Control": (6.0, 7.2, 0.8, 0.8),
    "Gate": (6.9, 6.6, 0.9, 1.1),
    "Gate+Variety": (6.8, 7.4, 1.9, 2.6),
}
STALL_KEEPERS = 24


def lantern_fair(rng: random.Random) -> dict[str, object]:
    groups: dict[str, dict[str, object]] = {}
    for group, (adherence, fluency, spread, rate) in ARMS.items():
        groups[group] = {
            "results": {
                "Persona Adherence": [_score(rng, adherence, 1.1) for _ in range(STALL_KEEPERS)],
                "Fluency": [_score(rng, fluency, spread) for _ in range(STALL_KEEPERS)],
                # a count with a long right tail: exponential waiting times, rounded down
                "ideas_qty": [int(rng.expovariate(1 / rate)) for _ in range(STALL_KEEPERS)],
            }
        }
    return {
        "experiments": groups,
        "active_experiment": None,
        "finished_all_experiments": True,
        "finished_experiments": list(ARMS),
    }


#: the-office rerun of the gate experiment: dimension -> (T mean, T sd, C mean, C sd, n).
OFFICE_RERUN: dict[str, tuple[float, float, float, float, int]] = {
    "adherence": (7.125, 1.2619, 5.75, 1.1516, 24),
    "consistency": (6.5, 1.1795, 6.7083, 0.9546, 24),
    "fluency": (7.2917, 0.9079, 7.0, 0.6594, 24),
    "convergence": (5.1667, 0.7528, 6.0, 0.6325, 6),
    "ideas_quantity": (9.8333, 1.4720, 5.5, 1.2247, 6),
}
OFFICE_LABELS = {
    "adherence": "persona_adherence",
    "consistency": "self_consistency",
    "fluency": "fluency",
    "convergence": "divergence",
    "ideas_quantity": "ideas_qty",
}


def office_report() -> dict[str, object]:
    """the-office's runner report of the rerun: Welch's t (group A the treatment), its
    two-sided p, significance at p <= 0.05 and Cohen's d over the unweighted pooled sd,
    as the runner computes them."""
    metrics: dict[str, object] = {}
    for dim, (t_mean, t_sd, c_mean, c_sd, n) in OFFICE_RERUN.items():
        va, vb = t_sd**2 / n, c_sd**2 / n
        t = (t_mean - c_mean) / math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1))
        p = float(2 * sps.t.sf(abs(t), df))
        metrics[dim] = {
            "treatment": {"mean": t_mean, "sd": t_sd},
            "control": {"mean": c_mean, "sd": c_sd},
            "delta": t_mean - c_mean,
            "tTest": {
                "tStatistic": t, "degreesOfFreedom": df, "pValue": p, "significant": p <= 0.05,
                "meanA": t_mean, "meanB": c_mean, "sdA": t_sd, "sdB": c_sd,
            },
            "effectSize": (t_mean - c_mean) / math.sqrt((t_sd**2 + c_sd**2) / 2),
        }  # fmt: skip
    return {
        "scenario": "harbour-council-gate",
        "seed": 7,
        "agentsCount": 48,
        "environmentsCount": 12,
        "metrics": metrics,
        "displayLabels": OFFICE_LABELS,
        "timestamp": "2026-11-20T14:02:11.907Z",
    }


def _js_numbers(value: object) -> object:
    """Whole floats as integers, as JSON.stringify writes them (6, not 6.0)."""
    if isinstance(value, dict):
        return {k: _js_numbers(v) for k, v in value.items()}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def write(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20261122)
    (out_dir / "harbour_council_gate.json").write_text(
        json.dumps(harbour_council(rng), indent=2) + "\n", encoding="utf-8"
    )
    (out_dir / "orchard_variety.csv").write_text(orchard_variety(rng), encoding="utf-8")
    (out_dir / "harbour_council_reference.json").write_text(
        json.dumps(reference(), indent=2) + "\n", encoding="utf-8"
    )
    (out_dir / "lantern_fair_arms.json").write_text(
        json.dumps(lantern_fair(random.Random(20261123)), indent=2) + "\n", encoding="utf-8"
    )
    (out_dir / "harbour_council_office_report.json").write_text(
        json.dumps(_js_numbers(office_report()), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    from _outputs import output_paths

    write(*output_paths(__doc__, ("OUT_DIR", Path(__file__).parent / "experiments")))
