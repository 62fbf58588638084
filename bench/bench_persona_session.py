"""A persona rating session: what raters read, and what re-calibrating costs.

    python bench/bench_persona_session.py [--repeat 5] [--copies 10]

1. Per sample chat: its items (0-9 judge requests, one page each for a rater), how many
   distinct texts they share (items of one agent and window show the same text), and the
   mean and largest text a rater reads (characters): what a session asks of people.
2. ``calibrate --persona`` on the sample session: rebuilding the 118 items from the two
   chats, reading the ratings export, replaying the judge from the cassette (judge calls
   counted: a live judge behind the cassette must never be asked) and ``calibrate()``,
   best of ``--repeat``: what a re-run with a new threshold costs.
3. Building the items of ``--copies`` copies of each sample chat concatenated (the same
   four agents, ``copies`` times as many messages): what ``toolkit rate`` pays at start
   for a longer chat (each proposition file's window keeps the text bounded).

Results go to stdout and bench/out/results-persona-session.json. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from timing import best_of  # noqa: E402

from toolkit.judge import JudgeRequest, JudgeResult, RecordingJudge  # noqa: E402
from toolkit.load.item_ratings import load_item_ratings  # noqa: E402
from toolkit.rubrics.calibrate import calibrate  # noqa: E402
from toolkit.rubrics.persona_calibration import persona_calibration_frame  # noqa: E402
from toolkit.rubrics.persona_items import items_of_files  # noqa: E402

PERSONA = ROOT / "sample_runs" / "persona"
SESSION = ROOT / "sample_runs" / "calibration" / "persona"
CHATS = ("radio-week1.jsonl", "radio-week2.jsonl")


class _Counting:
    """A live judge stand-in that counts the calls reaching it."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.calls += 1
        return [JudgeResult(5, "") for _ in requests]


def _per_chat() -> list[dict[str, Any]]:
    rows = []
    for name in CHATS:
        items = items_of_files([PERSONA / name], PERSONA / "propositions")
        sizes = [len(i.text) for i in items]
        rows.append(
            {
                "chat": name,
                "items": len(items),
                "distinct_texts": len({i.text_sha256 for i in items}),
                "mean_chars": round(sum(sizes) / len(sizes)),
                "max_chars": max(sizes),
            }
        )
    return rows


def _replay(repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        cassette = Path(tmp) / "cassette.json"
        shutil.copy(SESSION / "cassette.json", cassette)
        live = _Counting()
        judge = RecordingJudge(live, cassette)

        def once() -> Any:
            items = items_of_files([PERSONA / c for c in CHATS], PERSONA / "propositions")
            ratings = load_item_ratings(SESSION / "ratings.csv")
            frame = persona_calibration_frame(items, ratings, judge)
            return calibrate(frame, seed=0)

        seconds, result = best_of(repeat, once)
    return {"items": result.items, "seconds": seconds, "judge_calls": live.calls}


def _long_chat(copies: int, repeat: int) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in CHATS:
            lines = (PERSONA / name).read_text("utf-8").splitlines()
            head = [ln for ln in lines if '"type": "message"' not in ln]
            body = [json.loads(ln) for ln in lines if '"type": "message"' in ln]
            repeated = [
                json.dumps({**m, "step": k * len(body) + int(m["step"])})
                for k in range(copies)
                for m in body
            ]  # the same conversation again and again, each message its own step
            path = Path(tmp) / name
            path.write_text("\n".join(head + repeated) + "\n", "utf-8")
            seconds, items = best_of(
                repeat, lambda p=path: items_of_files([p], PERSONA / "propositions")
            )
            rows.append(
                {
                    "chat": name,
                    "messages": len(body) * copies,
                    "items": len(items),
                    "max_chars": max(len(i.text) for i in items),
                    "seconds": seconds,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--copies", type=int, default=10)
    args = parser.parse_args()
    results = {
        "per_chat": _per_chat(),
        "replay": _replay(args.repeat),
        f"long_chat_x{args.copies}": _long_chat(args.copies, args.repeat),
    }
    for row in results["per_chat"]:
        print(
            f"{row['chat']:<20} {row['items']:>3} items {row['distinct_texts']:>3} texts "
            f"{row['mean_chars']:>5} chars mean {row['max_chars']:>5} max"
        )
    r = results["replay"]
    print(f"calibrate --persona: {r['items']} items, {r['judge_calls']} judge calls, "
          f"{r['seconds'] * 1000:.0f} ms")  # fmt: skip
    for row in results[f"long_chat_x{args.copies}"]:
        print(
            f"x{args.copies} {row['chat']:<17} {row['messages']:>4} messages {row['items']:>3} "
            f"items {row['max_chars']:>5} chars max {row['seconds'] * 1000:.0f} ms"
        )
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "results-persona-session.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
