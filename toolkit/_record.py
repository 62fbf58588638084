"""Frozen dataclasses without per-class code generation: :func:`record` and two mixins.

On Python 3.11 ``@dataclass`` compiles every method it generates with its own ``exec``
(about 0.1 ms each; a frozen class with ``eq`` and ``repr`` makes six), and a one-run
command imports a dozen such classes (issue 38: ~7 ms of its startup). Here each of those
methods is written once and shared:

* :func:`record` is ``@dataclass(frozen=True, eq=False, repr=False)`` whose ``__init__``,
  ``__setattr__`` and ``__delattr__`` are shared functions instead of compiled ones: the
  same arguments (positional or by name, in field order; defaults and
  ``default_factory``; fields with ``init=False`` take their default; ``__post_init__``
  called after), :class:`dataclasses.FrozenInstanceError` on assignment or deletion, and
  ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` working as on any
  dataclass. The type checker sees a frozen dataclass (``dataclass_transform``), so it
  checks constructor calls and assignments as it would for ``@dataclass(frozen=True)``.
* a class that also inherits :class:`FieldsEqual` (and :class:`FieldsRepr` where the
  dataclass repr is wanted) gets the ``==``, ``hash`` and repr of
  ``@dataclass(frozen=True)``: only an instance of the very same class compares, field by
  field, over the fields with ``compare=True``; ``hash`` over the fields with
  ``hash=True``, or ``compare=True`` where ``hash`` is not given; ``Name(field=value,
  ...)`` over the fields with ``repr=True``, ``...`` on recursion.

``tests/test_record.py`` holds each such class to a plain frozen dataclass with the same
fields.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")

#: (class, kind) -> the names of its fields taking part in that kind: found once a class.
_NAMES: dict[tuple[type, str], tuple[str, ...]] = {}


def _names(cls: type, kind: str) -> tuple[str, ...]:
    """The names of ``cls``'s fields that take part in ``kind`` (compare, hash or repr)."""
    names = _NAMES.get((cls, kind))
    if names is None:
        fields = dataclasses.fields(cls)
        if kind == "hash":
            names = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        else:
            names = tuple(f.name for f in fields if getattr(f, kind))
        _NAMES[(cls, kind)] = names
    return names


class FieldsEqual:
    """``==`` and ``hash`` of ``@dataclass(eq=True, frozen=True)`` (see the module)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            names = _names(self.__class__, "compare")
            return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _names(self.__class__, "hash")))


class FieldsRepr:
    """The repr of ``@dataclass(repr=True)``: ``Name(field=value, ...)`` (see the module)."""

    __slots__ = ()

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        parts: list[Any] = [f"{n}={getattr(self, n)!r}" for n in _names(self.__class__, "repr")]
        return f"{self.__class__.__qualname__}({', '.join(parts)})"


#: class -> (the names its ``__init__`` takes, in order; {name: default};
#: {name: default factory}; the names of the fields with ``init=False``).
_INIT: dict[type, tuple[tuple[str, ...], dict[str, Any], dict[str, Any], tuple[str, ...]]] = {}


def _init_spec(
    cls: type,
) -> tuple[tuple[str, ...], dict[str, Any], dict[str, Any], tuple[str, ...]]:
    spec = _INIT.get(cls)
    if spec is None:
        fields = dataclasses.fields(cls)
        spec = (
            tuple(f.name for f in fields if f.init),
            {f.name: f.default for f in fields if f.default is not dataclasses.MISSING},
            {
                f.name: f.default_factory
                for f in fields
                if f.default_factory is not dataclasses.MISSING
            },
            tuple(f.name for f in fields if not f.init),
        )
        _INIT[cls] = spec
    return spec


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """The ``__init__`` of ``@dataclass(frozen=True)``, for every :func:`record` class."""
    cls = self.__class__
    names, defaults, factories, not_init = _init_spec(cls)
    if len(args) > len(names):
        raise TypeError(
            f"{cls.__qualname__}() takes {len(names)} positional arguments "
            f"but {len(args)} were given"
        )
    put = object.__setattr__
    for name, value in zip(names, args, strict=False):
        if name in kwargs:
            raise TypeError(f"{cls.__qualname__}() got multiple values for argument {name!r}")
        put(self, name, value)
    taken = len(args)
    for name in names[len(args) :]:
        if name in kwargs:
            put(self, name, kwargs[name])
            taken += 1
        elif name in defaults:
            put(self, name, defaults[name])
        elif name in factories:
            put(self, name, factories[name]())
        else:
            raise TypeError(f"{cls.__qualname__}() missing required argument: {name!r}")
    if taken - len(args) != len(kwargs):
        unknown = sorted(set(kwargs) - set(names))
        raise TypeError(f"{cls.__qualname__}() got an unexpected keyword argument {unknown[0]!r}")
    for name in not_init:
        put(self, name, defaults[name] if name in defaults else factories[name]())
    post_init = getattr(self, "__post_init__", None)
    if post_init is not None:
        post_init()


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(cls: type[_T]) -> type[_T]:
    """``@dataclass(frozen=True, eq=False, repr=False)`` with shared methods (see the module).

    Equality, hash and repr come from :class:`FieldsEqual` and :class:`FieldsRepr` where
    the class inherits them, and are ``object``'s otherwise.
    """
    # no method of its own is generated: the fields, __match_args__ and the params only
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    for name, method in (
        ("__init__", _init),
        ("__setattr__", _frozen_setattr),
        ("__delattr__", _frozen_delattr),
    ):
        if name in cls.__dict__:
            raise TypeError(f"{cls.__qualname__} is a record: it cannot define {name}")
        setattr(cls, name, method)
    return cls
