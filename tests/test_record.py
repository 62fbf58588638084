"""The shared record methods (``toolkit._record``) behave as the dataclass's own.

Each class declared with :func:`~toolkit._record.record` and taking its equality, hash and
repr from :class:`~toolkit._record.FieldsEqual` / :class:`~toolkit._record.FieldsRepr`
instead of ``@dataclass`` generating them is held to a reference: a plain
``@dataclass(frozen=True)`` made by :func:`dataclasses.make_dataclass` with the same fields
(names, ``compare``, ``hash``, ``repr``) and the same values. The shared ``__init__`` is held
to a frozen dataclass's over the ways a constructor is called.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.epoch import Epoch
from toolkit.gate import Check
from toolkit.io.duplicates import DuplicateKey
from toolkit.io.edge import Limits, Packed
from toolkit.io.source_base import Folder
from toolkit.io.source_local import LocalSource
from toolkit.load._run_listing import Listing
from toolkit.load._run_result import Universe
from toolkit.load.discussion_base import Discussion
from toolkit.rubrics.discussion.evidence import DiscussionEvidence
from toolkit.rubrics.discussion.report import DiscussionReport
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
    Discussion,
    DiscussionEvidence,
    DiscussionReport,
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


@record
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


@record
class _Made(FieldsEqual, FieldsRepr):
    first: int
    second: str = "two"
    items: list[int] = dataclasses.field(default_factory=list)
    derived: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "derived", self.first * 10)


@dataclasses.dataclass(frozen=True)
class _MadeRef:
    first: int
    second: str = "two"
    items: list[int] = dataclasses.field(default_factory=list)
    derived: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "derived", self.first * 10)


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, "b"), {}),
    ((1, "b", [3]), {}),
    ((), {"first": 1}),
    ((1,), {"items": [4], "second": "x"}),
    ((), {"items": [], "first": 2, "second": ""}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_record_init_sets_what_the_dataclass_init_sets(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    mine, theirs = _Made(*args, **kwargs), _MadeRef(*args, **kwargs)
    assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
    assert repr(mine) == repr(theirs).replace("_MadeRef", "_Made")


def test_record_default_factory_gives_each_instance_its_own_value() -> None:
    a, b = _Made(1), _Made(1)
    assert a.items == [] and a.items is not b.items


BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),  # a required field missing
    ((1, "b", [], 4), {}),  # too many positional arguments
    ((1,), {"first": 2}),  # a field given twice
    ((1,), {"nope": 2}),  # no such field
    ((1,), {"derived": 2}),  # a field the constructor does not take
]


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS)
def test_record_init_refuses_what_the_dataclass_init_refuses(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    with pytest.raises(TypeError):
        _MadeRef(*args, **kwargs)
    with pytest.raises(TypeError, match=r"^_Made\(\)"):
        _Made(*args, **kwargs)


def test_record_keeps_the_dataclass_protocols() -> None:
    import copy
    import pickle

    made = _Made(3, "c", [1])
    assert dataclasses.is_dataclass(made)
    assert [f.name for f in dataclasses.fields(made)] == ["first", "second", "items", "derived"]
    moved = dataclasses.replace(made, first=4)
    assert (moved.first, moved.second, moved.items, moved.derived) == (4, "c", [1], 40)
    assert pickle.loads(pickle.dumps(made)) == made
    assert copy.deepcopy(made) == made and copy.copy(made) == made
    assert _Made.__match_args__ == _MadeRef.__match_args__
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.first = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.first  # type: ignore[misc]


def test_record_compiles_no_code_where_the_dataclass_compiles_three_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: list[str] = []

    def counting_exec(source: Any, *args: Any) -> None:
        compiled.append(str(source))
        exec(source, *args)

    monkeypatch.setattr(dataclasses, "exec", counting_exec, raising=False)

    @dataclasses.dataclass(frozen=True, eq=False, repr=False)
    class Plain:
        value: int

    assert len(compiled) == 3  # __init__, __setattr__, __delattr__: what record saves
    compiled.clear()

    @record
    class Shared:
        value: int

    assert compiled == []
    assert Shared(1).value == 1


def test_record_refuses_a_class_defining_its_own_init() -> None:
    with pytest.raises(TypeError, match="cannot define __init__"):

        @record
        class Own:
            value: int

            def __init__(self) -> None:
                pass
