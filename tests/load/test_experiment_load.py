"""Loading experiment results (TinyTroupe JSON, tidy score tables, reference tables)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.errors import InputError
from toolkit.frames import (
    EXPERIMENT_REFERENCE_SCHEMA,
    EXPERIMENT_REPORTED_SCHEMA,
    EXPERIMENT_SCORES_SCHEMA,
)
from toolkit.load.experiments import (
    load_experiment,
    load_experiments,
    load_reference_table,
    scores_from_frame,
    split_named_path,
)

SAMPLES = SAMPLE_RUNS / "experiments"


def results(control: dict[str, list[Any]], treatment: dict[str, list[Any]], **extra: Any) -> Any:
    return {
        "experiments": {
            "Control": {"results": control, **extra},
            "Treatment": {"results": treatment},
        },
        "active_experiment": None,
        "finished_all_experiments": True,
    }


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------------------
# TinyTroupe results JSON
# ---------------------------------------------------------------------------


def test_results_json_becomes_one_row_per_score(tmp_path: Path) -> None:
    path = write(tmp_path / "gate.json", results({"Fluency": [7, 8]}, {"Fluency": [6, None, 9]}))
    loaded = load_experiment(path)
    assert loaded.scores.schema == pl.Schema(EXPERIMENT_SCORES_SCHEMA)
    assert loaded.reported.schema == pl.Schema(EXPERIMENT_REPORTED_SCHEMA)
    assert loaded.scores.select("experiment", "group", "metric", "unit", "score").rows() == [
        ("gate", "control", "Fluency", "0", 7.0),
        ("gate", "control", "Fluency", "1", 8.0),
        ("gate", "treatment", "Fluency", "0", 6.0),
        ("gate", "treatment", "Fluency", "1", None),  # a null stays, to be counted
        ("gate", "treatment", "Fluency", "2", 9.0),
    ]
    assert loaded.scores["source_file"][0] == str(path)
    assert loaded.warnings == ()


def test_experiment_name_and_metric_renames(tmp_path: Path) -> None:
    path = write(tmp_path / "x.json", results({"Hard Persona Adherence": [1]}, {}))
    loaded = load_experiment(path, experiment="exp_1", rename={"Hard Persona Adherence": "pa"})
    assert loaded.scores.select("experiment", "metric").row(0) == ("exp_1", "pa")
    assert loaded.warnings == (f"{path}: Treatment has no results",)


def test_two_metrics_renamed_to_one_name_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "x.json", results({"A": [1], "B": [2]}, {}))
    with pytest.raises(InputError, match="both renamed to 'same'"):
        load_experiment(path, rename={"A": "same", "B": "same"})


@pytest.mark.parametrize(
    ("value", "reason"),
    [("seven", "a number or null"), (True, "a number or null"), ([7], "a number or null")],
)
def test_a_score_that_is_not_a_number_names_file_field_and_value(
    tmp_path: Path, value: Any, reason: str
) -> None:
    path = write(tmp_path / "bad.json", results({"Fluency": [7, 8, value]}, {}))
    with pytest.raises(InputError) as err:
        load_experiment(path)
    message = str(err.value)
    assert message.startswith(f"{path}: experiments.Control.results.Fluency[2]={value!r}: ")
    assert reason in message and "\n" not in message


def test_not_a_results_file(tmp_path: Path) -> None:
    path = write(tmp_path / "other.json", {"rows": []})
    with pytest.raises(InputError, match="not a TinyTroupe results file"):
        load_experiment(path)
    path = write(tmp_path / "groups.json", {"experiments": {"exp_1": {"metrics": {}}}})
    with pytest.raises(InputError, match="no Treatment or Control group") as err:
        load_experiment(path)
    assert "experiments=['exp_1']" in str(err.value)


def test_results_of_the_wrong_shape_name_the_field(tmp_path: Path) -> None:
    path = write(tmp_path / "shape.json", {"experiments": {"Control": {"results": {"F": 7}}}})
    with pytest.raises(InputError) as err:
        load_experiment(path)
    assert "experiments.Control.results.F=7" in str(err.value)


def test_several_treatments_each_meet_the_same_control(tmp_path: Path) -> None:
    data = results({"F": [1, 2]}, {"F": [3, 4]})
    data["experiments"]["Treatment B"] = {"results": {"F": [9, 9]}}
    loaded = load_experiment(write(tmp_path / "three.json", data))
    assert loaded.experiments == ["three / Treatment", "three / Treatment B"]
    by = loaded.scores.group_by("experiment", "group", maintain_order=True).agg("score")
    assert sorted(by.rows()) == [
        ("three / Treatment", "control", [1.0, 2.0]),
        ("three / Treatment", "treatment", [3.0, 4.0]),
        ("three / Treatment B", "control", [1.0, 2.0]),
        ("three / Treatment B", "treatment", [9.0, 9.0]),
    ]
    assert set(loaded.scores["family"]) == {"three"}
    assert loaded.warnings == ()


def test_without_a_control_other_groups_are_ignored_with_a_warning(tmp_path: Path) -> None:
    data = {"experiments": {"Treatment": {"results": {"F": [1, 2]}}, "Other": {"results": {}}}}
    loaded = load_experiment(write(tmp_path / "nocontrol.json", data))
    assert loaded.scores.height == 2
    assert any("'Other' ignored" in w for w in loaded.warnings)
    assert any("no Control group" in w for w in loaded.warnings)


def test_the_authors_tests_are_kept_with_their_sign(tmp_path: Path) -> None:
    reported = {"Treatment": {"F": {
        "test_type": "Welch t-test (unequal variance)", "control_mean": 7.5, "treatment_mean": 3.5,
        "mean_difference": -4.0, "t_statistic": 5.0, "p_value": 0.01, "degrees_of_freedom": 2.0,
        "confidence_interval": [-6.0, -2.0], "confidence_level": 0.95, "significant": True,
        "control_sample_size": 2, "treatment_sample_size": 2, "control_std": 0.7,
        "treatment_std": 0.7, "effect_size": -5.7, "percent_change": -53.3}}}  # fmt: skip
    path = write(
        tmp_path / "r.json",
        results({"F": [7, 8]}, {"F": [3, 4]}, statistical_test_results_vs_others=reported),
    )
    row = load_experiment(path).reported.row(0, named=True)
    assert row["reported_t"] == 5.0 and row["delta"] == -4.0
    assert (row["ci_low"], row["ci_high"]) == (-6.0, -2.0)
    assert (row["t_n"], row["c_n"], row["significant"]) == (2, 2, True)


def test_named_paths_and_duplicate_experiment_names(tmp_path: Path) -> None:
    a = write(tmp_path / "a.json", results({"F": [1]}, {"F": [2]}))
    assert split_named_path(f"exp_1={a}") == ("exp_1", a)
    assert split_named_path(str(a)) == (None, a)
    loaded = load_experiments([f"first={a}", ("second", a)])
    assert loaded.experiments == ["first", "second"]
    with pytest.raises(InputError, match="experiment name already used"):
        load_experiments([a, a])


def test_missing_and_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_experiment(tmp_path / "nope.json")
    odd = tmp_path / "scores.txt"
    odd.write_text("x")
    with pytest.raises(InputError, match="unknown experiment file type"):
        load_experiment(odd)
    broken = tmp_path / "broken.json"
    broken.write_text('{"experiments": ')
    with pytest.raises(InputError, match="not valid JSON"):
        load_experiment(broken)


# ---------------------------------------------------------------------------
# Tidy score tables (the persona scorers' output for two runs)
# ---------------------------------------------------------------------------

CSV = """experiment,run,group,agent,dimension,score
study,r1,Treatment,Ada,adherence,7.5
study,r1,treatment,Bo,adherence,
study,r2,control,Ada,adherence,6
study,r2,control,Bo,adherence,5.25
"""


def test_csv_table_loads_with_aliases(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text(CSV)
    frame = load_experiment(path).scores
    assert frame.schema == pl.Schema(EXPERIMENT_SCORES_SCHEMA)
    assert frame.select("experiment", "group", "metric", "unit", "score").rows() == [
        ("study", "treatment", "adherence", "Ada", 7.5),
        ("study", "treatment", "adherence", "Bo", None),
        ("study", "control", "adherence", "Ada", 6.0),
        ("study", "control", "adherence", "Bo", 5.25),
    ]


def test_jsonl_and_parquet_tables_load_the_same(tmp_path: Path) -> None:
    csv = tmp_path / "s.csv"
    csv.write_text(CSV)
    expected = load_experiment(csv).scores.drop("source_file")
    rows = [
        {"experiment": "study", "group": g, "agent": a, "metric": "adherence", "score": s}
        for g, a, s in [("treatment", "Ada", 7.5), ("treatment", "Bo", None),
                        ("control", "Ada", 6), ("control", "Bo", 5.25)]
    ]  # fmt: skip
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert load_experiment(jsonl).scores.drop("source_file").equals(expected)
    parquet = tmp_path / "s.parquet"
    pl.DataFrame(rows).write_parquet(parquet)
    assert load_experiment(parquet).scores.drop("source_file").equals(expected)


def test_a_table_of_runs_needs_a_run_to_group_mapping(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("run,agent,metric,score\nr1,Ada,fluency,7\nr2,Ada,fluency,5\n")
    with pytest.raises(InputError, match="say which run is the treatment"):
        load_experiment(path)
    frame = load_experiment(path, groups={"r1": "treatment", "r2": "control"}).scores
    assert frame["group"].to_list() == ["treatment", "control"]
    assert frame["experiment"].to_list() == ["runs", "runs"]  # the file's stem
    with pytest.raises(InputError) as err:
        load_experiment(path, groups={"r1": "treatment"})
    assert str(err.value) == (
        f"{path}:3: run='r2': this run is mapped to neither treatment nor control"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("group,agent,metric,score\ncontrol,A,f,7\ncontrol,B,f,seven\n",
         ":3: score='seven': a score must be a number or empty"),
        ("group,agent,metric,score\nplacebo,A,f,7\n",
         ":2: group='placebo': group must be treatment or control"),
        ("group,agent,metric\ncontrol,A,f\n", ": columns=['group', 'agent', 'metric']: no 'score'"),
        ("group,agent,metric,score\ncontrol,A,f,7\ncontrol,A,f,8\n",
         ": agent='A': agent 'A' has two 'f' scores in the control group"),
        ("group,agent,dimension,metric,score\ncontrol,A,f,f,7\n",
         "columns ['metric', 'dimension'] all mean 'metric'"),
    ],
)  # fmt: skip
def test_bad_tidy_tables_name_line_field_and_value(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(body)
    with pytest.raises(InputError) as err:
        load_experiment(path)
    assert expected in str(err.value) and str(err.value).startswith(str(path))


def test_persona_dimension_frames_of_two_runs_feed_the_experiment() -> None:
    # the shape of a persona evaluation's per-dimension frame: window 0 is the whole run,
    # 1..k successive windows; environment dimensions have no agent id
    rows = [
        ("gate-on", 0, "agent", "mags", "Mags", "adherence", 7.5),
        ("gate-on", 1, "agent", "mags", "Mags", "adherence", 6.0),
        ("gate-on", 0, "agent", "otis", "Otis", "adherence", 8.0),
        ("gate-on", 0, "environment", None, None, "ideas_quantity", 4.0),
        ("gate-off", 0, "agent", "mags", "Mags", "adherence", 6.5),
        ("gate-off", 0, "agent", "otis", "Otis", "adherence", None),
        ("gate-off", 2, "agent", "otis", "Otis", "adherence", 3.0),
    ]
    frame = pl.DataFrame(
        rows,
        schema=["run", "window", "target_type", "agent_id", "agent_name", "dimension", "score"],
        orient="row",
    ).with_columns(judged=pl.lit(3), absent=pl.lit(0))
    out = scores_from_frame(
        frame, experiment="gate", groups={"gate-on": "treatment", "gate-off": "control"}
    )
    assert out.select("experiment", "group", "metric", "unit", "score").rows() == [
        ("gate", "treatment", "adherence", "mags", 7.5),
        ("gate", "treatment", "adherence", "otis", 8.0),
        ("gate", "treatment", "ideas_quantity", "0", 4.0),
        ("gate", "control", "adherence", "mags", 6.5),
        ("gate", "control", "adherence", "otis", None),
    ]
    assert out["source_file"].unique().to_list() == ["(frame)"]


def test_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"group": "control", "metric": "f", "score": 1}\n\n[1, 2]\n')
    with pytest.raises(InputError, match=r"bad.jsonl:3: .*each line must be a JSON object"):
        load_experiment(path)


# ---------------------------------------------------------------------------
# Reference tables
# ---------------------------------------------------------------------------


def test_reference_table_reads_numbers_and_below_p(tmp_path: Path) -> None:
    path = write(tmp_path / "ref.json", {"experiments": {"e": {"label": "x", "metrics": {
        "m1": {"t_mean": 5.81, "delta": -0.92, "p_value": "<0.001"},
        "m2": {"delta": 0.5, "p_value": 0.05}}}}})  # fmt: skip
    frame = load_reference_table(path)
    assert frame.schema == pl.Schema(EXPERIMENT_REFERENCE_SCHEMA)
    assert frame.select("metric", "t_mean", "delta", "p_value", "p_below").rows() == [
        ("m1", 5.81, -0.92, 0.001, True),
        ("m2", None, 0.5, 0.05, False),
    ]


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ({"delta": 1, "p_value": "small"}, "experiments.e.metrics.m.p_value='small'"),
        ({"delta": 1, "p_value": 1.5}, "a p-value must lie between 0 and 1"),
        ({"p_value": 0.5}, "experiments.e.metrics.m.delta=None: required"),
        ({"delta": "big"}, "experiments.e.metrics.m.delta='big': must be a number"),
    ],
)
def test_bad_reference_cells(tmp_path: Path, cell: dict[str, Any], expected: str) -> None:
    path = write(tmp_path / "ref.json", {"experiments": {"e": {"metrics": {"m": cell}}}})
    with pytest.raises(InputError) as err:
        load_reference_table(path)
    assert expected in str(err.value)


# ---------------------------------------------------------------------------
# Bundled samples and real runs
# ---------------------------------------------------------------------------


def test_sample_experiments_load() -> None:
    loaded = load_experiments(
        [SAMPLES / "harbour_council_gate.json", SAMPLES / "orchard_variety.csv"]
    )
    assert loaded.experiments == ["harbour_council_gate", "orchard_variety"]
    nulls = loaded.scores.filter(pl.col("score").is_null())
    assert nulls.select("group", "metric", "unit").rows() == [
        ("treatment", "Persona Adherence", "4"),
        ("treatment", "Persona Adherence", "17"),
    ]
    assert loaded.scores.filter(pl.col("experiment") == "orchard_variety").height == 2 * (8 * 4 + 1)
    assert load_reference_table(SAMPLES / "harbour_council_reference.json").height == 5
    # the gate file carries its own test for each of its five metrics
    assert loaded.reported["metric"].to_list() == [
        "Persona Adherence", "Self-consistency", "Fluency", "Divergence", "ideas_qty"
    ]  # fmt: skip
    assert loaded.reported.filter(pl.col("metric") == "Persona Adherence")["t_n"][0] == 28


def test_every_real_tinytroupe_file_loads(real_runs: Path) -> None:
    folder = real_runs / "experiments" / "tinytroupe-june-2025"
    files = sorted(p for p in folder.glob("*.json") if p.name != "table1.published.json")
    assert len(files) == 8
    loaded = load_experiments(files)
    counts = dict(
        loaded.scores.group_by("experiment", "group", "metric")
        .len()
        .select(pl.concat_str("experiment", "group", "metric", separator="|"), "len")
        .iter_rows()
    )
    exp1 = "brainstorming_and_focus_group_quantitative_experimentation_1c"
    assert counts[f"{exp1}|treatment|Hard Persona Adherence"] == 200
    assert counts[f"{exp1}|treatment|ideas_qty"] == 39
    assert counts[f"{exp1}|control|ideas_qty"] == 40
    assert loaded.scores["score"].null_count() == 0
    assert loaded.warnings == (
        f"{folder / 'market_research_quantitative_experimentation_2.json'}: "
        "Treatment has no results",
    )
    assert load_reference_table(folder / "table1.published.json").height == 19


def test_two_scored_persona_runs_feed_the_experiment() -> None:
    """The persona scorers' own output for week 1 (control) and week 2 (treatment)."""
    import toolkit as tk
    from toolkit.rubrics.experiment import experiment_stats

    persona = SAMPLE_RUNS / "persona"
    propositions = tk.load_propositions(persona / "propositions")
    judge = tk.judge_from_spec(f"recorded:{persona / 'cassette.json'}")
    results = [
        tk.score_persona(
            tk.load_chat(persona / f"{week}.jsonl", persona / "personas.yaml"), propositions, judge
        )
        for week in ("radio-week1", "radio-week2")
    ]
    both = pl.concat([r.dimensions for r in results])
    scores = scores_from_frame(
        both, experiment="radio", groups={"radio-week2": "treatment", "radio-week1": "control"}
    )
    stats = {r["metric"]: r for r in experiment_stats(scores).iter_rows(named=True)}
    assert (stats["adherence"]["t_n"], stats["adherence"]["c_n"]) == (4, 4)  # four characters
    assert (stats["ideas_quantity"]["t_n"], stats["ideas_quantity"]["c_n"]) == (1, 1)
    assert stats["ideas_quantity"]["absent_reason"].startswith("treatment has 1 score")
    week1 = both.filter((pl.col("run") == "radio-week1") & (pl.col("dimension") == "adherence"))[
        "score"
    ]
    assert stats["adherence"]["c_mean"] == pytest.approx(sum(week1) / len(week1))
