"""The shared equality, hash and repr (``toolkit._record``) behave as the dataclass's own.

Each class that takes them from :class:`~toolkit._record.FieldsEqual` /
:class:`~toolkit._record.FieldsRepr` instead of ``@dataclass`` generating them is held
to a reference: a plain ``@dataclass(frozen=True)`` made by :func:`dataclasses.make_dataclass`
with the same fields (names, ``compare``, ``hash``, ``repr``) and the same values.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from toolkit._record import FieldsEqual, FieldsRepr
from toolkit.epoch import Epoch
from toolkit.gate import Check
from toolkit.io.duplicates import DuplicateKey
from toolkit.io.edge import Limits, Packed
from toolkit.io.source_base import Folder
from toolkit.io.source_local import LocalSource
from toolkit.load._run_listing import Listing
from toolkit.load._run_result import Universe
from toolkit.scorecard import Dimension, Scorecard
from toolkit.summary import Summary

#: Every class of the toolkit that uses the mixins (grep ``toolkit._record``).
CLASSES = [
    Summary,
    Check,
    DuplicateKey,
    Limits,
    Packed,
    Folder,
    LocalSource,
    Listing,
    Universe,
    Dimension,
    Scorecard,
    Epoch,
]


def _reference(cls: type) -> type:
    """A frozen dataclass with ``cls``'s fields, generated the ordinary way."""
    fields = [
        (f.name, Any, dataclasses.field(compare=f.compare, hash=f.hash, repr=f.repr))
        for f in dataclasses.fields(cls)
    ]
    ref = dataclasses.make_dataclass(
        cls.__name__, fields, frozen=True, eq=issubclass(cls, FieldsEqual)
    )
    ref.__qualname__ = cls.__qualname__
    return ref


def _make(cls: type, values: dict[str, Any]) -> Any:
    """An instance holding ``values`` (``__init__`` and its checks bypassed)."""
    obj = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def _values(cls: type, tag: str) -> dict[str, Any]:
    return {f.name: f"{tag}{i}" for i, f in enumerate(dataclasses.fields(cls))}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_equality_and_hash_are_the_dataclass_ones(cls: type) -> None:
    ref = _reference(cls)
    base = _values(cls, "v")
    a, b = _make(cls, base), _make(cls, dict(base))
    ra, rb = _make(ref, base), _make(ref, dict(base))
    assert (a == b) is (ra == rb)
    assert (a != b) is (ra != rb)
    assert a.__eq__(object()) is NotImplemented
    if issubclass(cls, FieldsEqual):
        assert a == b and hash(a) == hash(ra)
        assert cls.__hash__ is not None
    for name in base:  # each field changed alone: equal exactly when the reference is
        other = {**base, name: "changed"}
        assert (a == _make(cls, other)) is (ra == _make(ref, other)), name
        if issubclass(cls, FieldsEqual):
            assert hash(_make(cls, other)) == hash(_make(ref, other)), name


@pytest.mark.parametrize(
    "cls", [c for c in CLASSES if issubclass(c, FieldsRepr)], ids=lambda c: c.__name__
)
def test_repr_is_the_dataclass_one(cls: type) -> None:
    ref = _reference(cls)
    values = _values(cls, "v")
    assert repr(_make(cls, values)) == repr(_make(ref, values))
    first = dataclasses.fields(cls)[0].name
    loop, ref_loop = _make(cls, values), _make(ref, values)  # a field holding itself
    object.__setattr__(loop, first, loop)
    object.__setattr__(ref_loop, first, ref_loop)
    assert repr(loop) == repr(ref_loop)
    assert "..." in repr(loop)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_still_a_frozen_dataclass(cls: type) -> None:
    obj = _make(cls, _values(cls, "v"))
    name = dataclasses.fields(cls)[0].name
    assert dataclasses.is_dataclass(obj)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, name, "other")
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(obj, name)


def test_replace_asdict_and_sets_keep_working() -> None:
    key = DuplicateKey("name", 3)
    moved = dataclasses.replace(key, line=4)
    assert moved == DuplicateKey("name", 4) and moved != key
    assert dataclasses.asdict(moved) == {"key": "name", "line": 4}
    assert {key, DuplicateKey("name", 3), moved} == {key, moved}
    assert repr(key) == "DuplicateKey(key='name', line=3)"


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class _Flags(FieldsEqual, FieldsRepr):
    shown: int
    hidden: int = dataclasses.field(default=0, repr=False)
    ignored: int = dataclasses.field(default=0, compare=False)
    unhashed: int = dataclasses.field(default=0, hash=False)
    hashed_only: int = dataclasses.field(default=0, compare=False, hash=True)


def test_field_options_are_honoured_as_the_dataclass_does() -> None:
    ref = _reference(_Flags)
    for values in [
        (1, 2, 3, 4, 5),
        (1, 2, 9, 4, 5),
        (1, 2, 3, 9, 5),
        (1, 2, 3, 4, 9),
        (1, 9, 3, 4, 5),
    ]:
        mine, theirs = _Flags(*values), ref(*values)
        shown = (
            f"_Flags(shown=1, ignored={values[2]}, unhashed={values[3]}, hashed_only={values[4]})"
        )
        assert repr(mine) == repr(theirs) == shown
        assert hash(mine) == hash(theirs)
        assert (mine == _Flags(1, 2, 3, 4, 5)) is (theirs == ref(1, 2, 3, 4, 5))
