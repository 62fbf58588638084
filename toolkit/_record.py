"""Equality, hashing and repr for frozen dataclasses, written once instead of per class.

On Python 3.11 ``@dataclass`` compiles every method it generates with its own ``exec``
(about 0.1 ms each; a frozen class with ``eq`` and ``repr`` makes six), and a one-run
command imports a dozen such classes (issue 38: ~7 ms of its startup). A class declared
``@dataclass(frozen=True, eq=False, repr=False)`` that inherits :class:`FieldsEqual`
(and :class:`FieldsRepr` where the dataclass repr is wanted) behaves as
``@dataclass(frozen=True)`` does: the same ``==`` (only an instance of the very same
class compares, field by field, over the fields with ``compare=True``), the same
``hash`` (over the fields with ``hash=True``, or ``compare=True`` where ``hash`` is not
given) and the same repr (``Name(field=value, ...)`` over the fields with ``repr=True``,
``...`` on recursion), computed from :func:`dataclasses.fields`; ``dataclasses.replace``,
``fields``, ``asdict`` and immutability are the dataclass's own. Only
``__init__``, ``__setattr__`` and ``__delattr__`` are still generated per class.
``tests/test_record.py`` holds each mixed class to a plain frozen dataclass with the same
fields.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any

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
