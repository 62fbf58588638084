"""Every public result object shows itself briefly: a few-line ``__repr__`` (like a polars
frame's header, not a dataclass dump with box tables inside) and a ``_repr_html_`` (a
Scorecard as its HTML card; a loaded run as a small table of counts and its issues)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import toolkit as tk
from toolkit.views.html import render_html

ROOT = Path(__file__).resolve().parents[1] / "sample_runs"
PERSONA = ROOT / "persona"


def _short(obj: Any, *, lines: int = 6) -> str:
    text = repr(obj)
    shown = text.splitlines()
    assert 1 <= len(shown) <= lines, text
    assert max(len(line) for line in shown) <= 100, text
    # no polars box tables and no dataclass field dump inside
    assert "┌" not in text and "shape:" not in text and "=shape" not in text, text
    return text


def _html(obj: Any) -> str:
    html = obj._repr_html_()
    assert html.startswith("<div class='") and "mathjax_ignore" in html
    assert len(html) < 8000
    return re.sub(r"<style>.*?</style>", "", html)


@pytest.fixture(scope="module")
def universe() -> tk.Universe:
    return tk.load_universe(ROOT / "universes" / "ashfall")


def test_universe(universe: tk.Universe) -> None:
    text = _short(universe, lines=2)
    assert text.splitlines()[0] == "Universe: 1 run (ashfall)"
    assert "64 ticks" in text and "50 checkpoints" in text and "0 issues" in text
    html = _html(universe)
    assert "<b>Universe</b> 1 run (ashfall)" in html
    assert "<td>ticks</td><td class='num'>64</td>" in html


def test_universe_lists_its_issues(tmp_path: Path) -> None:
    run = tmp_path / "broken"
    shutil.copytree(ROOT / "universes" / "ashfall", run)
    first = sorted((run / "tick_summaries").iterdir())[0]
    first.write_text('{"schema_version": 1, "tick', encoding="utf-8")
    loaded = tk.load_universe(run)
    assert loaded.issues.height == 1
    text = _short(loaded)
    assert "1 issue," in text and f"broken/tick_summaries/{first.name}:" in text
    assert first.name in _html(loaded)


def test_a_fleet_names_a_few_runs_and_counts_the_rest() -> None:
    fleet = tk.load_universes(*sorted((ROOT / "fleet").iterdir())[:5])
    first = _short(fleet).splitlines()[0]
    assert first.startswith("Universe: 5 runs (") and "… 2 more" in first


def test_scorecard(universe: tk.Universe) -> None:
    card = tk.score_universe(universe)[0]
    text = _short(card, lines=2)
    assert text.startswith("Scorecard: Ashfall · last 50 ticks · FAILED (rubric simulation ")
    assert "1 OK, 6 FAIL" in text
    assert card._repr_html_() == render_html(card)


def test_discussion_games_and_report() -> None:
    games = tk.load_discussion(ROOT / "discussions")
    text = _short(games, lines=2)
    assert text.startswith("Discussion: 3 games (game-over-budget, game-pass, ")
    report = tk.score_discussion(games)
    text = _short(report)
    assert "DiscussionReport: 3 games, rubric discussion" in text
    assert re.search(r"game-role-repetition\s+FAIL\s+3/7", text), text
    assert "DiscussionSpec" not in text
    html = _html(report)
    assert "<th>game</th><th>verdict</th><th>passed</th>" in html
    assert html.count("class='tk-status'") == 3


def test_iteration_log_outcome_and_evidence() -> None:
    log = tk.load_iteration_log(ROOT / "iteration_logs" / "tally-loop")
    text = _short(log)
    assert "6 iterations" in text and "1 issue" in text and "tally-loop/iter-7.yaml:2:" in text
    assert "iter-7.yaml" in _html(log)
    evidence = tk.collect_outcome_evidence(log)
    assert "6 iterations" in _short(evidence)
    result = tk.score_outcome(log, evidence)
    text = _short(result)
    assert "OutcomeResult: rubric outcome" in text and "over-claims" in text
    assert "worst: #" in text
    _html(result)


def test_persona_objects() -> None:
    run = tk.load_chat(PERSONA / "radio-week2.jsonl")
    assert _short(run, lines=2).startswith("ChatRun: ")
    props = tk.load_propositions(PERSONA / "propositions")
    assert _short(props).startswith("PropositionSet: adherence")
    result = tk.score_persona(
        run, props, tk.RecordedJudge(PERSONA / "cassette.json"),
        baselines=tk.load_baselines(PERSONA / "baselines"),
    )  # fmt: skip
    text = _short(result, lines=9)
    assert text.startswith("PersonaResult: run radio-week2")
    assert "regression: lenny adherence (1.04 against baseline 9.00)" in _html(result)
    _short(result.evidence)
    report = tk.correction_report(tk.load_correction_log(PERSONA / "gate-corrections.jsonl"))
    assert _short(report).startswith("CorrectionReport: ")


def test_experiments_ratings_and_agreement() -> None:
    scores = tk.load_experiment(ROOT / "experiments" / "harbour_council_gate.json")
    assert "ExperimentScores: 1 experiment" in _short(scores)
    ratings = tk.load_ratings(ROOT / "discussions" / "ratings.csv")
    assert _short(ratings).startswith("FileRatings: ")
    frame = pl.DataFrame(
        {"transcript_id": ["a", "a", "b", "b"], "rater": ["x", "y", "x", "y"],
         "score": [1, 5, 3, 3]}
    )  # fmt: skip
    agreement = tk.rating_agreement(frame)
    text = _short(agreement)
    assert text.startswith("Agreement: 2 raters, 2 transcripts") and "1 to discuss" in text
    _html(agreement)


def test_comparison_and_success_check() -> None:
    report = tk.score_discussion(tk.load_discussion(ROOT / "discussions"))
    baseline = tk.score_discussion(tk.load_discussion(ROOT / "discussions" / "baseline"))
    comparison = tk.compare_discussions(baseline, report)
    assert _short(comparison).startswith(f"Comparison: {comparison.recommendation}")
    check = tk.success_check(report)
    assert _short(check).startswith("SuccessCheck: not met")
