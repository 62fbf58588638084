"""2L's file as 2L's own JavaScript reads it (``--write --compat 2l``, read with node).

2L's evaluate script displays each metric with ``metric.score.toFixed(2)`` and
``metric.threshold.toFixed(2)`` (``displayResults`` in ``src/cli/evaluate-transcript.ts``):
a ``null`` score throws a TypeError there. Its file is ``JSON.stringify(result, null, 2)``,
so parsing it in node and stringifying it again must give the same bytes. Skipped when
node is not installed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from toolkit.cli import main

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

#: 2L's display loop, reading the file as its readers do; then the file re-stringified.
READ_AS_2L = r"""
const fs = require('fs');
const text = fs.readFileSync(process.argv[1], 'utf8');
const result = JSON.parse(text);
const names = {memoryAccuracy: 'Memory Accuracy', strategicDepth: 'Strategic Depth',
  coherence: 'Conversation Coherence', roleConsistency: 'Role Consistency',
  personalityDiversity: 'Personality Diversity', antiRepetition: 'Anti-Repetition',
  engagement: 'Engagement (Manual)'};
const lines = [];
for (const [key, name] of Object.entries(names)) {
  const metric = result.metrics[key];
  lines.push(`${metric.pass ? 'PASS' : 'FAIL'} ${name}: ${metric.score.toFixed(2)}` +
             ` (threshold: ${metric.threshold.toFixed(2)})`);
}
lines.push(`Overall: ${result.passCount}/${result.totalMetrics} metrics passed`);
process.stdout.write(JSON.stringify({lines, same: JSON.stringify(result, null, 2) === text}));
"""

EMPTY_GAME = {
    "gameId": "empty", "timestamp": "2026-03-14T19:00:00.000Z",
    "metadata": {"playerCount": 2, "totalTurns": 0,
                 "cost": {"totalCost": 0.0, "cacheHitRate": 0.0}},
    "players": [{"name": "Ada", "role": "MAFIA", "personality": "x"},
                {"name": "Bo", "role": "VILLAGER", "personality": "y"}],
    "messages": [], "votes": [],
}  # fmt: skip

#: Written by hand: 2L's placeholders for a game nobody spoke in (its script: strategic
#: depth, role consistency, diversity 0; coherence, anti-repetition, memory 1; engagement
#: 3), this rubric's passes (only memory: no claim to check), the toolkit's own state apart.
EXPECTED_EMPTY = {
    "metrics": {
        "memoryAccuracy": {"score": 1, "threshold": 0.8, "pass": True},
        "strategicDepth": {"score": 0, "threshold": 0.6, "pass": False},
        "coherence": {"score": 1, "threshold": 0.7, "pass": False},
        "roleConsistency": {"score": 0, "threshold": 0.8, "pass": False},
        "personalityDiversity": {"score": 0, "threshold": 0.5, "pass": False},
        "antiRepetition": {"score": 1, "threshold": 0.9, "pass": False},
        "engagement": {"score": 3, "threshold": 3, "pass": False},
    },
    "passCount": 1,
    "totalMetrics": 7,
    "overallPass": False,
    "toolkit": {
        "verdict": "FAIL",
        "rubricVersion": "1.2.0",
        "placeholders": {
            "strategicDepth": "N/A: no messages",
            "coherence": "N/A: fewer than 2 messages",
            "roleConsistency": "N/A: no messages by players of known role",
            "personalityDiversity": "N/A: fewer than 2 speakers",
            "antiRepetition": "N/A: no phrases to compare",
            "engagement": "pending: no rating yet",
        },
    },
}

EXPECTED_EMPTY_LINES = [
    "PASS Memory Accuracy: 1.00 (threshold: 0.80)",
    "FAIL Strategic Depth: 0.00 (threshold: 0.60)",
    "FAIL Conversation Coherence: 1.00 (threshold: 0.70)",
    "FAIL Role Consistency: 0.00 (threshold: 0.80)",
    "FAIL Personality Diversity: 0.00 (threshold: 0.50)",
    "FAIL Anti-Repetition: 1.00 (threshold: 0.90)",
    "FAIL Engagement (Manual): 3.00 (threshold: 3.00)",
    "Overall: 1/7 metrics passed",
]


def read_with_node(path: Path) -> dict[str, object]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", READ_AS_2L, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr  # a null score: "Cannot read properties of null"
    result: dict[str, object] = json.loads(done.stdout)
    return result


def write_2l(source: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    assert main(["discussion", str(source), *extra, "--write", "--compat", "2l"]) == 0
    capsys.readouterr()
    return source.parent / "evaluations" / f"{source.stem}-evaluation.json"


def test_an_empty_games_file_reads_in_node_as_2ls_display_code_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "discussion-empty.json"
    source.write_text(json.dumps(EMPTY_GAME), encoding="utf-8")
    saved = write_2l(source, capsys)
    shown = read_with_node(saved)
    assert shown["lines"] == EXPECTED_EMPTY_LINES
    assert shown["same"] is True  # byte for byte what JSON.stringify(result, null, 2) writes
    doc = json.loads(saved.read_text(encoding="utf-8"))
    del doc["timestamp"]
    assert doc["toolkit"].pop("verdictReason").startswith("no discussion messages")
    # the measurement epoch and input digest, in the toolkit's own key (docs/epochs.md)
    assert re.fullmatch(r"[0-9a-f]{12}", doc["toolkit"].pop("epoch"))
    assert re.fullmatch(r"[0-9a-f]{12}", doc["toolkit"].pop("inputDigest"))
    assert doc == EXPECTED_EMPTY


@pytest.mark.parametrize("game", ["game-pass.json", "game-role-repetition.json"])
def test_scored_games_files_are_what_json_stringify_writes(
    game: str, sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = Path(shutil.copytree(sample_runs / "discussions", tmp_path / "games"))
    saved = write_2l(games / game, capsys, "--ratings", str(games / "ratings.csv"))
    shown = read_with_node(saved)
    assert shown["same"] is True
    assert len(shown["lines"]) == 8  # type: ignore[arg-type]
    text = saved.read_text(encoding="utf-8")
    assert ".0," not in text and ".0\n" not in text  # no whole number written as 1.0
