"""The one gate vocabulary (toolkit.gate) and the CI views built on it: JUnit XML and
Markdown, each checked against hand-made scorecards whose expected outcome is stated."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from toolkit.gate import MODES, Check, checks_of, decide, kind_of, reason
from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.compat import token_world_dict
from toolkit.views.junit import render_junit
from toolkit.views.markdown import render_markdown


def card(subject: str, statuses: dict[str, str], **kw: object) -> Scorecard:
    dims = [
        Dimension(k, k.title(), 0.5, s, f"{k} detail <&>", ">= 0.9", "< 0.5")
        for k, s in statuses.items()
    ]
    return Scorecard(
        rubric="simulation",
        rubric_version="9.9.9",
        subject=subject,
        title=f"{subject} · title",
        verdict=str(kw.get("verdict", "HEALTHY")),
        verdict_reason=str(kw.get("reason", "")),
        dimensions=Scorecard.dimensions_frame(subject, dims),
        meta=dict(kw.get("meta", {})),  # type: ignore[call-overload]
    )


def check(kind: str, key: str = "d", counted: bool = True) -> Check:
    return Check("s", key, key, kind.upper(), kind, counted=counted)


# --- the modes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "failing_modes"),
    [
        ("ok", set()),
        ("info", set()),
        ("warn", {"strict"}),
        ("na", {"strict"}),
        ("pending", {"strict"}),
        ("fail", {"strict", "fail-only"}),
        ("regression", {"strict", "fail-only", "regression"}),
    ],
)
def test_each_mode_fails_exactly_its_kinds(kind: str, failing_modes: set[str]) -> None:
    failed = {m for m in MODES if decide([check(kind)], m)["s"]}
    assert failed == failing_modes


def test_informational_checks_never_decide() -> None:
    assert decide([check("fail", counted=False)], "strict") == {"s": []}


def test_allow_na_accepts_only_the_named_dimensions() -> None:
    checks = [check("na", "graph_fanout"), check("na", "groundedness")]
    failing = decide(checks, "strict", ["graph_fanout"])["s"]
    assert [c.key for c in failing] == ["groundedness"]
    assert decide(checks, "strict", ["*"]) == {"s": []}


def test_unknown_status_words_are_not_green() -> None:
    assert kind_of("SOMETHING_NEW") == "warn"
    assert kind_of("PENDING_RATING") == "pending" and kind_of("poor") == "fail"


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown gate mode"):
        decide([], "sometimes")


def test_reason_names_the_dimension_status_and_detail() -> None:
    c = Check("run", "graph_fanout", "Graph fan-out", "N/A", "na", detail="no universe.db")
    assert reason([c]) == "Graph fan-out not measured: no universe.db"


def test_checks_of_marks_informational_and_by_verdict() -> None:
    c = card("a", {"x": "OK", "y": "FAIL"}, meta={"informational": ["y"]})
    assert [(k.key, k.counted) for k in checks_of(c)] == [("x", True), ("y", False)]
    game = card("g", {"x": "FAIL"}, verdict="PASS", reason="6/7 passed")
    checks = checks_of(game, by_verdict=True)
    assert [(k.key, k.counted, k.status) for k in checks] == [
        ("x", False, "FAIL"),
        ("verdict", True, "PASS"),
    ]
    assert decide(checks, "strict") == {"g": []}  # the verdict decides, not the metric


def test_a_card_without_dimensions_is_judged_on_its_verdict() -> None:
    empty = card("e", {}, verdict="INSUFFICIENT_DATA", reason="no ticks to score")
    assert decide(checks_of(empty), "strict")["e"][0].key == "verdict"
    assert decide(checks_of(empty), "fail-only") == {"e": []}


# --- JUnit ----------------------------------------------------------------------------------


def test_junit_has_one_case_per_subject_and_dimension_and_failures_carry_detail() -> None:
    cards = [card("a", {"x": "OK", "y": "FAIL"}), card("b", {"x": "N/A", "y": "WARN"})]
    checks = [c for k in cards for c in checks_of(k)]
    xml = render_junit(
        checks, suite="toolkit quality", rubric="simulation", rubric_version="9.9.9",
        mode="fail-only",
    )  # fmt: skip
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("a", "X"), ("a", "Y"), ("b", "X"), ("b", "Y"),
    ]  # fmt: skip
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props == {"rubric": "simulation", "rubric_version": "9.9.9", "gate": "fail-only"}
    (failure,) = suite.iter("failure")
    assert failure.get("message") == "Y: FAIL"
    assert "y detail <&>" in (failure.text or "")  # escaped in the file, exact when parsed
    assert "thresholds: OK >= 0.9; FAIL < 0.5" in (failure.text or "")
    assert [c.find("skipped") is not None for c in cases] == [False, False, True, False]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "1")


def test_junit_strict_fails_warn_and_not_measured() -> None:
    checks = checks_of(card("b", {"x": "N/A", "y": "WARN"}))
    xml = render_junit(checks, suite="s", rubric="r", rubric_version="1", mode="strict")
    suite = ET.fromstring(xml).find("testsuite")
    assert suite is not None and suite.get("failures") == "2"
    assert [f.get("type") for f in suite.iter("failure")] == ["na", "warn"]


# --- Markdown -------------------------------------------------------------------------------


def test_markdown_names_rubric_gate_and_each_failing_reason() -> None:
    cards = [
        card("a", {"x": "OK"}),
        card("b|c", {"x": "FAIL"}, verdict="FAILED", reason="fail: x"),
    ]
    checks = [c for k in cards for c in checks_of(k)]
    text = render_markdown(
        cards, command="toolkit quality", mode="strict", failing=decide(checks, "strict")
    )
    lines = text.splitlines()
    assert lines[0] == "### toolkit quality · rubric simulation 9.9.9 · gate strict: 1 of 2 failed"
    assert "| a | **HEALTHY** | pass |   |" in lines
    assert "| b\\|c | **FAILED** | **fail** | X FAIL: x detail &lt;&amp;&gt; |" in lines
    two = [card("d", {"x": "FAIL", "y": "WARN"})]
    both = render_markdown(
        two, command="c", mode="strict", failing=decide(checks_of(two[0]), "strict")
    )
    assert "| **fail** | X FAIL: x detail &lt;&amp;&gt;<br>Y WARN: y detail &lt;&amp;&gt; |" in both
    assert "| X | FAIL | 0.500 | x detail &lt;&amp;&gt; | &gt;= 0.9 | &lt; 0.5 |" in lines
    assert text.count("<details>") == 2 and text.count("</details>") == 2


def test_markdown_without_a_gate_has_no_gate_column() -> None:
    text = render_markdown([card("a", {"x": "OK"})], command="toolkit quality")
    assert "gate" not in text.splitlines()[0] and "| subject | verdict | why |" in text


# --- token-world's verdict rule under --compat ------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "verdict"),
    [
        ({"a": "OK", "novel": "WARN"}, "DEGRADED"),  # informational WARN counts there
        ({"a": "OK", "b": "N/A"}, "HEALTHY"),  # UNKNOWN does not degrade
        ({"a": "WARN", "b": "FAIL"}, "FAILED"),
    ],
)
def test_compat_verdict_follows_its_own_dimensions(statuses: dict[str, str], verdict: str) -> None:
    ours = card("r", statuses, verdict="HEALTHY", meta={"informational": ["novel"]})
    assert token_world_dict(ours)["verdict"] == verdict


# --- summary mode: within the host's limits -------------------------------------------------


def _fleet(n: int) -> list[Scorecard]:
    """``n`` healthy runs with every tenth one failed and every seventh degraded."""
    cards = []
    for i in range(n):
        verdict = "FAILED" if i % 10 == 3 else "DEGRADED" if i % 7 == 5 else "HEALTHY"
        cards.append(card(f"run-{i:04d}", {"x": "OK", "y": "WARN", "z": "FAIL"}, verdict=verdict))
    return cards


def test_markdown_fits_a_comment_and_shows_the_worst_in_full() -> None:
    """1,000 runs took ~1.1 KB each: past GitHub's 65,536-character comment at ~60 runs."""
    cards = _fleet(1000)
    failed = [c.subject for c in cards if c.verdict == "FAILED"]  # 100 of them
    text = render_markdown(cards, command="toolkit quality")
    assert len(text.encode("utf-8")) <= 65_536
    assert "Summary mode" in text
    # the count by verdict covers every run: i % 10 == 3 fails (100); i % 7 == 5 degrades
    # (143) unless it fails (i % 70 == 33: 14), so 129; the other 771 are healthy
    assert "| **HEALTHY** | 771 |" in text and "| **FAILED** | 100 |" in text
    assert "| **DEGRADED** | 129 |" in text
    # the worst first: every failed run, in the command's order, then degraded ones
    shown = [line.split(" | ")[0][2:] for line in text.splitlines() if line.startswith("| run-")]
    degraded = [c.subject for c in cards if c.verdict == "DEGRADED"]
    assert len(shown) > 100 and shown[:100] == failed
    assert shown[100:] == degraded[: len(shown) - 100]
    # every run shown has its details block; the rest are counted, never cut mid-table
    assert text.count("<details>") == text.count("</details>") == len(shown)
    assert f"_{1000 - len(shown)} more subject(s) not shown" in text
    assert not text.rstrip().endswith("|")


def test_markdown_gate_failures_come_first_in_summary_mode() -> None:
    cards = _fleet(200)
    failing = {c.subject: [] for c in cards}
    failing["run-0000"] = [Check("run-0000", "z", "Z", "FAIL", "fail")]  # a HEALTHY run
    text = render_markdown(cards, command="toolkit quality", mode="strict", failing=failing,
                           limit=8_000)  # fmt: skip
    first = next(line for line in text.splitlines() if line.startswith("| run-"))
    assert first.startswith("| run-0000 | **HEALTHY** | **fail** |")
    assert len(text.encode("utf-8")) <= 8_000


def test_markdown_within_the_limit_is_the_whole_report() -> None:
    cards = _fleet(5)
    text = render_markdown(cards, command="toolkit quality")
    assert "Summary mode" not in text and text.count("<details>") == 5
    assert render_markdown(cards, command="toolkit quality", limit=None) == text


def test_step_summary_counts_what_the_step_already_wrote(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step summary's 1 MiB holds every command of the step: a summary already near
    the limit leaves this command only the room that is left."""
    import argparse
    from pathlib import Path

    from toolkit.cli import _gate

    summary = Path(str(tmp_path)) / "summary.md"
    summary.write_text("x" * (1_048_576 - 20_000), encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    cards = _fleet(300)
    checks = [c for k in cards for c in checks_of(k)]
    _gate.finish(argparse.Namespace(gate=None, junit=None), "quality", cards, checks)
    assert summary.stat().st_size <= 1_048_576
    assert "Summary mode" in summary.read_text("utf-8")
