"""The persona samples: reproducible from their generator, cassette included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_RUNS

import toolkit as tk

FOLDER = SAMPLE_RUNS / "persona"
GENERATED = [
    "radio-week1.jsonl",
    "radio-week2.jsonl",
    "radio-week1.run_messages.json",
    "gate-corrections.jsonl",
    "cassette.json",
    "baselines/lenny.json",
    "baselines/mags.json",
    "baselines/otis.json",
    "baselines/priya.json",
]


def test_generator_reproduces_the_committed_persona_samples(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(FOLDER / "make_samples.py"), str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    for name in GENERATED:
        assert (tmp_path / name).read_bytes() == (FOLDER / name).read_bytes(), name


def test_sample_has_four_characters_and_a_gate_log() -> None:
    run = tk.load_chat(FOLDER / "radio-week2.jsonl")
    assert run.agent_ids == ["mags", "otis", "priya", "lenny"]
    assert all(run.persona_of(a) for a in run.agent_ids)
    report = tk.correction_report(tk.load_correction_log(FOLDER / "gate-corrections.jsonl"))
    # 8 actions, each by its last attempt: Priya, Mags, Otis and Lenny's first pass;
    # Lenny's four later messages end retried, forced through twice, timed out
    assert dict(report.outcomes.select("outcome", "actions").rows()) == {
        "passed": 4,
        "forced_through": 2,
        "passed_after_retry": 1,
        "timeout_pass_through": 1,
    }
