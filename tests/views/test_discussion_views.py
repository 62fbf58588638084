"""Views of the discussion rubric: evidence tables and charts (asserted on their specs)."""

from __future__ import annotations

from pathlib import Path

import vl_convert

from toolkit.load.discussion import load_discussion
from toolkit.load.ratings import load_ratings
from toolkit.rubrics.discussion import DiscussionReport, compare, score_discussion
from toolkit.views.discussion import (
    comparison_chart,
    evidence_table,
    render_discussion_text,
    repeated_phrases,
    similarity_heatmap,
)


def _report(path: Path) -> DiscussionReport:
    ratings = load_ratings(path.parent / "ratings.csv" if path.is_file() else path / "ratings.csv")
    return score_discussion(load_discussion(path), ratings=ratings)


def test_evidence_table_says_why(sample_runs: Path) -> None:
    report = _report(sample_runs / "discussions")
    table = evidence_table(report, "game-role-repetition")
    assert table.columns[:9] == [
        "turn",
        "speaker",
        "role",
        "strategic",
        "keywords",
        "coherent",
        "coherence_reason",
        "role_break",
        "role_break_reason",
    ]
    first = table.row(0, named=True)
    assert first["speaker"] == "Kestrel"
    assert first["role_break"] is True
    # "Lark is definitely Mafia": Lark is Kestrel's partner, and the rubric's over-certain cue
    assert first["role_break_reason"] == (
        "Mafia accuses fellow Mafia (Lark); Mafia over-certain (definitely mafia)"
    )


def test_repeated_phrases_lists_the_worst_first(sample_runs: Path) -> None:
    report = _report(sample_runs / "discussions")
    top = repeated_phrases(report, "game-role-repetition", top=3)
    assert top.height == 3
    # Finch says "look at someone else" and "we need to find the truth here" twice each;
    # ties are listed by speaker, then phrase.
    assert top.select("speaker", "phrase", "uses", "repeats").rows() == [
        ("Finch", "at someone else", 2, 1),
        ("Finch", "else we need", 2, 1),  # phrases run across sentences
        ("Finch", "find the truth", 2, 1),
    ]


def test_similarity_heatmap_spec_and_draws(sample_runs: Path) -> None:
    report = _report(sample_runs / "discussions")
    spec = similarity_heatmap(report, "game-pass").to_dict()
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in spec["layer"]
    ]
    assert marks == ["rect", "text"]
    assert spec["layer"][0]["encoding"]["color"]["field"] == "similarity"
    values = next(iter(spec["datasets"].values()))
    assert len(values) == 6 * 5  # six speakers, every ordered pair
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")


def test_comparison_chart_and_text(sample_runs: Path) -> None:
    folder = sample_runs / "discussions"
    candidate = _report(folder)
    baseline = score_discussion(
        load_discussion(folder / "baseline"), ratings=load_ratings(folder / "ratings.csv")
    )
    comp = compare(baseline, candidate)
    spec = comparison_chart(comp).to_dict()
    assert spec["layer"][0]["encoding"]["y"]["field"] == "relative"
    rule, label = spec["layer"][1:]  # the threshold, dashed and named
    assert rule["mark"]["type"] == "rule" and rule["mark"]["strokeDash"]
    assert spec["datasets"][rule["data"]["name"]] == [
        {"value": 1.0, "status": "PASS", "label": "threshold"}
    ]
    assert label["mark"]["type"] == "text"
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")
    text = render_discussion_text(candidate, comp)
    assert "Baseline vs candidate" in text
    assert f"Recommendation: {comp.recommendation}" in text


def test_generic_views_serve_discussion_scorecards(sample_runs: Path) -> None:
    import json

    from toolkit import render_html, render_json, render_text, scorecards_frame

    report = _report(sample_runs / "discussions")
    card = report.scorecard("game-over-budget")
    text = render_text(card)
    assert text.splitlines()[-1] == "Verdict: FAIL (cost $3.42 over $3.00: caching broken)"
    assert "data-verdict='FAIL'" in render_html(card)
    doc = json.loads(render_json(report.scorecards))
    assert [c["verdict"] for c in doc["scorecards"]] == ["FAIL", "PASS", "FAIL"]
    assert doc["scorecards"][0]["rubric_version"] == "1.2.0"
    assert scorecards_frame(report.scorecards).height == 3 * 7


def test_each_metric_line_shows_the_threshold_it_is_held_to_within_80_columns(
    sample_runs: Path,
) -> None:
    import json

    from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC as SPEC
    from toolkit.views.discussion import render_discussion_json

    report = _report(sample_runs / "discussions")
    # The thresholds as the packaged rubric data holds them (not as the card writes them).
    wanted = {
        "Memory accuracy": f"min {SPEC.threshold('memory_accuracy'):.2f}",
        "Strategic depth": f"min {SPEC.threshold('strategic_depth'):.2f}",
        "Anti-repetition": f"min {SPEC.threshold('anti_repetition'):.2f}",
        "Engagement": f"min {SPEC.threshold('engagement'):.1f}",
    }
    for width in (None, 80):
        text = render_discussion_text(report, width=width)
        if width is not None:
            assert max(len(line) for line in text.splitlines()) <= 80
        cards = text.split("\n\n")[: len(report.scorecards)]
        for card in cards:  # passing and failing metrics alike, on the metric's own line
            for name, mark in wanted.items():
                line = next(x for x in card.splitlines() if f"] {name} " in x or f" {name} " in x)
                value_then_mark = line.split(name, 1)[1].split()
                assert " ".join(value_then_mark[1:3]) == mark, (name, line)
    # The JSON is unchanged: each metric's threshold is a number under its own key.
    doc = json.loads(render_discussion_json(report))
    metric = next(m for m in doc["games"][0]["metrics"] if m["key"] == "strategic_depth")
    assert metric["threshold"] == SPEC.threshold("strategic_depth")
    assert "min " not in json.dumps(doc)
