"""The measurement epoch (toolkit.epoch): what changes it and what does not, the input
digest, every output that carries them, and compare's fence between epochs."""

from __future__ import annotations

import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.epoch import Epoch, canonical_json, input_digest, short_hash, spec_epoch
from toolkit.errors import InputError
from toolkit.fleet.compare import compare
from toolkit.load.universe import load_universe
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, load_simulation_rubric, score_universe

RUN = SAMPLE_RUNS / "fleet" / "run-0000"
A = SAMPLE_RUNS / "compare" / "a"
#: The published simulation rubric with one threshold changed (a new version, as the
#: version guard asks).
CHANGED = "rubric: simulation\nversion: 1.2.0-local\ngroundedness:\n  ok_min: 0.9\n"


def test_short_hash_is_sha256_over_sorted_compact_json() -> None:
    by_hand = hashlib.sha256(b'{"a":[1,2],"b":"x"}').hexdigest()[:12]
    assert canonical_json({"b": "x", "a": [1, 2]}) == b'{"a":[1,2],"b":"x"}'
    assert short_hash({"b": "x", "a": [1, 2]}) == by_hand


def test_input_digest_hashes_each_part_with_its_length_in_name_order() -> None:
    h = hashlib.sha256()
    for piece in (b"a", b"1", b"b", b"22"):
        h.update(len(piece).to_bytes(8, "big") + piece)
    assert input_digest([("b", b"22"), ("a", b"1")]) == h.hexdigest()[:12]
    assert input_digest([("a", b"12"), ("b", b"2")]) != input_digest([("a", b"1"), ("b", b"22")])


def test_the_epoch_changes_with_a_threshold_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "rubric.yaml"
    path.write_text(CHANGED)
    base, changed = spec_epoch(DEFAULT_RUBRIC), spec_epoch(load_simulation_rubric(path))
    assert base.id != changed.id
    assert base.differences(changed) == [
        "parameters.groundedness.ok_min: 0.95 → 0.9",
        'version: "1.2.0" → "1.2.0-local"',
    ]
    assert spec_epoch(DEFAULT_RUBRIC).id == base.id  # deterministic
    assert spec_epoch(DEFAULT_RUBRIC, window=30).id != base.id  # an option that decides
    assert spec_epoch(DEFAULT_RUBRIC, window=50).id == base.id  # the rubric's own window


def test_a_judge_is_part_of_the_epoch() -> None:
    one = Epoch("persona", "1.0.0", {}, {"provider": "openai", "model": "a"})
    two = Epoch("persona", "1.0.0", {}, {"provider": "openai", "model": "b"})
    assert one.id != two.id and one.differences(two) == ['judge.model: "a" → "b"']


def _card(run: Path, rubric: object = DEFAULT_RUBRIC) -> dict[str, object]:
    [card] = score_universe(load_universe(run), rubric, series=False)  # type: ignore[arg-type]
    return dict(card.meta)


def test_simulation_cards_carry_epoch_and_input_digest(tmp_path: Path) -> None:
    run = tmp_path / "run-0000"
    shutil.copytree(RUN, run)
    before = _card(run)
    assert len(str(before["epoch"])) == 12 and len(str(before["input_digest"])) == 12
    (run / "notes.txt").write_text("an unrelated file")  # not an input of the score
    assert _card(run) == before
    assert _card(RUN)["input_digest"] == before["input_digest"]  # the copy: same content
    path = tmp_path / "rubric.yaml"
    path.write_text(CHANGED)
    rescored = _card(run, load_simulation_rubric(path))
    assert rescored["epoch"] != before["epoch"]
    assert rescored["input_digest"] == before["input_digest"]  # same input
    tick = run / "tick_summaries" / "ticks" / "tick_60.json"
    data = json.loads(tick.read_text())
    data["action_text"] = "Mara goes to the chapel to harvest the hemp."
    tick.write_text(json.dumps(data))  # a rewritten tick file (as token-world did)
    after = _card(run)
    assert after["input_digest"] != before["input_digest"]
    assert after["epoch"] == before["epoch"]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_every_output_carries_the_epoch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["quality", str(RUN), "--format", "json"], capsys)
    card = json.loads(out)
    epoch, digest = card["epoch"], card["input_digest"]
    assert code == 0 and len(epoch) == 12 and len(digest) == 12
    junit = tmp_path / "report.xml"
    _cli(["quality", str(RUN), "--format", "markdown", "--junit", str(junit)], capsys)
    _, md, _ = _cli(["quality", str(RUN), "--format", "markdown"], capsys)
    assert f"· epoch {epoch}" in md.splitlines()[0]
    assert f"Input digest `{digest}`" in md
    root = ET.parse(junit).getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["epoch"] == epoch and props["input_digest"] == digest


def test_outcome_json_carries_epoch_and_input_digests(capsys: pytest.CaptureFixture[str]) -> None:
    log = SAMPLE_RUNS / "iteration_logs" / "tally-loop"
    _, out, _ = _cli(["outcome", str(log), "--format", "json"], capsys)
    doc = json.loads(out)
    assert len(doc["epoch"]) == 12
    assert all(len(it["input_digest"]) == 12 for it in doc["iterations"])
    _, again, _ = _cli(["outcome", str(log), "--rubric", "dot-agents-3.0.0", "--format", "json"],
                       capsys)  # fmt: skip
    other = json.loads(again)
    assert other["epoch"] != doc["epoch"]


def test_compare_refuses_arms_of_different_epochs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rubric.yaml"
    path.write_text(CHANGED)
    with pytest.raises(InputError) as refused:
        compare(A, A, rubric_b=path, resamples=199)
    message = str(refused.value)
    assert "different epochs" in message and "--across-epochs" in message
    assert "parameters.groundedness.ok_min: 0.95 → 0.9" in message
    result = compare(A, A, rubric_b=path, resamples=199, across_epochs=True)
    [note] = [n for n in result.notes if n.startswith("compared across epochs")]
    assert "parameters.groundedness.ok_min: 0.95 → 0.9" in note
    code, _, err = _cli(["compare", str(A), str(A), "--rubric-b", str(path),
                         "--resamples", "199"], capsys)  # fmt: skip
    assert code == 2 and "different epochs" in err and "Traceback" not in err
    same = compare(A, A, rubric_b=path, rubric_a=path, resamples=199)
    assert not [n for n in same.notes if "epoch" in n]


def test_the_site_run_record_carries_epoch_and_input_digest(tmp_path: Path) -> None:
    from toolkit.views.site import SiteRun, write_site

    [card] = score_universe(load_universe(RUN), DEFAULT_RUBRIC, series=False)
    write_site([SiteRun(id="run-0000", family="simulation", card=card)], tmp_path / "site")
    [record] = (tmp_path / "site" / "data" / "run").glob("*.js")
    text = record.read_text(encoding="utf-8")
    assert f'"epoch":"{card.meta["epoch"]}"' in text.replace(" ", "")
    assert f'"input_digest":"{card.meta["input_digest"]}"' in text.replace(" ", "")


def test_persona_cards_carry_the_judge_in_their_epoch(tmp_path: Path) -> None:
    import toolkit as tk
    from toolkit.judge import RecordedJudge

    folder = SAMPLE_RUNS / "persona"
    run = tk.load_chat(folder / "radio-week2.jsonl")
    props = tk.load_propositions(folder / "propositions")
    cassette = folder / "cassette.json"
    result = tk.score_persona(run, props, RecordedJudge(cassette), progress=False)
    metas = [card.meta for card in result.scorecards.values()]
    assert len({m["epoch"] for m in metas}) == 1 and len(str(metas[0]["epoch"])) == 12
    assert len({m["input_digest"] for m in metas}) == 1
    # the same recordings under another file name: one epoch; another judge: another
    copy = tmp_path / "renamed.json"
    copy.write_bytes(cassette.read_bytes())
    same = tk.score_persona(run, props, RecordedJudge(copy), progress=False)
    assert {c.meta["epoch"] for c in same.scorecards.values()} == {metas[0]["epoch"]}
    data = json.loads(cassette.read_text())
    data["judge"] = "another-model"  # the same answers, recorded from another judge
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    moved = tk.score_persona(run, props, RecordedJudge(other), progress=False)
    assert {c.meta["epoch"] for c in moved.scorecards.values()} != {metas[0]["epoch"]}
    assert {c.meta["input_digest"] for c in moved.scorecards.values()} == {metas[0]["input_digest"]}


def test_the_score_sidecar_keeps_its_fields_and_puts_the_epoch_under_toolkit() -> None:
    import toolkit as tk
    from toolkit.sidecars import iteration_sidecar

    log = tk.load_iteration_log(SAMPLE_RUNS / "iteration_logs" / "tally-loop")
    result = tk.score_outcome(log, tk.collect_outcome_evidence(log))
    data = iteration_sidecar(result, 1)
    assert "epoch" not in data and "input_digest" not in data  # dot-agents' fields untouched
    assert data["toolkit"]["epoch"] == result.epoch and len(result.epoch) == 12
    assert data["toolkit"]["input_digest"] == result.input_digests[1]
