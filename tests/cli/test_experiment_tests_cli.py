"""`toolkit experiment --test`: the chosen test, its caption, the assumption checks."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import SAMPLE_RUNS
from scipy import stats as sps

from toolkit.cli import main

ORCHARD = SAMPLE_RUNS / "experiments" / "orchard_variety.csv"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def orchard(metric: str) -> tuple[list[float], list[float]]:
    """The sample table's scores of one metric, read here with the csv module."""
    with ORCHARD.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["dimension"] == metric and r["score"]]
    t = [float(r["score"]) for r in rows if r["group"] == "treatment"]
    c = [float(r["score"]) for r in rows if r["group"] == "control"]
    return t, c


@pytest.mark.parametrize(
    ("test", "name", "scipy_p"),
    [
        ("student", "Student's two-sided t-test", lambda t, c: sps.ttest_ind(t, c).pvalue),
        ("mannwhitney", "Mann-Whitney U test", lambda t, c: sps.mannwhitneyu(t, c).pvalue),
        ("ks", "two-sample Kolmogorov-Smirnov", lambda t, c: sps.ks_2samp(t, c).pvalue),
    ],
)
def test_the_chosen_test_decides_p_and_names_itself(
    test: str,
    name: str,
    scipy_p,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    code, out, _ = run_cli(["experiment", str(ORCHARD), "--test", test, "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert name in doc["test"]
    cell = doc["experiments"]["orchard_variety"]["metrics"]["fluency"]
    assert cell["test"] == test
    assert cell["p_value"] == pytest.approx(scipy_p(*orchard("fluency")), rel=1e-9)
    _, text, _ = run_cli(["experiment", str(ORCHARD), "--test", test], capsys)
    assert f"* p < 0.05 ({name}" in text


def test_welch_table_shows_the_assumption_checks(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["experiment", str(ORCHARD)], capsys)
    assert code == 0
    lines = out.splitlines()
    start = lines.index("Assumption checks (Shapiro-Wilk per group, Levene across groups):")
    t, c = orchard("convergence")
    assert sps.levene(t, c).pvalue < 0.05  # convergence's spreads differ in the sample
    flagged = [line for line in lines[start + 1 :] if "orchard_variety / convergence" in line]
    assert flagged and "Student's t (--test student) does not" in flagged[0]
    assert lines[-1].endswith("no assumption looks violated (or too few scores)")


def test_json_carries_the_assumption_checks(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["experiment", str(ORCHARD), "--format", "json"], capsys)
    cell = json.loads(out)["experiments"]["orchard_variety"]["metrics"]["fluency"]
    t, c = orchard("fluency")
    assert cell["assumptions"]["t_shapiro_p"] == pytest.approx(sps.shapiro(t).pvalue)
    assert cell["assumptions"]["levene_p"] == pytest.approx(sps.levene(t, c).pvalue)
    assert cell["percent_change"] == pytest.approx(100 * (sum(t) / len(t) / (sum(c) / len(c)) - 1))


def test_rank_tests_print_no_t_test_assumptions(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["experiment", str(ORCHARD), "--test", "mannwhitney"], capsys)
    assert "Assumption checks" not in out


def test_an_unknown_test_exits_2_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["experiment", str(ORCHARD), "--test", "wilcoxon"])
    assert exc.value.code == 2
    assert "--test: invalid choice: 'wilcoxon'" in capsys.readouterr().err


def test_anova_from_the_command_line(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    data = {
        "experiments": {
            "Control": {"results": {"F": [1, 2, 3, 2]}},
            "A": {"results": {"F": [3, 4, 5, 4]}},
            "B": {"results": {"F": [6, 7, 6, 8]}},
        }
    }
    path = tmp_path / "arms.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run_cli(["experiment", str(path), "--test", "anova", "--format", "json"], capsys)
    assert code == 0
    cell = json.loads(out)["families"]["arms"]["F"]
    expected = sps.f_oneway([1, 2, 3, 2], [3, 4, 5, 4], [6, 7, 6, 8])
    assert cell["f_stat"] == pytest.approx(expected.statistic)
    assert cell["p_value"] == pytest.approx(expected.pvalue)
    code, out, _ = run_cli(["experiment", str(path), "--test", "anova"], capsys)
    assert code == 0
    assert out.splitlines()[1].split()[-1] == "<0.001*"
    # The two-group report of the same file: one row per treatment.
    _, out, _ = run_cli(["experiment", str(path)], capsys)
    assert sum(line.startswith("arms / ") for line in out.splitlines()) == 2


def test_anova_refuses_formats_it_does_not_print(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["experiment", str(ORCHARD), "--test", "anova", "--format", "latex"], capsys
    )
    assert code == 2
    assert err == (
        "toolkit experiment: error: --format='latex': --test anova prints a table or JSON\n"
    )


LANTERN = SAMPLE_RUNS / "experiments" / "lantern_fair_arms.json"


def test_sample_with_two_treatments_gives_one_row_each_and_an_anova(
    capsys: pytest.CaptureFixture[str],
) -> None:
    raw = json.loads(LANTERN.read_text(encoding="utf-8"))["experiments"]
    code, out, _ = run_cli(["experiment", str(LANTERN), "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert list(doc["experiments"]) == [
        "lantern_fair_arms / Gate",
        "lantern_fair_arms / Gate+Variety",
    ]
    for arm in ("Gate", "Gate+Variety"):
        cell = doc["experiments"][f"lantern_fair_arms / {arm}"]["metrics"]["Fluency"]
        expected = sps.ttest_ind(
            raw[arm]["results"]["Fluency"], raw["Control"]["results"]["Fluency"], equal_var=False
        )
        assert cell["t_stat"] == pytest.approx(expected.statistic)
        assert cell["p_value"] == pytest.approx(expected.pvalue)
        # the assumption rows follow the table's rows
        assert cell["assumptions"]["c_shapiro_p"] == pytest.approx(
            sps.shapiro(raw["Control"]["results"]["Fluency"]).pvalue
        )
    code, out, _ = run_cli(
        ["experiment", str(LANTERN), "--test", "anova", "--format", "json"], capsys
    )
    assert code == 0
    for metric, cell in json.loads(out)["families"]["lantern_fair_arms"].items():
        groups = [raw[g]["results"][metric] for g in ("Control", "Gate", "Gate+Variety")]
        assert cell["groups"] == ["control", "Gate", "Gate+Variety"]
        assert cell["f_stat"] == pytest.approx(sps.f_oneway(*groups).statistic), metric
        assert cell["p_value"] == pytest.approx(sps.f_oneway(*groups).pvalue), metric


def test_assumption_lines_follow_the_table_order(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    _, out, _ = run_cli(["experiment", str(LANTERN)], capsys)
    lines = out.splitlines()
    rows = [re.split(r"\s{2,}", line)[:2] for line in lines[1:7]]
    start = lines.index("Assumption checks (Shapiro-Wilk per group, Levene across groups):")
    checks = [line.strip().split(": normal p")[0] for line in lines[start + 1 : start + 7]]
    assert checks == [f"{experiment} / {metric}" for experiment, metric in rows]


def test_the_test_choices_of_the_cli_are_the_rubrics_tests_and_anova() -> None:
    """The CLI writes its ``--test`` choices out (``--help`` imports no rubric); they must
    stay the rubric's two-group tests plus ANOVA."""
    from toolkit.cli.experiment import TEST_CHOICES
    from toolkit.rubrics.experiment import TESTS

    assert (*TESTS, "anova") == TEST_CHOICES
