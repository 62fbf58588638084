"""Judged discussion readings: how many judge calls a game costs, and a replay's time.

    python bench/bench_discussion_judge.py [--repeat 5]

1. Per game of the samples (and of the real 2L export when ``../shared/real_runs`` is
   there): messages, references, judge requests and judge calls (claims in batches of
   10, the engagement rating on its own): what a live judge is paid for.
2. The wall time of ``tk.judge_discussion`` replaying the sample cassette over the six
   sample games (91 answers), best of ``--repeat``: what CI pays.
3. The same over ``--games`` synthetic copies of the six games (renamed, so each copy is
   its own requests), replayed from a cassette recorded in memory first, to show how a
   replay grows with the games.

Results go to stdout and bench/out/results-discussion-judge.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import polars as pl  # noqa: E402
from timing import best_of  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.judge import JudgeRequest, JudgeResult, RecordedJudge  # noqa: E402
from toolkit.rubrics.discussion import discussion_requests, judge_discussion  # noqa: E402

SAMPLE = ROOT / "sample_runs" / "discussions"
REAL = ROOT.parent / "shared" / "real_runs" / "discussions" / "2l-ai-mafia" / "data-backup.json"


class _Table:
    """A judge answering from a dict of request keys (an in-memory cassette)."""

    name = "table"

    def __init__(self) -> None:
        self.answers: dict[str, JudgeResult] = {}

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        out = []
        for r in requests:
            key = r.key(double_check=double_check)
            out.append(self.answers.setdefault(key, JudgeResult(3 if r.scale else 6, "ok")))
        return out


def _calls(games: tk.Discussion) -> list[dict[str, Any]]:
    rows = []
    requests = discussion_requests(games)
    for gid in games.game_ids:
        mine = [m for g, m, *_ in requests if g == gid]
        claims = sum(1 for m in mine if m != "engagement")
        rows.append(
            {
                "game": gid,
                "messages": games.messages.filter(pl.col("game_id") == gid).height,
                "references": sum(1 for m in mine if m == "memory_accuracy"),
                "requests": len(mine),
                "calls": (1 if "engagement" in mine else 0) + -(-claims // 10),
            }
        )
    return rows


def _copies(games: tk.Discussion, n: int) -> tk.Discussion:
    def renamed(frame: pl.DataFrame, k: int) -> pl.DataFrame:
        return frame.with_columns(pl.format("{}-copy{}", "game_id", pl.lit(k)).alias("game_id"))

    parts = {
        name: pl.concat([renamed(getattr(games, name), k) for k in range(n)])
        for name in ("games", "players", "messages", "votes")
    }
    return tk.Discussion(**parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--games", type=int, default=60, help="synthetic games for part 3")
    args = parser.parse_args()
    games = tk.load_discussions([SAMPLE, SAMPLE / "baseline"])
    results: dict[str, Any] = {"calls": _calls(games)}
    if REAL.exists():
        results["calls_real_2l"] = [r for r in _calls(tk.load_discussion(REAL)) if r["messages"]]
    judge = RecordedJudge(SAMPLE / "judge" / "cassette.json")
    seconds, judged = best_of(args.repeat, lambda: judge_discussion(games, judge))
    results["replay_sample"] = {"games": 6, "answers": judged.items.height, "seconds": seconds}
    many = _copies(games, args.games // 6)
    table = _Table()
    judge_discussion(many, table)  # record in memory
    seconds, judged = best_of(args.repeat, lambda: judge_discussion(many, table))
    results["replay_synthetic"] = {
        "games": len(many.game_ids),
        "answers": judged.items.height,
        "seconds": seconds,
    }
    for row in results["calls"] + results.get("calls_real_2l", []):
        print(
            f"{row['game']:<28} {row['messages']:>3} messages {row['references']:>3} references "
            f"{row['requests']:>3} requests {row['calls']:>2} calls"
        )
    for key in ("replay_sample", "replay_synthetic"):
        r = results[key]
        print(f"{key}: {r['games']} games, {r['answers']} answers, {r['seconds'] * 1000:.0f} ms")
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "results-discussion-judge.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
