"""The site's experiments page shows a the-office report's own numbers as ``toolkit
experiment REPORT`` prints them: p under the floor as ``<0.001`` (the page printed
``0.000``) and the runner's Cohen's d (the page printed ``–``: the report's
``effectSize`` never reached it)."""

from __future__ import annotations

from conftest import SAMPLE_RUNS

from toolkit.fleet.view.experiments import experiment_page

REPORT = SAMPLE_RUNS / "experiments" / "harbour_council_office_report.json"


def test_a_reported_p_and_d_reach_the_page_as_the_text_prints_them() -> None:
    page = experiment_page(str(REPORT))
    assert page["reported"] is True
    metrics = page["report"]["experiments"]["harbour-council-gate"]["metrics"]
    # the file's own numbers: adherence pValue 0.000274571248116978 (under 0.001),
    # effectSize 1.138236029918222; consistency pValue 0.5047708294856523 (0.505)
    adherence, consistency = metrics["persona_adherence"], metrics["self_consistency"]
    assert adherence["p_display"] == "<0.001" and consistency["p_display"] == "0.505"
    assert adherence["cohens_d"] == 1.138236029918222
    assert consistency["cohens_d"] == -0.1941360556242758
