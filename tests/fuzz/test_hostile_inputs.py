"""Hostile and sloppy variants of every input family's sample files, through the CLI and
the public API: a result (with warnings or issue rows) or one ``InputError`` line naming
the file; never another exception, never a hang, never a write outside the input folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.ratings.store import RatingStore

from .conftest import SAMPLES, cli_holds, holds, mutated, plant, sandbox

pytestmark = pytest.mark.timeout(300)


def _pick(files: list[Path]) -> st.SearchStrategy[tuple[Path, bytes | str]]:
    return st.sampled_from(files).flatmap(
        lambda f: st.tuples(st.just(f), mutated(f.read_bytes() if f.is_file() else b""))
    )


_UNIVERSE = SAMPLES / "universes" / "ashfall"
_UNIVERSE_FILES = [
    *sorted((_UNIVERSE / "tick_summaries").glob("*.json")),
    *sorted((_UNIVERSE / "tick_summaries" / "ticks").glob("tick_*.json"))[:4],
    _UNIVERSE / "universe.yaml",
    _UNIVERSE / "conservation.yaml",
    _UNIVERSE / "universe.db",
]


@given(_pick(_UNIVERSE_FILES), st.booleans())
def test_universe_runs(
    tmp_path_factory: pytest.TempPathFactory, pick: tuple[Path, bytes | str], cache: bool
) -> None:
    source, mutation = pick
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        run = box.inputs / "ashfall"
        shutil.copytree(_UNIVERSE, run)
        plant(run / source.relative_to(_UNIVERSE), mutation, box.outside)
        argv = ["quality", str(run), "--format", "json"] + (["--cache"] if cache else [])
        cli_holds(box, argv)
        holds(box, lambda: tk.load_universe(run, cache=cache))


_LOG = SAMPLES / "iteration_logs" / "tally-loop"
_LOG_FILES = sorted(_LOG.glob("*.yaml"))


@given(_pick(_LOG_FILES))
def test_iteration_logs(
    tmp_path_factory: pytest.TempPathFactory, pick: tuple[Path, bytes | str]
) -> None:
    source, mutation = pick
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        log = box.inputs / "tally-loop"
        shutil.copytree(_LOG, log)
        plant(log / source.name, mutation, box.outside)
        cli_holds(box, ["outcome", str(log), "--write"])


_GAMES = SAMPLES / "discussions"
_GAME_FILES = [*sorted(_GAMES.glob("*.json")), _GAMES / "ratings.csv"]


@given(_pick(_GAME_FILES))
def test_discussions(
    tmp_path_factory: pytest.TempPathFactory, pick: tuple[Path, bytes | str]
) -> None:
    source, mutation = pick
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        for f in _GAME_FILES:
            shutil.copy(f, box.inputs / f.name)
        plant(box.inputs / source.name, mutation, box.outside)
        cli_holds(
            box, ["discussion", str(box.inputs), "--ratings", str(box.inputs / "ratings.csv")]
        )


_PERSONA = SAMPLES / "persona"
_PERSONA_FILES = [
    _PERSONA / "radio-week2.jsonl",
    _PERSONA / "cassette.json",
    _PERSONA / "personas.yaml",
    *sorted((_PERSONA / "propositions").rglob("*.yaml"))[:3],
    *sorted((_PERSONA / "baselines").glob("*.json"))[:2],
]


@given(_pick(_PERSONA_FILES))
def test_persona(tmp_path_factory: pytest.TempPathFactory, pick: tuple[Path, bytes | str]) -> None:
    source, mutation = pick
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        work = box.inputs / "persona"
        for name in ("radio-week2.jsonl", "cassette.json", "personas.yaml"):
            (work).mkdir(exist_ok=True)
            shutil.copy(_PERSONA / name, work / name)
        shutil.copytree(_PERSONA / "propositions", work / "propositions")
        shutil.copytree(_PERSONA / "baselines", work / "baselines")
        plant(work / source.relative_to(_PERSONA), mutation, box.outside)
        cli_holds(
            box,
            [
                "persona",
                str(work / "radio-week2.jsonl"),
                "--propositions",
                str(work / "propositions"),
                "--judge",
                f"recorded:{work / 'cassette.json'}",
                "--personas",
                str(work / "personas.yaml"),
                "--baseline",
                str(work / "baselines"),
                "--write-baseline",
                str(work / "new-baselines"),
            ],
        )


_EXPERIMENT_FILES = sorted((SAMPLES / "experiments").glob("*.*"))


@given(_pick(_EXPERIMENT_FILES))
def test_experiments(
    tmp_path_factory: pytest.TempPathFactory, pick: tuple[Path, bytes | str]
) -> None:
    source, mutation = pick
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        target = box.inputs / source.name
        plant(target, mutation, box.outside)
        cli_holds(box, ["experiment", str(target)])


@given(mutated((SAMPLES / "discussions" / "rating_events.csv").read_bytes()), st.integers(0, 40))
def test_ratings_store_and_exports(
    tmp_path_factory: pytest.TempPathFactory, mutation: bytes | str, damage_page: int
) -> None:
    with sandbox(tmp_path_factory.getbasetemp()) as box:
        export = box.inputs / "events.csv"
        plant(export, mutation, box.outside)
        store_path = box.inputs / "ratings.db"
        store = RatingStore(store_path)
        holds(box, lambda: store.import_events(export))
        holds(box, lambda: tk.load_ratings(export) if hasattr(tk, "load_ratings") else None)
        store.save_rating("ana", "game-pass", 4)
        blob = bytearray(store_path.read_bytes())
        start = min(damage_page * 4096, len(blob) - 64)
        blob[start : start + 64] = b"\xab" * 64
        store_path.write_bytes(bytes(blob))
        holds(box, lambda: RatingStore(store_path).ratings())
