"""The plain check of a compressed record (issue 38): a ``batch_<n>.json`` or
``epoch_<n>.json`` whose fields already have the JSON types the pydantic model keeps is
read without pydantic, and gives exactly the model's values; anything else goes to the
model, which coerces or refuses it as before.

The reference is the model itself (:class:`toolkit.load._run_models.CompressedRecord`),
never :func:`plain_record`'s own output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_RUNS
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.load._run_files import BATCH_FIELDS, plain_record
from toolkit.load._run_models import CompressedRecord
from toolkit.load._run_parts import _batch_row

_MAX = 2**63 - 1


def _model(data: dict[str, Any]) -> dict[str, Any] | None:
    """The model's fields of ``data``, or ``None`` when the model refuses it."""
    try:
        rec = CompressedRecord.model_validate(data)
    except ValidationError:
        return None
    return {name: getattr(rec, name) for name in BATCH_FIELDS}


def _same_as_model(data: dict[str, Any]) -> dict[str, Any] | None:
    plain = plain_record(data)
    if plain is not None:
        expected = _model(data)
        assert expected is not None, data  # never vouches for what the model refuses
        assert plain == expected
        assert [type(v) for v in plain.values()] == [type(v) for v in expected.values()]
    return plain


def _sample_records() -> list[Path]:
    found = sorted(SAMPLE_RUNS.glob("**/tick_summaries/batch_*.json"))
    found += sorted(SAMPLE_RUNS.glob("**/tick_summaries/epoch_*.json"))
    return found


def test_every_sample_record_takes_the_plain_check_with_the_models_values() -> None:
    records = _sample_records()
    assert records  # the sample runs hold batch records
    for path in records:
        assert _same_as_model(json.loads(path.read_text(encoding="utf-8"))) is not None, path


@pytest.mark.parametrize(
    "data",
    [
        {},  # every field missing: the model's defaults (None, and empty lists)
        {"kind": "epoch", "batch_id": "e-3", "first_tick": "tick_7", "last_tick": "12"},
        {"batch_id": -(2**63), "first_tick": 0, "last_tick": _MAX, "tick_count": _MAX},
        {"key_events": [{"tick": 3}, "text", 1.5, None], "mechanic_ids_used": []},
        {"agent_id": "mara", "total_mutations": 0, "unknown_key": [1, 2]},
    ],
)
def test_plain_records_are_read_with_the_models_values(data: dict[str, Any]) -> None:
    assert _same_as_model(data) is not None


@pytest.mark.parametrize(
    "data",
    [
        {"first_tick": 1.0},  # the model coerces a whole float
        {"tick_count": True},  # ... and a boolean
        {"total_mutations": "7"},  # ... and a numeric string
        {"first_tick": "tick_x"},  # refused by the model
        {"last_tick": -1},
        {"tick_count": 2**63},
        {"batch_id": False},
        {"batch_id": 2**63},
        {"batch_id": 1.5},
        {"kind": 3},
        {"agent_id": ["mara"]},
        {"key_events": None},
        {"key_events": "one event"},
        {"mechanic_ids_used": ["walk", 3]},
        {"mechanic_ids_used": None},
    ],
)
def test_records_the_plain_check_cannot_vouch_for_go_to_the_model(data: dict[str, Any]) -> None:
    assert plain_record(data) is None


_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=False),
    st.sampled_from(["", "7", "tick_7", "tick_", " 7", "batch", "tick_99999999999999999999"]),
    st.lists(st.sampled_from(["walk", 1, None]), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(BATCH_FIELDS), _VALUE))
def test_any_record_the_plain_check_reads_has_the_models_values(data: dict[str, Any]) -> None:
    _same_as_model(data)


def test_a_refused_record_still_names_the_file_the_field_and_the_value() -> None:
    path = Path("run/tick_summaries/batch_0.json")
    with pytest.raises(InputError) as caught:
        _batch_row("run", path, {"batch_id": 0, "first_tick": "tick_x"}, "batch")
    assert caught.value.path == str(path)
    assert caught.value.field == "first_tick"
    assert caught.value.value == "tick_x"


@pytest.mark.parametrize("tick", ["9" * 5000, "tick_" + "9" * 5000, "1" + "0" * 4301])
@pytest.mark.parametrize("field", ["first_tick", "last_tick"])
def test_a_tick_id_of_more_digits_than_python_reads_is_refused_in_one_line(
    field: str, tick: str
) -> None:
    """Found in review: Python refuses to read an integer of more than 4,300 digits, and
    the plain check once read the tick id before the model (ValueError, a traceback); the
    model names the file, the field and the value, as it did before the plain check."""
    path = Path("run/tick_summaries/batch_0.json")
    with pytest.raises(InputError) as caught:
        _batch_row("run", path, {"batch_id": 0, field: tick}, "batch")
    assert caught.value.path == str(path)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("tick", "number"), [("42\n", 42), (" tick_42\t", 42), ("tick_\u0664\u0662", 42)]
)
def test_a_tick_id_is_read_with_the_space_around_it_stripped_as_in_a_tick_file(
    tick: str, number: int
) -> None:
    """Found in review: a record's tick id is read as a tick file's ``tick_id`` is
    (``tick_number``, tests/load/test_normalise.py): whitespace around it stripped and
    digits as Python reads them, so ``" tick_42"`` is 42 in both, not 42 in one and a
    refusal in the other."""
    row = _batch_row("run", Path("b.json"), {"batch_id": 0, "first_tick": tick}, "batch")
    assert row["first_tick"] == number
