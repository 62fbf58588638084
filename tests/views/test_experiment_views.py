"""The Table-1 report as text, HTML, LaTeX and JSON, and the distribution chart."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from toolkit.frames import EXPERIMENT_SCORES_SCHEMA
from toolkit.load.experiments import load_reference_table
from toolkit.rubrics.experiment import (
    compare_to_reference,
    experiment_stats,
    group_intervals,
)
from toolkit.views.experiment import (
    distribution_chart,
    latex_escape,
    render_experiment_html,
    render_experiment_json,
    render_experiment_latex,
    render_experiment_text,
    table1_frame,
)


def scores(rows: list[tuple[str, str, str, list[float | None]]]) -> pl.DataFrame:
    out = [
        {"experiment": e, "group": g, "metric": m, "unit": str(i), "score": s, "source_file": "x"}
        for e, m, g, values in rows
        for i, s in enumerate(values)
    ]
    return pl.DataFrame(out, schema=EXPERIMENT_SCORES_SCHEMA)


@pytest.fixture
def stats() -> pl.DataFrame:
    return experiment_stats(
        scores(
            [
                # T mean 8.5 sd 0.5345; C mean 2.5; p far below 0.001
                ("exp_a", "idea_count", "treatment", [8, 9, 8, 9, 8, 9, 8, 9]),
                ("exp_a", "idea_count", "control", [2, 3, 2, 3, 2, 3, 2, 3]),
                # T 4 (1), C 6 (3.16), delta -2, p 0.246
                ("exp_a", "fluency", "treatment", [3, 4, 5, None]),
                ("exp_a", "fluency", "control", [2, 4, 6, 8, 10]),
                # one treatment score: absent
                ("exp_b", "adherence", "treatment", [5]),
                ("exp_b", "adherence", "control", [5, 6]),
            ]
        )
    )


def test_table1_cells(stats: pl.DataFrame) -> None:
    frame = table1_frame(stats)
    assert frame.columns == ["experiment", "metric", "n", "treatment", "control", "delta", "pct",
                             "p", "note"]  # fmt: skip
    # percent of the control mean: 6 / 2.5 = 240 %, -2 / 6 = -33.3 %, -0.5 / 5.5 = -9.09 %
    assert frame["pct"].to_list() == ["240.0%", "-33.3%", "-9.1%"]
    rows = frame.rows(named=True)
    assert rows[0]["treatment"] == "8.50 (0.53)" and rows[0]["control"] == "2.50 (0.53)"
    assert rows[0]["delta"] == "6.00" and rows[0]["p"] == "<0.001*"
    assert rows[1]["n"] == "3/5" and rows[1]["treatment"] == "4.00 (1.00)"
    assert rows[1]["control"] == "6.00 (3.16)" and rows[1]["p"] == "0.246"
    assert rows[1]["note"] == "null scores dropped: 1 treatment, 0 control"
    assert rows[2]["treatment"] == "5.00 (-)" and rows[2]["p"] == "-"
    assert rows[2]["note"].startswith("treatment has 1 score")


def test_text_report(stats: pl.DataFrame) -> None:
    text = render_experiment_text(stats, warnings=["x.json: no Treatment group"])
    lines = text.splitlines()
    assert lines[0].split() == ["experiment", "metric", "n", "(T/C)", "T", "mean", "(sd)", "C",
                                "mean", "(sd)", "Δ", "Δ%", "p"]  # fmt: skip
    assert lines[1].split()[-3:] == ["6.00", "240.0%", "<0.001*"]
    assert lines[4].startswith("* p < 0.05 (Welch's two-sided t-test")
    assert "  exp_b / adherence: treatment has 1 score;" in text
    assert lines[-1] == "  - x.json: no Treatment group"
    # the columns line up: every row's p column ends at the same place
    assert len({len(line) for line in lines[:3]}) == 1


def test_alpha_moves_the_stars(stats: pl.DataFrame) -> None:
    loose = experiment_stats(
        scores([("e", "m", "treatment", [3, 4, 5]), ("e", "m", "control", [2, 4, 6, 8, 10])]),
        alpha=0.3,
    )
    assert table1_frame(loose)["p"][0] == "0.246*"
    assert "* p < 0.3 " in render_experiment_text(loose)


def test_text_report_with_directional_check(stats: pl.DataFrame, tmp_path: Path) -> None:
    ref_path = tmp_path / "ref.json"
    ref_path.write_text(json.dumps({"experiments": {"exp_a": {"metrics": {
        "idea_count": {"delta": 5.1, "p_value": "<0.001"},
        "fluency": {"delta": 1.0, "p_value": 0.3}}}}}))  # fmt: skip
    direction = compare_to_reference(stats, load_reference_table(ref_path))
    frame = table1_frame(stats, direction=direction)
    assert frame["check"].to_list() == ["agrees", "DIFFERS", "-"]
    assert frame["ref_delta"].to_list() == ["5.10", "1.00", "-"]
    assert frame["note"][1] == "null scores dropped: 1 treatment, 0 control; opposite direction"
    text = render_experiment_text(stats, direction=direction)
    assert "Directional check: 1/2 rows agree with the reference" in text


def test_html_report(stats: pl.DataFrame) -> None:
    html = render_experiment_html(stats)
    assert html.count("<tr>") + html.count("<tr class='absent'>") == 4  # header + 3 rows
    assert "<tr class='absent'>" in html
    assert "<th class='num'>T mean (sd)</th>" in html and "&lt;0.001*" in html
    assert "<th>experiment</th>" in html and "<td>exp_a</td>" in html  # text left


def test_latex_report(stats: pl.DataFrame) -> None:
    tex = render_experiment_latex(stats, label="tab:x_y")
    lines = tex.splitlines()
    assert lines[0] == r"\begin{table}[ht]" and lines[-1] == r"\end{table}"
    assert r"\toprule" in lines and r"\bottomrule" in lines
    assert r"exp\_a & idea\_count & 8.50 (0.53) & 2.50 (0.53) & 6.00 & $<$0.001$^{*}$ \\" in lines
    assert r" & fluency & 4.00 (1.00) & 6.00 (3.16) & $-$2.00 & 0.246 \\" in lines
    # the experiment changes -> a rule between the groups of rows
    assert lines.index(r"exp\_b & adherence & 5.00 (--) & 5.50 (0.71) & $-$0.50 & -- \\") == (
        lines.index(r" & fluency & 4.00 (1.00) & 6.00 (3.16) & $-$2.00 & 0.246 \\") + 2
    )
    assert r"\label{tab:x\_y}" in lines
    assert latex_escape("50% & $x_1#") == r"50\% \& \$x\_1\#"


def test_json_report_is_a_reference_for_itself(stats: pl.DataFrame, tmp_path: Path) -> None:
    data = json.loads(render_experiment_json(stats))
    cell = data["experiments"]["exp_a"]["metrics"]["fluency"]
    assert cell["t_n"] == 3 and cell["t_nulls"] == 1 and cell["p_display"] == "0.246"
    assert data["alpha"] == 0.05 and data["rubric_version"] == "1.0.0"
    assert data["experiments"]["exp_b"]["metrics"]["adherence"]["p_value"] is None
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    direction = compare_to_reference(stats, load_reference_table(path))
    assert direction.filter(pl.col("agrees").is_not_null())["agrees"].to_list() == [True, True]


def test_distribution_chart_layers(stats: pl.DataFrame) -> None:
    frame = scores(
        [("e", "m1", "treatment", [1, 2, 2]), ("e", "m1", "control", [3, 3, 4]),
         ("e", "m2", "treatment", [5, 6]), ("e", "m2", "control", [7, 8]),
         ("other", "m1", "treatment", [9, 9])]
    )  # fmt: skip
    chart = distribution_chart(frame, group_intervals(frame), "e")
    spec = chart.to_dict()
    assert len(spec["vconcat"]) == 2
    layers = spec["vconcat"][0]["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["rect", "circle", "rule", "point"]
    # the control's interval shaded across the panel: the band the treatment is read against
    band = layers[0]
    assert band["transform"] == [{"filter": "(datum.group === 'control')"}]
    assert (
        band["encoding"]["x"]["field"] == "ci_low" and band["encoding"]["x2"]["field"] == "ci_high"
    )
    assert "y" not in band["encoding"]  # the whole height
    dots = layers[1]["data"].get("values", None)
    if dots is None:  # data sets are hoisted to the top level
        dots = spec["datasets"][layers[1]["data"]["name"]]
    assert {(d["group"], d["score"], d["count"]) for d in dots} == {
        ("treatment", 1.0, 1), ("treatment", 2.0, 2), ("control", 3.0, 2), ("control", 4.0, 1)
    }  # fmt: skip
    assert vlc.vegalite_to_svg(spec).startswith("<svg")


def test_pages_show_one_display_name_for_the_ideas_count_and_json_keeps_the_key() -> None:
    """TinyTroupe writes ``ideas_qty`` beside display names, the persona export
    ``ideas_quantity``: one report showed both keys; pages show "Ideas quantity"."""
    from toolkit import load_experiments

    root = Path(__file__).resolve().parents[2] / "sample_runs" / "experiments"
    loaded = load_experiments([root / "harbour_council_gate.json", root / "orchard_variety.csv"])
    stats = experiment_stats(loaded.scores)
    text = render_experiment_text(stats)
    assert "ideas_qty" not in text and "ideas_quantity" not in text
    assert text.count("Ideas quantity") >= 2
    first = distribution_chart(
        loaded.scores, group_intervals(loaded.scores), "harbour_council_gate"
    )
    titles = [p["layer"][1]["encoding"]["x"]["title"] for p in first.to_dict()["vconcat"]]
    assert "Ideas quantity" in titles and "ideas_qty" not in titles
    metrics = json.loads(render_experiment_json(stats))["experiments"]["harbour_council_gate"]
    assert "ideas_qty" in metrics["metrics"]  # the key as the file wrote it


def test_an_infinite_percent_change_reads_as_infinity_in_text_and_json() -> None:
    import math

    frame = scores([("e", "m", "treatment", [2, 4]), ("e", "m", "control", [0, 0])])
    stats = experiment_stats(frame)
    assert stats["percent_change"][0] == math.inf
    row = table1_frame(stats).row(0, named=True)
    assert row["pct"] == "∞"
    doc = json.loads(render_experiment_json(stats))  # strict JSON: no bare Infinity
    cell = doc["experiments"]["e"]["metrics"]["m"]
    assert cell["percent_change"] == "Infinity"
    assert float(cell["percent_change"]) == math.inf


def test_rank_and_chi_square_rows_name_their_effect_sizes() -> None:
    frame = scores([("e", "m", "treatment", [3, 4, 5]), ("e", "m", "control", [1, 2, 6])])
    text = render_experiment_text(experiment_stats(frame, test="mannwhitney"))
    assert "e / m: P(T > C) 0.67; median Δ 2.00" in text
    frame = scores([("e", "m", "treatment", [1, 1, 1, 2]), ("e", "m", "control", [1, 2, 2, 2])])
    text = render_experiment_text(experiment_stats(frame, test="chisquare"))
    assert "e / m: Cramér's V 0.25" in text
    assert "Cramér" not in render_experiment_text(experiment_stats(frame))  # Welch: none
