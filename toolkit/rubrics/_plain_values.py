"""A rubric's data as a read-only view that reads, dumps, compares and hashes as its
pydantic model does: the one base of the plain values of the simulation and discussion
rubrics (``simulation/_values.py``, ``discussion/_values.py``), which score one run
without importing pydantic (issue 38).

A subclass sets ``_fields`` (each key's value, a nested part a view of its own) with
:meth:`PlainValues._set` and says how it is pickled; everything a scorer, the epoch or a
notebook asks of the model's instance is answered here, from ``_fields`` alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def dumped(value: Any, json_mode: bool) -> Any:
    """``value`` as pydantic's ``model_dump`` writes a field: a nested part as its own
    dump, a mapping's values and a tuple's items likewise, a tuple as a list in JSON mode."""
    if isinstance(value, PlainValues):
        return value.model_dump(mode="json" if json_mode else "python")
    if isinstance(value, dict):
        return {k: dumped(v, json_mode) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [dumped(v, json_mode) for v in value]
        return items if json_mode else tuple(items)
    return value


class PlainValues:
    """Each key of the data an attribute; read-only; ``model_dump`` as pydantic writes it;
    ``==`` by data and ``hash`` as a frozen pydantic model computes it, so values and the
    model they equal find each other in a dict or a set (and a part holding a mapping is
    unhashable, as the model's is)."""

    __slots__ = ("_fields",)

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a slot not set yet (a copy being made): no recursion
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"rubric values are read-only ({name})")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_dump()!r})"

    def __eq__(self, other: object) -> bool:
        # as the model compares: by data (the model itself, a pickled copy of the values)
        dump = getattr(other, "model_dump", None)
        if not isinstance(other, PlainValues) and not callable(dump):
            return NotImplemented
        return bool(self.model_dump() == other.model_dump())  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        # as a frozen pydantic model hashes: its field values, in order (one field alone,
        # itself), nested parts by their own hash; a dict among them raises TypeError
        values = tuple(self._fields.values())
        if len(values) == 1:
            return hash(values[0])
        return hash(values) if values else hash(0)

    def model_dump(self, *, mode: str = "python", exclude: Iterable[str] = ()) -> dict[str, Any]:
        """The data as pydantic's ``model_dump`` gives it (``mode="json"``: lists for
        tuples), without the top-level keys in ``exclude``."""
        skip = set(exclude)
        return {k: dumped(v, mode == "json") for k, v in self._fields.items() if k not in skip}
