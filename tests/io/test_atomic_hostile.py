"""Odd targets of the atomic writer: a folder, a name too long, data ids of any length.

Each is one ``InputError`` line before anything is written, or (for a long id from data)
a shortened, still distinct file name; never a traceback, never a half-written set.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.io.atomic import MAX_NAME, safe_file_name, write_text_atomic
from toolkit.load.persona import Baseline, write_baselines


def test_a_folder_as_target_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "kept.txt").write_text("mine")
    with pytest.raises(InputError, match="is a folder: name the file to write"):
        write_text_atomic(folder, "x")
    assert sorted(os.listdir(tmp_path)) == ["out"]
    assert os.listdir(folder) == ["kept.txt"]


def test_a_name_too_long_for_its_temporary_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file name is longer than 220 bytes"):
        write_text_atomic(tmp_path / ("r" * 240 + ".html"), "x")
    assert os.listdir(tmp_path) == []


def test_long_ids_from_data_give_short_distinct_names() -> None:
    a, b = "a" * 400, "a" * 399 + "b"
    assert len(safe_file_name(a)) == MAX_NAME
    assert safe_file_name(a) != safe_file_name(b)
    assert safe_file_name(a).startswith("a" * 100)
    assert safe_file_name("rosa") == "rosa"


def test_a_400_character_agent_id_writes_every_baseline(tmp_path: Path) -> None:
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    ids = ["rosa", "x" * 400, "tomas"]
    made = [Baseline(agent_id=i, captured_at=stamp, dimensions={"a": 5.0}) for i in ids]
    written = write_baselines(made, tmp_path)
    assert len(written) == 3 and all(p.is_file() for p in written)
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in written)  # no temp files
