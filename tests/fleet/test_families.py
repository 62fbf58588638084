"""One family detector (:mod:`toolkit.fleet.families`) for ``view``, ``compare`` and every
command that asks which runs a folder holds: each family is told from its names, on disk
and in object storage (moto's S3 server on 127.0.0.1), the same way."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import ITERATION_LOGS, S3, SAMPLE_RUNS

from toolkit.errors import InputError
from toolkit.fleet.families import PersonaKit
from toolkit.fleet.find import chat_files, detect_family, discover, survey

PERSONA = SAMPLE_RUNS / "persona"


def _families(source: str | Path, **options: str) -> Counter[str]:
    return Counter(f.family for f in discover(source, options or None))


@pytest.mark.parametrize(
    ("folder", "found", "family"),
    [("fleet", {"simulation": 16}, "simulation"), ("universes", {"simulation": 3}, "simulation"),
     # tally-loop, and the coding agent's session transcript beside it (no chat)
     ("iteration_logs", {"outcome": 1, "agent_transcript": 1}, "outcome"),
     # three chats; the gate's correction log beside them is no chat
     ("discussions", {"discussion": 4}, "discussion"), ("persona", {"persona": 3}, "persona")],
)  # fmt: skip
def test_each_sample_folder_is_its_family_for_view_and_compare(
    folder: str, found: dict[str, int], family: str
) -> None:
    assert _families(SAMPLE_RUNS / folder) == found
    assert detect_family(SAMPLE_RUNS / folder) == family


def test_a_run_folder_is_one_run_and_not_looked_inside(tmp_path: Path) -> None:
    run = tmp_path / "r1"
    (run / "tick_summaries").mkdir(parents=True)
    (run / "tick_summaries" / "tick_0001.json").write_text("{}", encoding="utf-8")
    (run / "notes.json").write_text("{}", encoding="utf-8")  # not a game: inside a run
    found = discover(tmp_path)
    assert [(f.family, Path(f.path).name, f.id) for f in found] == [
        ("simulation", "r1", f"{tmp_path.name}/r1")
    ]
    assert detect_family(run) == detect_family(tmp_path) == "simulation"


def test_files_are_told_by_their_suffix(tmp_path: Path) -> None:
    names = ("a.jsonl", "b.run_messages.json", "c.json", "d.db", "e.sqlite", "f.txt",
             "calibration.json", "week2.calibration.json", "my_calibration.json",
             "cassette.json", "judge.cassette.json")  # fmt: skip
    for name in names:
        (tmp_path / name).write_text("", encoding="utf-8")
    found = {Path(f.path).name: f.family for f in discover(tmp_path)}
    assert found == {
        "a.jsonl": "persona", "b.run_messages.json": "persona",
        "c.json": "discussion", "d.db": "discussion", "e.sqlite": "discussion",
        # A calibrate result is a page of the site, not runs (its name says which).
        "calibration.json": "calibration", "week2.calibration.json": "calibration",
        "my_calibration.json": "discussion",
        # A judge's cassette is no run (cassette.json, judge.cassette.json are left out).
    }  # fmt: skip
    # A folder of several families is the first of simulation, outcome, persona, discussion.
    assert detect_family(tmp_path) == "persona"
    assert detect_family(tmp_path / "c.json") == "discussion"
    assert detect_family(tmp_path / "f.txt") == "discussion"  # a single file: games


def test_hidden_files_and_written_folders_are_never_runs(tmp_path: Path) -> None:
    for rel in (".cache/x.json", "evaluations/y.json", "__pycache__/z.json", ".hidden.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}", encoding="utf-8")
    assert discover(tmp_path) == []
    with pytest.raises(InputError, match="no simulation run, iteration log, game or chat found"):
        detect_family(tmp_path)


def test_a_persona_kit_is_found_and_its_files_are_not_games() -> None:
    found, kits = survey(PERSONA)
    assert kits == {
        PERSONA.as_posix(): PersonaKit(
            propositions=f"{PERSONA.as_posix()}/propositions",
            cassette=f"{PERSONA.as_posix()}/cassette.json",
            personas=f"{PERSONA.as_posix()}/personas.yaml",
            baselines=f"{PERSONA.as_posix()}/baselines",
        )
    }
    names = sorted(Path(f.path).name for f in found)
    # The gate's correction log beside the chats is no chat.
    assert names == ["radio-week1.jsonl", "radio-week1.run_messages.json", "radio-week2.jsonl"]


def test_without_a_cassette_there_is_no_kit_and_its_files_are_candidates(tmp_path: Path) -> None:
    shutil.copytree(PERSONA, tmp_path / "persona")
    (tmp_path / "persona" / "cassette.json").unlink()
    found, kits = survey(tmp_path / "persona")
    assert kits == {}
    assert "lenny.json" in {Path(f.path).name for f in found if f.family == "discussion"}


def test_a_missing_source_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        discover(tmp_path / "nope")


@pytest.mark.parametrize(
    ("local", "prefix", "expected", "family"),
    [(SAMPLE_RUNS / "universes", "families/universes", {"simulation": 3}, "simulation"),
     (ITERATION_LOGS, "families/logs", {"outcome": 1, "agent_transcript": 1}, "outcome"),
     (SAMPLE_RUNS / "discussions", "families/discussions", {"discussion": 4}, "discussion"),
     (PERSONA, "families/persona", {"persona": 3}, "persona")],
    ids=["simulation", "outcome", "discussion", "persona"],
)  # fmt: skip
def test_a_bucket_is_told_as_the_same_folder_on_disk(
    s3: S3, local: Path, prefix: str, expected: dict[str, int], family: str
) -> None:
    url = s3.upload(local, prefix)
    options = {"endpoint_url": s3.endpoint}
    remote, kits = survey(url, options)
    assert Counter(f.family for f in remote) == expected == _families(local)
    assert detect_family(url, options) == family
    here = discover(local)
    # Same ids (the source's name, then the path under it), URLs in place of paths.
    assert [f.id.split("/", 1)[-1] for f in remote] == [f.id.split("/", 1)[-1] for f in here]
    assert all(f.path.startswith(url + "/") for f in remote)
    if family == "persona":
        assert list(kits.values()) == [
            PersonaKit(f"{url}/propositions", f"{url}/cassette.json",
                       f"{url}/personas.yaml", f"{url}/baselines")
        ]  # fmt: skip


def test_one_object_named_by_its_url_is_its_family(s3: S3) -> None:
    url = s3.upload(PERSONA, "families/one")
    options = {"endpoint_url": s3.endpoint}
    assert [(f.family, f.path) for f in discover(f"{url}/radio-week2.jsonl", options)] == [
        ("persona", f"{url}/radio-week2.jsonl")
    ]
    with pytest.raises(InputError, match="no such file or folder"):
        discover(f"{url}/nothing-here", options)


def test_the_chat_files_of_a_folder_are_its_chats_and_a_file_is_itself(tmp_path: Path) -> None:
    assert [p.name for p in chat_files(PERSONA)] == [
        "radio-week1.jsonl", "radio-week1.run_messages.json", "radio-week2.jsonl",
    ]  # fmt: skip
    assert chat_files(PERSONA / "personas.yaml") == [PERSONA / "personas.yaml"]
    with pytest.raises(InputError, match="no chat files"):
        chat_files(SAMPLE_RUNS / "universes")


def test_a_chat_named_alone_brings_the_kit_of_its_folder() -> None:
    found, kits = survey(PERSONA / "radio-week2.jsonl")
    assert [(f.family, f.id) for f in found] == [("persona", "radio-week2.jsonl")]
    assert list(kits) == [PERSONA.as_posix()]
    assert survey(SAMPLE_RUNS / "discussions" / "game-pass.json")[1] == {}


CLAUDE_SESSION = "4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10.jsonl"
CODEX_SESSION = "rollout-2026-03-05T12-00-00-9e0b5c37-1a2d-4f6e-8b90-c4d5e6f7a8b9.jsonl"


def test_agent_transcripts_and_correction_logs_are_no_chats(tmp_path: Path) -> None:
    # A folder of coding-agent session logs beside an iteration log, as toolkit outcome
    # --transcripts reads them, and a gate's correction logs beside a chat.
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "iter-1.yaml").write_text("", encoding="utf-8")
    (tmp_path / "transcripts").mkdir()
    for name in (CLAUDE_SESSION, CODEX_SESSION):
        (tmp_path / "transcripts" / name).write_text("", encoding="utf-8")
    names = ("chat.jsonl", "gate-corrections.jsonl", "corrections.jsonl",
             "week2_correction_log.jsonl", "incorrect.jsonl",
             "office-intervention-logs.jsonl")  # fmt: skip
    for name in names:
        (tmp_path / name).write_text("", encoding="utf-8")
    found = {Path(f.path).name: f.family for f in discover(tmp_path)}
    assert found == {
        "loop": "outcome", CLAUDE_SESSION: "agent_transcript", CODEX_SESSION: "agent_transcript",
        "chat.jsonl": "persona", "incorrect.jsonl": "persona",  # "correction" is no word of it
    }  # fmt: skip
    assert [p.name for p in chat_files(tmp_path)] == ["chat.jsonl", "incorrect.jsonl"]
    # compare never takes a folder of agent transcripts for runs of a family.
    with pytest.raises(
        InputError,
        match=r"no simulation run, .* found in it .*say which they are: --family simulation\|",
    ):
        detect_family(tmp_path / "transcripts")


def test_a_chat_named_by_a_uuid_is_a_chat_beside_a_kit_or_when_named_alone(
    tmp_path: Path,
) -> None:
    kit = tmp_path / "kit"
    shutil.copytree(PERSONA / "propositions", kit / "propositions")
    shutil.copy(PERSONA / "cassette.json", kit / "cassette.json")
    (kit / CLAUDE_SESSION).write_text("", encoding="utf-8")
    assert [(Path(f.path).name, f.family) for f in discover(tmp_path)] == [
        (CLAUDE_SESSION, "persona")
    ]
    lone = tmp_path / CODEX_SESSION
    lone.write_text("", encoding="utf-8")
    assert [f.family for f in discover(lone)] == ["persona"]
    assert detect_family(lone) == "persona"


def test_an_empty_folder_is_called_empty_not_asked_for_a_family(tmp_path: Path) -> None:
    """An empty folder has nothing a --family could name: the error says it is empty."""
    (tmp_path / "sub").mkdir()
    with pytest.raises(InputError, match=r"the folder is empty") as info:
        detect_family(tmp_path)
    assert "--family" not in str(info.value)
