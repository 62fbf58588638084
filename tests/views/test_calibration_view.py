"""The text and Markdown of a calibration: the top disagreements with the judge's
reasoning, each rater's note and the evidence, at 80 columns (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SAMPLE_RUNS

from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate
from toolkit.views.calibration import (
    CUT,
    render_calibration_markdown,
    render_calibration_table,
    wrap_words,
)

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
PLANTED = json.loads((SAMPLE_RUNS / "calibration" / "planted.json").read_text(encoding="utf-8"))
LONG = " ".join(f"word{i}" for i in range(200))


def _session(tmp_path: Path, reasoning: str, note: str, evidence: str) -> Path:
    rows = []
    for item, base in (("a", 1), ("b", 4), ("c", 6)):
        for rater, shift in (("ana", 0), ("ben", 1), ("judge", 2)):
            row: dict[str, object] = {"item": item, "rater": rater, "score": base + shift}
            if rater == "judge":
                row["reasoning"] = reasoning
            elif rater == "ben":
                row["notes"] = note
            row["evidence"] = evidence
            row["source"], row["anchor"] = "chats/x.jsonl", f"m{base}-m{base + 9}"
            rows.append(row)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_the_table_shows_each_top_disagreements_words_within_80_columns() -> None:
    result = calibrate(load_calibration_scores(SCORES))
    text = render_calibration_table(result, str(SCORES), 6, None, [])
    assert max(len(line) for line in text.splitlines()) <= 80
    section = text.split("disagreements, by")[1]
    for item in PLANTED["misreads"]:
        row = result.disagreements.filter(result.disagreements["item"] == item).row(0, named=True)
        block = section.split(f"  {item} ")[1].split("\n  p")[0]
        flat = " ".join(block.split())
        assert " ".join(row["reasoning"].split()) in flat  # short enough to show whole
        for note in row["notes"]:
            assert f"{note['rater']}: {note['note']}" in flat
        assert f"evidence: {row['evidence']}" in flat and f"at: {row['anchor']}" in flat


def test_a_long_reasoning_is_cut_with_a_mark_and_the_lines_fit(tmp_path: Path) -> None:
    result = calibrate(load_calibration_scores(_session(tmp_path, LONG, LONG, LONG)))
    text = render_calibration_table(result, "s.json", 3, None, [])
    assert max(len(line) for line in text.splitlines()) <= 80
    block = text.split("disagreements, by")[1]
    assert block.count(CUT) == 3 * 3  # reasoning, ben's note and the evidence of 3 items
    assert "at:        chats/x.jsonl#m1-m10" in block


def test_wrap_words_keeps_short_text_whole_and_cuts_long_text_at_its_line_budget() -> None:
    assert wrap_words("ana", "fine as it is", 40, 2) == ["ana:       fine as it is"]
    lines = wrap_words("judge", LONG, 40, 3)
    assert len(lines) == 3 and lines[-1].endswith(CUT)
    assert all(len(line) <= 40 for line in lines)
    assert lines[1].startswith(" " * 11)  # the text indented under itself


def test_control_characters_in_the_words_never_reach_the_terminal() -> None:
    lines = wrap_words("judge", "fine\x1b[2J\x1b]0;owned\x07 then\nmore", 60, 3)
    assert lines == ["judge:     fine\ufffd[2J\ufffd]0;owned\ufffd then more"]


def test_the_markdown_puts_the_words_side_by_side_escaped(tmp_path: Path) -> None:
    path = _session(tmp_path, "judge | says <b>yes</b>", "ben's | note", "the text")
    result = calibrate(load_calibration_scores(path))
    md = render_calibration_markdown(result, "s.json", 3, None, [])
    assert "### The disagreements, side by side" in md
    assert "| judge | 3 | judge \\| says &lt;b&gt;yes&lt;/b&gt; |" in md
    assert "| ben | 2 | ben's \\| note |" in md and "| ana | 1 |   |" in md
    assert "> **Evidence** (at chats/x.jsonl#m1-m10): the text" in md


def test_the_markdown_of_a_session_without_words_has_no_side_by_side(tmp_path: Path) -> None:
    rows = [
        {"item": i, "rater": r, "score": s + d}
        for i, s in (("a", 1), ("b", 4), ("c", 6))
        for r, d in (("ana", 0), ("ben", 1), ("judge", 2))
    ]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    md = render_calibration_markdown(calibrate(load_calibration_scores(path)), "s", 3, None, [])
    assert "side by side" not in md and "### Top 3 disagreements" in md


def test_the_markdown_head_is_escaped_and_whole() -> None:
    result = calibrate(load_calibration_scores(SCORES))
    md = render_calibration_markdown(result, "<b>scores</b>.csv", 2, None, [])
    assert "<b>" not in md
    assert md.startswith("## toolkit calibrate: &lt;b&gt;scores&lt;/b&gt;.csv")
    assert "vs 3 humans (ana, ben, chloe)" in md  # not clipped to 80 columns
