"""What every rubric's data has in common: a name, a version, YAML overrides, and a guard
that a changed number comes with a new version."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from toolkit.errors import InputError, RubricError
from toolkit.io.edge import read_yaml


def _admits_bool(annotation: Any) -> bool:
    """Whether a field of this type takes a boolean (``bool`` named anywhere in it, a
    model that checks its own fields, or anything at all)."""
    if annotation is bool or annotation is Any or annotation is object:
        return True
    if isinstance(annotation, bool):  # Literal[True]
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_admits_bool(a) for a in get_args(annotation))


def _holds_bool(value: Any) -> bool:
    """Whether ``value`` is a boolean or a list or mapping holding one."""
    if isinstance(value, bool):
        return True
    if isinstance(value, list | tuple):
        return any(_holds_bool(v) for v in value)
    if isinstance(value, Mapping):
        return any(_holds_bool(v) for v in value.values())
    return False


class SpecPart(BaseModel):
    """Base for a rubric's data and each part of it: unknown keys refused, and a boolean
    where a number is expected (``min: true``, which pydantic would read as 1.0) refused
    with the field named (every field not typed ``bool``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name
        if (
            name is not None
            and _holds_bool(value)
            and not _admits_bool(cls.model_fields[name].annotation)
        ):
            raise PydanticCustomError("bool_not_number", "a number, not true or false")
        return value


class RubricSpec(SpecPart):
    """Base for a rubric's data. Subclasses add their thresholds as typed fields."""

    rubric: str
    version: str

    def fingerprint(self) -> str:
        """A hash of every number and word in the rubric except its version."""
        payload = self.model_dump(mode="json", exclude={"version"})
        blob = json.dumps(payload, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


SpecT = TypeVar("SpecT", bound=RubricSpec)


def _deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _first_error(exc: ValidationError) -> tuple[str, Any, str]:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return where, err.get("input"), err["msg"]


def load_spec(
    cls: type[SpecT],
    source: str | Path | Mapping[str, Any],
    default: SpecT,
    published: Mapping[str, SpecT],
) -> SpecT:
    """Load a rubric from YAML (a path) or a mapping, merged over ``default``.

    Only the keys that change need to be given; they are merged over the published
    version the file names, else over ``default``. The result is validated by ``cls``;
    when its version is a published one but its content differs from that version's,
    it is rejected: changing a number means bumping the version.

    Raises:
        RubricError: one line naming the file, the field and the value.
    """
    path: str | None = None
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = str(source)
        try:
            data = read_yaml(path)
        except InputError as exc:
            reason = exc.reason.replace("cannot read file", "cannot read rubric file")
            raise RubricError(path, reason, line=exc.line) from exc
    if not isinstance(data, Mapping):
        raise RubricError(path, "a rubric file must be a mapping", field="(top level)", value=data)
    # A file naming a published version is read over that version (an older rubric stays
    # loadable after the default moves on); any other version is read over the default.
    base = published.get(str(data.get("version")), default)
    merged = _deep_merge(base.model_dump(mode="json"), data)
    try:
        spec = cls.model_validate(merged)
    except ValidationError as exc:
        where, value, msg = _first_error(exc)
        raise RubricError(path, msg, field=where, value=value) from exc
    if spec.rubric != default.rubric:
        raise RubricError(
            path, f"this is not a {default.rubric} rubric", field="rubric", value=spec.rubric
        )
    known = published.get(spec.version)
    if known is not None and known.fingerprint() != spec.fingerprint():
        raise RubricError(
            path,
            f"the rubric differs from published version {spec.version}; bump its version",
            field="version",
            value=spec.version,
        )
    return spec
