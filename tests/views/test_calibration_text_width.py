"""``toolkit calibrate``'s text in an 80-column terminal (issue 27): no line over 80
columns, every top disagreement's item id whole (never two ids cut alike), the header
naming the judge and the sources (long paths shortened in the middle, file names kept),
and counts in the singular when there is one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate
from toolkit.views.calibration import render_calibration_table

PERSONA = SAMPLE_RUNS / "calibration" / "persona"
ROOT = SAMPLE_RUNS.parent
PLANTED = json.loads((PERSONA / "planted.json").read_text(encoding="utf-8"))
CHATS = [str(ROOT / c) for c in PLANTED["chats"]]
DISCUSSIONS = SAMPLE_RUNS / "discussions"

RUNS = {
    "scores": ["calibrate", str(SAMPLE_RUNS / "calibration" / "scores.csv")],
    "persona": [
        "calibrate", "--persona", *CHATS, "--propositions", str(ROOT / PLANTED["propositions"]),
        "--ratings", str(PERSONA / "ratings.csv"),
        "--judge", f"recorded:{PERSONA / 'cassette.json'}",
    ],
    "discussion": [
        "calibrate", "--discussion", str(DISCUSSIONS), str(DISCUSSIONS / "baseline"),
        "--ratings", str(DISCUSSIONS / "engagement_ratings.csv"),
        "--judge", f"recorded:{DISCUSSIONS / 'judge' / 'cassette.json'}",
    ],
}  # fmt: skip


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", list(RUNS))
def test_each_sample_fits_80_columns_with_every_top_item_id_whole(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = _run([*RUNS[name], "--top", "10"], capsys)
    data = json.loads(_run([*RUNS[name], "--top", "10", "--format", "json"], capsys))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text.split("Top ")[-1].split("\n")[2]  # the first item's line: whole
    section = text.split("disagreements, by |judge - human mean|")[1]
    heads = [line.split()[0] for line in section.splitlines()[2:] if line.startswith("  ") and
             not line.startswith("    ") and line.strip()]  # fmt: skip
    top = [d["item"] for d in data["disagreements"]]
    assert len(top) == min(10, len(top)) and top
    assert heads == top  # each id whole, at the start of its own line, in rank order
    head = lines[: lines.index("")]
    assert "judge 'judge' vs 3 humans (ana, ben, chloe)" in head[0]
    if name != "scores":  # the judge and every source named, each on its own line
        cassette = Path(RUNS[name][RUNS[name].index("--judge") + 1].removeprefix("recorded:"))
        assert any(line.startswith("  judge:") and "cassette.json" in line for line in head)
        assert any(line.startswith("  ratings:") and line.endswith(".csv") for line in head)
        assert cassette.name in "\n".join(head)


def _scores(tmp_path: Path, items: list[str], humans: list[str]) -> Path:
    rows = []
    for n, item in enumerate(items):
        for k, rater in enumerate(humans):
            rows.append({"item": item, "rater": rater, "score": 2 + (n + k) % 3})
        rows.append({"item": item, "rater": "judge", "score": 8 - n % 2})
    path = tmp_path / "s.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_ids_alike_in_their_first_16_characters_stay_apart_and_long_ones_wrap(
    tmp_path: Path,
) -> None:
    long_id = "week1/" + "/".join(f"segment{i:02d}" for i in range(12))  # 126 characters
    items = ["radio-week1/otis/adherence/a", "radio-week1/otis/adherence/b", long_id]
    result = calibrate(load_calibration_scores(_scores(tmp_path, items, ["ana", "ben", "chi"])))
    text = render_calibration_table(result, "s.json", 3, None, [])
    assert max(len(line) for line in text.splitlines()) <= 80
    listed = text.split("disagreements, by")[1].splitlines()
    assert "  radio-week1/otis/adherence/a" in listed and "  radio-week1/otis/adherence/b" in listed
    start = next(i for i, line in enumerate(listed) if line.startswith("  week1/"))
    wrapped = [listed[start].strip()]
    for line in listed[start + 1 :]:
        if not line.startswith("    ") or line.strip()[0].isdigit():
            break
        wrapped.append(line.strip())
    assert "".join(wrapped) == long_id and len(wrapped) == 2


def test_one_item_is_one_item_and_many_humans_and_sources_are_counted(tmp_path: Path) -> None:
    humans = [f"rater-number-{i}" for i in range(9)]
    result = calibrate(load_calibration_scores(_scores(tmp_path, ["only"], humans)))
    chats = ", ".join(f"runs/{'deep/' * 6}chat-{i}.jsonl" for i in range(7))
    text = render_calibration_table(
        result, f"judge j on {chats}", 1, None, [],
        sources=[("judge", "recorded:" + "x/" * 50 + "cassette.json"), ("chats", chats)],
    )  # fmt: skip
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].startswith("judge 'judge' vs 9 humans (rater-number-0, ")
    assert lines[0].endswith("more)")
    shown = lines[0].count("rater-number-")
    assert lines[0].endswith(f"+{9 - shown} more)")
    judge = next(line for line in lines if line.startswith("  judge:"))
    assert judge.endswith("/cassette.json") and "…" in judge and "recorded:x/" in judge
    chat_lines = lines[lines.index(judge) + 1 : lines.index(judge) + 3]
    assert "chat-0.jsonl" in chat_lines[0] and chat_lines[1].endswith(" more")
    named = sum(line.count("chat-") for line in chat_lines)
    assert chat_lines[1].endswith(f"+{7 - named} more")
    assert "1 item scored by both" in text and "1 items" not in text
    assert "Top 1 disagreement, by" in text


def test_the_judge_and_each_source_are_named_even_when_the_label_is_short(
    tmp_path: Path,
) -> None:
    result = calibrate(load_calibration_scores(_scores(tmp_path, ["a", "b"], ["ana", "ben"])))
    sources = [("judge", "recorded:c.json"), ("chats", "w1.jsonl, w2.jsonl"), ("ratings", "r.csv")]
    head = render_calibration_table(result, "r.csv", 1, None, [], sources=sources).splitlines()
    assert head[:4] == [
        "judge 'judge' vs 2 humans (ana, ben)",
        "  judge:    recorded:c.json",
        "  chats:    w1.jsonl, w2.jsonl",
        "  ratings:  r.csv",
    ]
    alone = render_calibration_table(result, "s.csv", 1, None, [], sources=[("scores", "s.csv")])
    assert alone.splitlines()[0] == "s.csv: judge 'judge' vs 2 humans (ana, ben)"
