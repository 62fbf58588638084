"""Proposition files: section 4 of the persona format (``dimension``, ``agent_id``,
``include_personas``, ``hard``, ``target_type``, ``first_n``, ``last_n``,
``propositions[{id, claim, weight, inverted, recommendations_for_improvement}]``) plus
an optional per-proposition ``precondition`` naming a registered Python predicate; and
the claims' template variables.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import PROPOSITIONS_SCHEMA
from toolkit.io import edge
from toolkit.load._fields import MAX_INT64
from toolkit.load.persona._parse import first_error, read_text
from toolkit.summary import Shows, Summary

#: The persona dimensions in the order they are shown.
PERSONA_DIMENSIONS: tuple[str, ...] = (
    "adherence",
    "consistency",
    "fluency",
    "convergence",
    "ideas_quantity",
)

#: The proposition profiles a file may name (``profile:``); the first is the default.
PROPOSITION_PROFILES: tuple[str, ...] = ("the-office", "tinytroupe")

#: The template variables a claim may use.
TEMPLATE_VARIABLES: tuple[str, ...] = ("agent_name", "action", "channel_name", "recipient_name")

_TEMPLATE_RE = re.compile(r"\{\{\s*(\w+)\s*\}\}")


class PropositionModel(BaseModel):
    """One proposition of a proposition file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    weight: float = Field(ge=0.0, le=1.0)
    inverted: bool = False
    recommendations_for_improvement: str | None = None
    precondition: str | None = None


class PropositionFileModel(BaseModel):
    """A proposition file: one dimension, for all agents (``_default``) or one agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dimension: str = Field(min_length=1)
    agent_id: str | None = None
    include_personas: bool = True
    hard: bool = False
    target_type: Literal["agent", "environment"] = "agent"
    first_n: int | None = Field(default=None, ge=0, le=MAX_INT64)
    last_n: int | None = Field(default=None, ge=0, le=MAX_INT64)
    propositions: list[PropositionModel] = Field(min_length=1)
    #: How the file's propositions are read (:data:`PROPOSITION_PROFILES`): ``the-office``
    #: (``{{action}}`` is the agent's last message in the window) or ``tinytroupe``
    #: (TinyTroupe's late-2025 propositions: ``{{action}}`` is the list of the agent's
    #: messages in the window, and a precondition holds when any one of them matches).
    profile: Literal["the-office", "tinytroupe"] = "the-office"

    @field_validator("propositions")
    @classmethod
    def _unique_ids(cls, value: list[PropositionModel]) -> list[PropositionModel]:
        seen = Counter(p.id for p in value)
        twice = [k for k, n in seen.items() if n > 1]
        if twice:
            raise ValueError(f"proposition id {twice[0]!r} appears more than once")
        return value


@dataclass(frozen=True)
class PropositionFile:
    """A parsed proposition file and where it came from."""

    path: str
    spec: PropositionFileModel

    @property
    def agent_id(self) -> str | None:
        """The agent the file is for, ``None`` for a ``_default`` file."""
        return self.spec.agent_id


@dataclass(frozen=True, repr=False)
class PropositionSet(Shows):
    """Every proposition file of a folder.

    For an agent, a dimension's propositions are its ``_default`` file's followed by the
    agent's own file's; each proposition keeps the settings (hard, window, personas) of
    the file it comes from.
    """

    files: tuple[PropositionFile, ...]
    warnings: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        return Summary(
            "PropositionSet",
            ", ".join(self.dimensions) or "no dimensions",
            (("files", len(self.files)),),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def dimensions(self) -> list[str]:
        """The dimensions present, known ones first in their usual order."""
        present = {f.spec.dimension for f in self.files}
        known = [d for d in PERSONA_DIMENSIONS if d in present]
        return known + sorted(present - set(known))

    def target_of(self, dimension: str) -> str:
        """``"agent"`` or ``"environment"``: how ``dimension`` is scored."""
        for f in self.files:
            if f.spec.dimension == dimension:
                return f.spec.target_type
        raise KeyError(dimension)

    def files_for(self, dimension: str, agent_id: str | None) -> list[PropositionFile]:
        """The default file of ``dimension`` and, if any, ``agent_id``'s own file."""
        chosen = [f for f in self.files if f.spec.dimension == dimension and f.agent_id is None]
        if agent_id is not None:
            chosen += [
                f for f in self.files if f.spec.dimension == dimension and f.agent_id == agent_id
            ]
        return chosen

    def frame(self) -> pl.DataFrame:
        """All propositions, schema :data:`toolkit.frames.PROPOSITIONS_SCHEMA`.

        Columns: dimension, file_agent_id, proposition, claim, weight, inverted, hard,
        include_personas, target_type, first_n, last_n, precondition, recommendation,
        source_file.
        """
        rows = [
            {
                "dimension": f.spec.dimension,
                "file_agent_id": f.agent_id,
                "proposition": p.id,
                "claim": p.claim,
                "weight": p.weight,
                "inverted": p.inverted,
                "hard": f.spec.hard,
                "include_personas": f.spec.include_personas,
                "target_type": f.spec.target_type,
                "first_n": f.spec.first_n,
                "last_n": f.spec.last_n,
                "precondition": p.precondition,
                "recommendation": p.recommendations_for_improvement,
                "source_file": f.path,
            }
            for f in self.files
            for p in f.spec.propositions
        ]
        return pl.DataFrame(rows, schema=PROPOSITIONS_SCHEMA)


def load_proposition_file(
    path: str | Path, *, within: Path | None = None
) -> tuple[PropositionFile, list[str]]:
    """Parse one proposition YAML file; returns it and any warnings.

    Raises:
        InputError: naming the file, the field (e.g. ``propositions.2.weight``) and value.
    """
    source = Path(path)
    data = edge.parse_yaml_text(read_text(source, within), source)
    if not isinstance(data, Mapping):
        raise InputError(source, "a proposition file must be a mapping", value=data)
    try:
        spec = PropositionFileModel.model_validate(data)
    except ValidationError as exc:
        loc, value, msg = first_error(exc)
        raise InputError(source, msg, field=loc, value=value) from exc
    warnings: list[str] = []
    stem = source.stem
    if spec.agent_id is None and stem != "_default":
        spec = spec.model_copy(update={"agent_id": stem})
        warnings.append(f"{source}: no agent_id; taken from the file name ({stem!r})")
    elif spec.agent_id is not None and stem == "_default":
        raise InputError(
            source,
            "a _default file is for every agent; remove agent_id or rename the file",
            field="agent_id",
            value=spec.agent_id,
        )
    if spec.target_type == "environment" and spec.agent_id is not None:
        raise InputError(
            source,
            "an environment dimension has no per-agent file",
            field="agent_id",
            value=spec.agent_id,
        )
    for i, prop in enumerate(spec.propositions):
        for name in _TEMPLATE_RE.findall(prop.claim):
            if name not in TEMPLATE_VARIABLES:
                raise InputError(
                    source,
                    "unknown template variable {{"
                    + name
                    + "}}; known: "
                    + ", ".join(TEMPLATE_VARIABLES),
                    field=f"propositions.{i}.claim",
                    value=prop.claim,
                )
    if source.parent.name in PERSONA_DIMENSIONS and source.parent.name != spec.dimension:
        warnings.append(
            f"{source}: dimension {spec.dimension!r} differs from its folder "
            f"{source.parent.name!r}; the file's dimension is used"
        )
    return PropositionFile(path=str(source), spec=spec), warnings


def load_propositions(path: str | Path) -> PropositionSet:
    """Read a folder of proposition files (``<dimension>/_default.yaml``,
    ``<dimension>/<agent_id>.yaml``), or a single file.

    Raises:
        InputError: on the first bad file, or when two files claim the same
            (dimension, agent_id), or when a dimension mixes agent and environment files.
    """
    root = Path(path)
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(p for p in root.rglob("*") if p.suffix in {".yaml", ".yml"})
        if not paths:
            raise InputError(root, "no proposition files (*.yaml) in this folder")
    else:
        raise InputError(root, "no such file or folder")
    files: list[PropositionFile] = []
    warnings: list[str] = []
    seen: dict[tuple[str, str | None], str] = {}
    targets: dict[str, str] = {}
    for p in paths:
        parsed, notes = load_proposition_file(p, within=root if root.is_dir() else None)
        warnings.extend(notes)
        key = (parsed.spec.dimension, parsed.agent_id)
        if key in seen:
            raise InputError(
                p,
                f"a second file for this dimension and agent (first: {seen[key]})",
                field="agent_id",
                value=parsed.agent_id,
            )
        seen[key] = str(p)
        target = targets.setdefault(parsed.spec.dimension, parsed.spec.target_type)
        if target != parsed.spec.target_type:
            raise InputError(
                p,
                f"dimension {parsed.spec.dimension!r} is already scored per {target}",
                field="target_type",
                value=parsed.spec.target_type,
            )
        files.append(parsed)
    for dimension in {f.spec.dimension for f in files}:
        if not any(f.spec.dimension == dimension and f.agent_id is None for f in files):
            warnings.append(
                f"dimension {dimension!r} has no _default file; only agents with their own "
                "file are scored on it"
            )
    return PropositionSet(files=tuple(files), warnings=tuple(warnings))


def render_claim(
    template: str,
    variables: Mapping[str, str | None],
    *,
    path: str | None = None,
    field: str | None = None,
    reasons: Mapping[str, str] | None = None,
) -> str:
    """Fill ``{{agent_name}}``, ``{{action}}``, ``{{channel_name}}``, ``{{recipient_name}}``.

    Raises:
        InputError: when the claim uses a variable that has no value here, naming the
            file, the field and the claim.
    """

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        value = variables.get(name)
        if value is None:
            raise InputError(
                path,
                "template variable {{"
                + name
                + "}} has no value here"
                + (f" ({reasons[name]})" if reasons and name in reasons else ""),
                field=field,
                value=template,
            )
        return value

    return _TEMPLATE_RE.sub(fill, template)


def proposition_ids(files: Sequence[PropositionFile]) -> list[str]:
    """The proposition ids of ``files``, in order."""
    return [p.id for f in files for p in f.spec.propositions]
