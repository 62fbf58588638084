"""Discussion results carry their measurement epoch and each game's input digest: in the
scorecards, the JSON, the saved sidecars (2L's file: under the toolkit's key), JUnit
properties and the Markdown heading; the judge, the rubric version and the options are
part of the epoch, the game's rows, ratings and labels of the digest."""

from __future__ import annotations

import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from toolkit import __version__
from toolkit.cli import main
from toolkit.judge import RecordedJudge
from toolkit.load.discussion import load_discussion
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DISCUSSION_SPEC_1_1_0,
    judge_discussion,
    load_discussion_spec,
    score_discussion,
)


@pytest.fixture
def games(sample_runs: Path, tmp_path: Path) -> Path:
    """A private copy of the sample games (``--write`` writes beside them)."""
    return Path(shutil.copytree(sample_runs / "discussions", tmp_path / "games"))


def _flat(value: Any, prefix: str, out: dict[str, Any]) -> dict[str, Any]:
    """Nested keys joined by dots; an empty mapping stays a value (the epoch's rule)."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _flat(inner, f"{prefix}.{key}", out)
    else:
        out[prefix] = value
    return out


def _by_hand(spec: Any, options: dict[str, Any], judge: dict[str, Any]) -> str:
    """The epoch as toolkit/epoch.py documents it: SHA-256 over canonical JSON (sorted
    keys, no spaces, UTF-8) of the flat basis, first 12 hex digits."""
    basis: dict[str, Any] = {"rubric": spec.rubric, "version": spec.version, "scorer": __version__}
    data = spec.model_dump(mode="json", exclude={"rubric", "version"})
    _flat({**data, **options}, "parameters", basis)
    _flat(judge, "judge", basis)
    text = json.dumps(basis, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def test_every_card_carries_the_epoch_computed_from_the_rubric_and_options(games: Path) -> None:
    report = score_discussion(load_discussion(games / "game-pass.json"))
    want = _by_hand(DEFAULT_DISCUSSION_SPEC, {"require_cost": False, "engagement": "humans"}, {})
    assert [c.meta["epoch"] for c in report.scorecards] == [want]
    strict = score_discussion(load_discussion(games / "game-pass.json"), require_cost=True)
    assert strict.scorecards[0].meta["epoch"] != want  # --require-cost changes verdicts


def test_1_1_0_and_1_2_0_are_two_versions_and_two_epochs(games: Path) -> None:
    # 1.2.0 added the general statements of issue 37; 1.1.0 is kept as published
    assert DEFAULT_DISCUSSION_SPEC.version == "1.2.0"
    assert DISCUSSION_SPEC_1_1_0.role.general_statements == ()
    assert DEFAULT_DISCUSSION_SPEC.role.general_statements
    assert load_discussion_spec({"version": "1.1.0"}) == DISCUSSION_SPEC_1_1_0
    d = load_discussion(games / "game-pass.json")
    old = score_discussion(d, spec=DISCUSSION_SPEC_1_1_0).scorecards[0]
    new = score_discussion(d).scorecards[0]
    assert old.rubric_version == "1.1.0" and new.rubric_version == "1.2.0"
    assert old.meta["epoch"] != new.meta["epoch"]
    assert old.meta["input_digest"] == new.meta["input_digest"]  # same game, same input


def test_a_threshold_moves_the_epoch_not_the_input_digest(games: Path) -> None:
    d = load_discussion(games / "game-pass.json")
    team = load_discussion_spec(
        {"version": "1.2.0-team", "metrics": {"coherence": {"threshold": 0.5}}}
    )
    a, b = score_discussion(d).scorecards[0], score_discussion(d, spec=team).scorecards[0]
    assert a.meta["epoch"] != b.meta["epoch"]
    assert a.meta["input_digest"] == b.meta["input_digest"]


def test_the_judge_is_part_of_the_epoch(games: Path, tmp_path: Path) -> None:
    d = load_discussion(games / "game-pass.json")
    cassette = games / "judge" / "cassette.json"
    judged = judge_discussion(d, RecordedJudge(cassette))
    assert judged.basis["cassette"] == RecordedJudge(cassette).digest()
    plain = score_discussion(d).scorecards[0].meta["epoch"]
    with_judge = score_discussion(d, judged=judged).scorecards[0].meta["epoch"]
    assert plain != with_judge
    # another recording (one answer changed) is another judge, so another epoch
    doc = json.loads(cassette.read_text(encoding="utf-8"))
    first = next(iter(doc["recordings"]))
    doc["recordings"][first]["reasoning"] = "changed by the test"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    rejudged = judge_discussion(d, RecordedJudge(other))
    assert score_discussion(d, judged=rejudged).scorecards[0].meta["epoch"] != with_judge


def test_the_input_digest_follows_the_game_not_its_path(games: Path, tmp_path: Path) -> None:
    source = games / "game-pass.json"
    copy = tmp_path / "elsewhere" / "copy.json"
    copy.parent.mkdir()
    shutil.copy(source, copy)
    digest = score_discussion(load_discussion(source)).scorecards[0].meta["input_digest"]
    assert score_discussion(load_discussion(copy)).scorecards[0].meta["input_digest"] == digest
    changed = source.read_text(encoding="utf-8").replace("Mafia", "mafia", 1)
    assert changed != source.read_text(encoding="utf-8")
    copy.write_text(changed, encoding="utf-8")
    assert score_discussion(load_discussion(copy)).scorecards[0].meta["input_digest"] != digest
    # an engagement rating is an input too
    gid = load_discussion(source).game_ids[0]
    rated = pl.DataFrame({"game_id": [gid], "rater": ["ann"], "score": [4.0]})
    d = load_discussion(source)
    assert score_discussion(d, ratings=rated).scorecards[0].meta["input_digest"] != digest


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["discussion", *args])
    return code, capsys.readouterr().out


def test_json_sidecars_junit_and_markdown_carry_epoch_and_digest(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = games / "game-pass.json"
    card = score_discussion(load_discussion(source)).scorecards[0]
    epoch, digest = card.meta["epoch"], card.meta["input_digest"]
    _, out = _run([str(source), "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["epoch"] == epoch
    assert (doc["games"][0]["epoch"], doc["games"][0]["input_digest"]) == (epoch, digest)
    _run([str(source), "--write"], capsys)
    saved = json.loads((games / "evaluations" / "game-pass.score.json").read_text())
    assert (saved["epoch"], saved["input_digest"]) == (epoch, digest)
    _run([str(source), "--write", "--compat", "2l"], capsys)
    two_l = json.loads((games / "evaluations" / "game-pass-evaluation.json").read_text())
    assert (two_l["toolkit"]["epoch"], two_l["toolkit"]["inputDigest"]) == (epoch, digest)
    assert "epoch" not in two_l and "inputDigest" not in two_l  # 2L's own keys untouched
    junit = tmp_path / "junit.xml"
    _run([str(source), "--junit", str(junit)], capsys)
    root = ET.parse(junit).getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["epoch"] == epoch and props["input_digest"] == digest
    _, md = _run([str(source), "--format", "markdown"], capsys)
    assert f"epoch {epoch}" in md.splitlines()[0]
    _, text = _run([str(source)], capsys)
    assert f"Rubric discussion 1.2.0 (epoch {epoch}): 1 game(s)" in text
