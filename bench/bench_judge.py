"""Live-judge machinery: concurrency against a slow local server, and cassette saves.

    python bench/bench_judge.py [--latency 0.2]

1. Wall time of `tk.score_persona` on the sample run (radio-week1, 14 judge calls)
   against the tests' fake LLM server on 127.0.0.1 answering after ``--latency`` seconds,
   at concurrency 1, 2, 4 and 8 (the real SDK, real HTTP). The floor is
   ``ceil(calls / concurrency) * latency``.
2. The time of one atomic, fsynced cassette save (what `--record` does after each batch)
   with 100, 1,000 and 5,000 recordings.

Results go to stdout and bench/out/results-judge.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "judge"))
sys.path.insert(0, str(ROOT / "bench"))

from fake_llm import FakeLLM  # noqa: E402
from timing import best_of  # noqa: E402

import toolkit as tk  # noqa: E402
from toolkit.judge import JudgeRequest, JudgeResult, RecordingJudge  # noqa: E402
from toolkit.judge.live import AnthropicJudge  # noqa: E402

SAMPLE = ROOT / "sample_runs" / "persona"


class _Answer:
    name = "bench"

    def judge(self, requests: Any, *, double_check: bool = False) -> list[JudgeResult]:
        return [JudgeResult(7, "a reason of ordinary length " * 4, raw="7 ...") for _ in requests]


def concurrency(latency: float) -> list[dict[str, Any]]:
    chat = tk.load_chat(SAMPLE / "radio-week1.jsonl")
    props = tk.load_propositions(SAMPLE / "propositions")
    fake = FakeLLM(delay=latency).start()
    rows = []
    try:
        judge = AnthropicJudge("claude-fake", api_key="dummy", base_url=fake.root)
        tk.score_persona(chat, props, judge, concurrency=4, progress=False)  # warm up
        for n in (1, 2, 4, 8):
            fake.seen.clear()
            seconds, _ = best_of(
                2, lambda n=n: tk.score_persona(chat, props, judge, concurrency=n, progress=False)
            )
            calls = len(fake.seen) // 2
            floor = math.ceil(calls / n) * latency
            rows.append({"concurrency": n, "calls": calls, "seconds": seconds, "floor": floor})
            print(f"concurrency {n}: {calls} calls in {seconds:.2f} s (floor {floor:.2f} s)")
    finally:
        fake.stop()
    return rows


def saves() -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (100, 1_000, 5_000):
            path = Path(tmp) / f"c{size}.json"
            recorder = RecordingJudge(_Answer(), path)
            requests = [
                JudgeRequest(f"p{i}", "adherence", f"agent{i % 15}", f"claim {i}", "t")
                for i in range(size)
            ]
            for start in range(0, size, 500):
                recorder.judge(requests[start : start + 500])
            seconds, _ = best_of(5, recorder.save)
            kib = path.stat().st_size / 1024
            rows.append({"recordings": size, "seconds": seconds, "kib": round(kib)})
            print(f"save of {size} recordings ({kib:.0f} KiB): {seconds * 1000:.1f} ms")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    out = {"latency": args.latency, "concurrency": concurrency(args.latency), "saves": saves()}
    target = ROOT / "bench" / "out" / "results-judge.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
