"""The batch path hands Polars only the fields the frame reads (issue 38, fleet load).

:func:`toolkit.load._ticks._decoded` still writes the whole decoded structs back for the
exact repeated-key screen (the colon count), but Polars' JSON reader now gets the
structs with the fields kept only for that count unset (:func:`projected`): a third
fewer bytes to tokenise. These tests pin that the projection changes nothing a caller
sees: the same raw frame as the reader gives over the whole structs (the old input),
and, over a generated fleet and every hostile fixture of ``test_run_at_a_time.py``, the
same ticks, issues, warnings and input digest as the file-at-a-time path and the
per-file path (Python's ``json`` and the pydantic models), which are the references.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
import pytest
from conftest import SAMPLE_RUNS
from polars.testing import assert_frame_equal
from test_run_at_a_time import CAREFUL

from toolkit.epoch import input_digest, rows_bytes
from toolkit.load import _ticks
from toolkit.load._tick_screen import ENCODE, FAST_DECODE, RAW_TICK_SCHEMA, projected
from toolkit.load.universe import Universe, load_universes
from toolkit.rubrics.simulation import score_universe

#: The keys the frame never reads, which the projection must leave out.
_UNREAD = ("classified_actions", "long_running_action", "projected_state")


def _sample_blobs() -> list[bytes]:
    return [p.read_bytes() for p in sorted(SAMPLE_RUNS.glob("**/tick_summaries/ticks/*.json"))]


def test_the_projection_writes_only_the_fields_the_frame_reads() -> None:
    blob = json.dumps(
        {
            "schema_version": 2, "tick_id": "7", "kind": "execute",
            "classified_action": {"verb": "go", "indirect_object": "dock", "params": {"a": 1}},
            "classified_actions": [{"verb": "go"}], "long_running_action": None,
            "projected_state": {"m": {"type": "agent", "properties": {"q": 1}}},
        }
    ).encode()  # fmt: skip
    written = json.loads(projected([FAST_DECODE(blob)]))  # read back by Python's json
    kept = {"schema_version": 2, "tick_id": "7", "kind": "execute"}
    assert written == [kept | {"classified_action": {"verb": "go"}}]


def test_polars_reads_the_same_frame_from_the_projection_as_from_the_whole_structs() -> None:
    blobs = _sample_blobs()
    assert len(blobs) > 900
    whole = pl.read_json(ENCODE([FAST_DECODE(b) for b in blobs]), schema=RAW_TICK_SCHEMA)
    written = projected([FAST_DECODE(b) for b in blobs])
    assert not any(f'"{key}"'.encode() in written for key in _UNREAD)
    assert_frame_equal(pl.read_json(written, schema=RAW_TICK_SCHEMA), whole)


def test_the_colon_count_still_sees_a_repeat_in_a_field_the_frame_never_reads() -> None:
    text = CAREFUL["a repeated key deep in a field the frame never reads"]
    blobs = [json.dumps(json.loads(text)).encode(), text.encode()]  # clean, then repeated
    written, kept = _ticks._decoded(blobs)
    assert kept == [0]
    assert len(msgspec.json.decode(written)) == 1


def _three_ways(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[Universe]:
    """The fleet loaded by the batch path, the file-at-a-time path and the per-file path."""
    out = []
    for batch, bulk in ((True, True), (False, True), (False, False)):
        with monkeypatch.context() as m, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.setattr(_ticks, "BATCH_PATH", batch)
            m.setattr(_ticks, "BULK_READ", bulk)
            out.append(load_universes(root / "run-*", progress=False))
    return out


def _assert_alike(fleets: list[Universe]) -> None:
    first = fleets[0]
    for other in fleets[1:]:
        assert_frame_equal(first.ticks, other.ticks)  # schema, values and row order
        assert_frame_equal(first.issues, other.issues)
        assert first.warnings == other.warnings
        assert input_digest([("ticks", rows_bytes(first.ticks))]) == input_digest(
            [("ticks", rows_bytes(other.ticks))]
        )
        assert _digests(first) == _digests(other)


def _digests(fleet: Universe) -> list[Any]:
    """Each scorecard's input digest (rows of the frames it was scored from, as JSON lines)."""
    return [(card.subject, card.meta.get("input_digest")) for card in score_universe(fleet)]


def test_a_generated_fleet_loads_alike_on_every_path(
    generated_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fleets = _three_ways(generated_fleet, monkeypatch)
    assert fleets[0].ticks.height == 8 * 60 and fleets[0].issues.height == 0
    assert all(digest for _, digest in _digests(fleets[0]))  # every card carries one
    _assert_alike(fleets)


@pytest.mark.parametrize("name", sorted(CAREFUL))
def test_a_hostile_file_in_a_generated_fleet_loads_alike_on_every_path(
    name: str, generated_fleet: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "fleet"
    shutil.copytree(generated_fleet, root)
    target = root / "run-0002" / "tick_summaries" / "ticks" / "tick_10.json"
    text = CAREFUL[name].replace('"tick_id": "3"', '"tick_id": "10"')
    target.write_bytes(text.encode("latin-1") if name == "not UTF-8" else text.encode())
    fleets = _three_ways(root, monkeypatch)
    _assert_alike(fleets)
