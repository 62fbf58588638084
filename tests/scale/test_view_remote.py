"""``toolkit view`` of object storage (moto's S3 server on 127.0.0.1): the runs, logs,
games and chats found and scored from a bucket are the same, with the same verdicts and
statuses, as from the same folders on disk."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import ITERATION_LOGS, S3, SAMPLE_RUNS

from toolkit.cli import main

CALL = re.compile(r"^window\.__tk\.\w+\((.*)\);\n$", re.S)


def _rows(site: Path) -> dict[str, tuple[Any, ...]]:
    """Index rows by the run's last path part: (family, rubric, verdict, statuses)."""
    manifest = json.loads(f"[{CALL.match((site / 'data' / 'manifest.js').read_text())[1]}]")[0]
    text = (site / "data" / "index-0.js").read_text(encoding="utf-8")
    _, rows = json.loads(f"[{CALL.match(text)[1]}]")
    out = {}
    for r in rows:
        names = [k for k, _ in manifest["dimsets"][r[6][0]]] if r[6] else []
        key = r[0].split("/", 1)[-1]
        out[key] = (r[1], r[3], r[5], dict(zip(names, r[6][1:], strict=True)))
    return out


@pytest.mark.parametrize(
    ("local", "prefix", "count"),
    [(SAMPLE_RUNS / "universes", "view/universes", 3),
     (ITERATION_LOGS / "tally-loop", "view/logs/tally-loop", 6),
     # 3 game files and the 3 games of baseline/games.db (a SQLite database)
     (SAMPLE_RUNS / "discussions", "view/discussions", 6),
     # 3 chats scored by the kit beside them (4 agents and the environment each)
     (SAMPLE_RUNS / "persona", "view/persona", 15)],
    ids=["simulation", "outcome", "discussion", "persona"],
)  # fmt: skip
def test_a_site_of_a_bucket_matches_the_site_of_the_disk(
    s3: S3, local: Path, prefix: str, count: int, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    url = s3.upload(local, prefix)
    remote_site, local_site = tmp_path / "remote", tmp_path / "local"
    assert main(["view", url, "--storage-option", s3.option, "-o", str(remote_site)]) == 0
    assert main(["view", str(local), "-o", str(local_site)]) == 0
    capsys.readouterr()
    remote, here = _rows(remote_site), _rows(local_site)
    assert len(remote) == count
    assert remote == here
    assert all(r[1] is not None for r in remote.values())  # every one scored
    for path in (remote_site / "data" / "run").glob("*.js"):  # shown by URL, never a copy
        _, doc = json.loads(f"[{CALL.match(path.read_text(encoding='utf-8'))[1]}]")
        assert doc["source"].startswith(url), doc["source"]


def test_a_bucket_s_chats_are_scored_by_a_kit_in_the_bucket_given_by_url(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kit = s3.upload(SAMPLE_RUNS / "persona", "view/kit")
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "week2.jsonl").write_bytes(
        (SAMPLE_RUNS / "persona" / "radio-week2.jsonl").read_bytes()
    )
    args = ["view", str(chats), "--storage-option", s3.option, "-o", str(tmp_path / "site"),
            "--propositions", f"{kit}/propositions", "--cassette", f"{kit}/cassette.json",
            "--baseline", f"{kit}/baselines"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    rows = _rows(tmp_path / "site")
    assert rows["week2.jsonl/lenny"][2] == "FAILED" and len(rows) == 5


def test_a_game_that_does_not_load_is_noted_by_its_url(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "game-pass.json").write_bytes(
        (SAMPLE_RUNS / "discussions" / "game-pass.json").read_bytes()
    )
    (folder / "broken.json").write_text('{"gameId": ', encoding="utf-8")
    url = s3.upload(folder, "view/broken")
    assert main(["view", url, "--storage-option", s3.option, "-o", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    assert f"{url}/broken.json" in err and "toolkit-view-" not in err


def test_a_calibration_in_the_bucket_is_found_and_its_items_link_to_the_bucket_s_chats(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from calibration_fixture import calibration_result

    folder = tmp_path / "up"
    folder.mkdir()
    for name in ("radio-week2.jsonl", "cassette.json", "personas.yaml"):
        (folder / name).write_bytes((SAMPLE_RUNS / "persona" / name).read_bytes())
    shutil.copytree(SAMPLE_RUNS / "persona" / "propositions", folder / "propositions")
    url = s3.upload(folder, "view/calibrated")
    doc = calibration_result()
    for row in doc["disagreements"]:  # the sources as the bucket names them
        if row.get("source") == "sample_runs/persona/radio-week2.jsonl":
            row["source"] = f"{url}/radio-week2.jsonl"
    s3.client.put_object(Bucket=url.split("/")[2], Key="view/calibrated/calibration.json",
                         Body=json.dumps(doc).encode())  # fmt: skip
    site = tmp_path / "site"
    assert main(["view", url, "--storage-option", s3.option, "-o", str(site)]) == 0
    capsys.readouterr()
    text = (site / "data" / "calibration.js").read_text(encoding="utf-8")
    shown = json.loads(f"[{CALL.match(text)[1]}]")[0]
    assert shown["links"][0] == {
        "run": "calibrated/radio-week2.jsonl/lenny", "item": "s1-s5,s26-s31", "why": ""
    }  # fmt: skip
