"""Token-world simulation runs ("universes") into typed Polars frames.

A run is a folder named by its slug::

    <slug>/universe.yaml, conservation.yaml, universe.db,
    <slug>/tick_summaries/ticks/tick_<id>.json, batch_<n>.json, epoch_<n>.json

Tick summaries of schema v1 and v2 are normalised into one ticks frame
(:data:`toolkit.frames.TICKS_SCHEMA`). A file that cannot be used is never dropped
silently: it is listed in ``issues`` with its path and the reason.
"""

from __future__ import annotations

import glob as globmod
import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import polars as pl
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.frames import (
    BATCHES_SCHEMA,
    CHECKPOINTS_SCHEMA,
    LOAD_ISSUES_SCHEMA,
    TICKS_SCHEMA,
)
from toolkit.load._common import read_json, validation_problem

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"

_TICK_FILE = re.compile(r"^tick_(\d+)\.json$")
_COMPRESSED_FILE = re.compile(r"^(batch|epoch)_(\d+)\.json$")
_TICK_ID = re.compile(r"^(?:tick_)?(\d+)$")


# ---------------------------------------------------------------------------
# File models (the edge): lenient where the engine is lenient.
# ---------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClassifiedAction(_Model):
    """``classified_action``: what the classifier understood the agent to do."""

    verb: str | None = None
    actor: str | None = None
    target: str | None = None


class Mutations(_Model):
    """``mutations``: ``{"count": int, "list": [[target, property, old, new], ...]}``."""

    count: int | None = None
    changes: list[list[Any]] = Field(default=[], alias="list")


class Observation(_Model):
    """v2 ``observation``: the observer's text and the changes it claims happened."""

    text: str | None = None
    claimed_changes: list[list[Any]] | None = None


class _TickBase(_Model):
    tick_id: str | int | None = None
    timestamp_iso: str | None = None
    action_text: str | None = None
    classified_action: ClassifiedAction | None = None
    matched_mechanic_id: str | None = None
    refusal_reason: str | None = None
    mutations: Mutations = Mutations()
    duration_ms: float | None = None
    llm_tokens_by_stage: dict[str, dict[str, float | None] | None] | None = None

    @field_validator("mutations", mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        # Some writers store the list alone; the engine reads both.
        if value is None:
            return {}
        if isinstance(value, list):
            return {"list": value}
        return value


class TickV1(_TickBase):
    """Tick summary schema v1, as the engine writes it today."""

    schema_version: Literal[1] = 1
    yielded: bool = False
    refused: bool = False
    observation_text: str | None = None
    llm_cost_usd_by_stage: dict[str, float | None] | None = None


class TickV2(_TickBase):
    """Tick summary schema v2: the pipeline design's shape, with observer claims."""

    schema_version: Literal[2]
    actor_id: str | None = None
    kind: Literal["execute", "yield", "refuse"]
    conservation_verdict: Literal["ok", "violated"] | None = None
    observation: Observation | None = None
    cost_usd: float | None = None


class CompressedRecord(_Model):
    """A ``batch_<n>.json`` or ``epoch_<n>.json`` record."""

    kind: str | None = None
    batch_id: str | int | None = None
    first_tick: int | None = None
    last_tick: int | None = None
    tick_count: int | None = None
    key_events: list[Any] = []
    mechanic_ids_used: list[str] = []
    total_mutations: int | None = None
    agent_id: str | None = None

    @field_validator("first_tick", "last_tick", mode="before")
    @classmethod
    def _tick_number(cls, value: Any) -> Any:
        if isinstance(value, str) and (m := _TICK_ID.match(value)):
            return int(m.group(1))
        return value


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Universe:
    """One or more loaded runs.

    Attributes:
        ticks: one row per tick (:data:`toolkit.frames.TICKS_SCHEMA`), sorted by slug, tick.
        batches: compressed records (:data:`toolkit.frames.BATCHES_SCHEMA`).
        checkpoints: graph snapshots from ``universe.db`` (slug, tick, node_count,
            edge_count).
        issues: files that could not be used (path, line, reason).
        warnings: leniencies applied while loading (one sentence each).
        names: display name per slug (``name`` in universe.yaml, else the slug titled).
        paths: folder per slug.
        conserved: conserved properties per slug (from conservation.yaml).
    """

    ticks: pl.DataFrame
    batches: pl.DataFrame
    checkpoints: pl.DataFrame
    issues: pl.DataFrame
    warnings: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    conserved: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def slugs(self) -> list[str]:
        """The runs held, in load order."""
        return list(self.paths)

    @property
    def slug(self) -> str:
        """The slug of a single-run load."""
        if len(self.paths) != 1:
            raise ValueError(f"this load holds {len(self.paths)} runs; use .run(slug)")
        return next(iter(self.paths))

    def run(self, slug: str) -> Universe:
        """The part of this load that belongs to ``slug``."""
        if slug not in self.paths:
            raise KeyError(slug)
        prefix = str(self.paths[slug])
        return Universe(
            ticks=self.ticks.filter(pl.col("slug") == slug),
            batches=self.batches.filter(pl.col("slug") == slug),
            checkpoints=self.checkpoints.filter(pl.col("slug") == slug),
            issues=self.issues.filter(pl.col("path").str.starts_with(prefix)),
            warnings=tuple(w for w in self.warnings if w.startswith(f"{slug}:")),
            names={slug: self.names[slug]},
            paths={slug: self.paths[slug]},
            conserved={slug: self.conserved.get(slug, ())},
        )

    @property
    def loadable(self) -> bool:
        """Whether anything at all could be read (ticks or compressed records)."""
        return self.ticks.height > 0 or self.batches.height > 0


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def parse_tick_number(value: str | int | None) -> int | None:
    """``"42"``, ``"tick_42"`` or ``42`` → ``42``; anything else → ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    m = _TICK_ID.match(value.strip())
    return int(m.group(1)) if m else None


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _timestamp(raw: str | None) -> datetime | None:
    if not raw:
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def _tick_row(slug: str, path: Path, tick_no: int, tick: TickV1 | TickV2) -> dict[str, Any]:
    action = tick.classified_action
    mechanic = tick.matched_mechanic_id
    action_text = tick.action_text
    continuation = action_text == CONTINUATION_TEXT or mechanic == CONTINUATION_MECHANIC
    muts = tick.mutations
    mutation_count = muts.count if muts.count is not None else len(muts.changes)
    reason = tick.refusal_reason

    claimed_count: int | None = None
    unsupported: list[str] = []
    if isinstance(tick, TickV2):
        status = {"execute": "executed", "yield": "yielded", "refuse": "refused"}[tick.kind]
        actor = tick.actor_id or (action.actor if action else None)
        rollback = tick.conservation_verdict == "violated"
        observation_text = tick.observation.text if tick.observation else None
        cost = tick.cost_usd
        claims = tick.observation.claimed_changes if tick.observation else None
        if claims is not None:
            made = {(str(m[0]), str(m[1]), _key(m[-1])) for m in muts.changes if len(m) >= 3}
            claimed_count = len(claims)
            for claim in claims:
                if len(claim) < 3 or (str(claim[0]), str(claim[1]), _key(claim[2])) not in made:
                    unsupported.append(".".join(str(c) for c in claim[:2]) + f"={claim[-1]!r}")
    else:
        if tick.refused:
            status = "refused"
        elif tick.yielded:
            status = "yielded"
        elif mechanic:
            status = "executed"
        else:
            status = "unmatched"
        actor = action.actor if action else None
        rollback = status == "refused" and "conservation" in (reason or "").lower()
        observation_text = tick.observation_text
        stages = tick.llm_cost_usd_by_stage
        cost = sum(v for v in stages.values() if v is not None) if stages else None

    if claimed_count is not None:
        grounded, source = not unsupported, "observer"
    else:
        proxy_ungrounded = (
            status in ("executed", "unmatched") and not continuation and mutation_count == 0
        )
        grounded, source = not proxy_ungrounded, "proxy"

    tokens = tick.llm_tokens_by_stage or {}
    tokens_in = sum(int((s or {}).get("in") or 0) for s in tokens.values()) if tokens else None
    tokens_out = sum(int((s or {}).get("out") or 0) for s in tokens.values()) if tokens else None
    verb = action.verb.strip().lower() if action and action.verb else None
    return {
        "slug": slug,
        "tick": tick_no,
        "schema_version": tick.schema_version,
        "timestamp": _timestamp(tick.timestamp_iso),
        "actor": actor,
        "action_text": action_text,
        "verb": verb or None,
        "target": action.target if action else None,
        "mechanic": mechanic,
        "status": status,
        "refusal_reason": reason,
        "rollback": rollback,
        "continuation": continuation,
        "mutation_count": mutation_count,
        "claimed_count": claimed_count,
        "unsupported_claims": "; ".join(unsupported) if unsupported else None,
        "grounded": grounded,
        "grounded_source": source,
        "observation_text": observation_text,
        "cost_usd": cost,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "duration_ms": int(tick.duration_ms) if tick.duration_ms is not None else None,
        "source_file": str(path),
    }


def parse_tick(slug: str, path: Path, data: Any) -> dict[str, Any]:
    """Validate one tick summary and normalise it into a ticks-frame row.

    Raises:
        InputError: the file is not a tick summary of a known schema version.
    """
    if not isinstance(data, dict):
        raise InputError(path, "a tick summary must be a JSON object", field="(top level)")
    version = data.get("schema_version", 1)
    model: type[TickV1] | type[TickV2]
    if version == 1:
        model = TickV1
    elif version == 2:
        model = TickV2
    else:
        raise InputError(path, "unknown tick schema version", field="schema_version", value=version)
    try:
        tick = model.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    from_name = _TICK_FILE.match(path.name)
    tick_no = parse_tick_number(tick.tick_id)
    if tick_no is None:
        if tick.tick_id is not None or from_name is None:
            raise InputError(
                path, "tick id is not a tick number", field="tick_id", value=tick.tick_id
            )
        tick_no = int(from_name.group(1))
    return _tick_row(slug, path, tick_no, tick)


def _batch_row(slug: str, path: Path, data: Any, kind: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(path, "a batch record must be a JSON object", field="(top level)")
    try:
        rec = CompressedRecord.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(path, exc) from exc
    count = rec.tick_count
    if count is None and rec.first_tick is not None and rec.last_tick is not None:
        count = rec.last_tick - rec.first_tick + 1
    return {
        "slug": slug,
        "kind": rec.kind or kind,
        "batch_id": None if rec.batch_id is None else str(rec.batch_id),
        "first_tick": rec.first_tick,
        "last_tick": rec.last_tick,
        "tick_count": count,
        "total_mutations": rec.total_mutations,
        "agent_id": rec.agent_id,
        "mechanic_ids_used": rec.mechanic_ids_used,
        "key_events": [e if isinstance(e, str) else json.dumps(e) for e in rec.key_events],
        "source_file": str(path),
    }


def _checkpoints(slug: str, db: Path) -> pl.DataFrame:
    uri = f"file:{db}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        rows = conn.execute(
            "SELECT tick_id, node_count, edge_count FROM graph_snapshots"
        ).fetchall()
    parsed = [
        {"slug": slug, "tick": parse_tick_number(str(t)), "node_count": n, "edge_count": e}
        for t, n, e in rows
    ]
    frame = pl.DataFrame(parsed, schema=CHECKPOINTS_SCHEMA)
    return frame.filter(pl.col("tick").is_not_null()).sort("tick")


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(path, f"not readable YAML ({type(exc).__name__})") from exc


def _issue(err: InputError) -> dict[str, Any]:
    return {"path": err.path, "line": err.line, "reason": str(err)}


def _load_one(root: Path) -> tuple[Universe, list[dict[str, Any]]]:
    slug = root.name
    issues: list[dict[str, Any]] = []
    warnings: list[str] = []
    name = slug.replace("-", " ").replace("_", " ").title()
    conserved: tuple[str, ...] = ()

    config_path = root / "universe.yaml"
    if config_path.is_file():
        try:
            config = _read_yaml(config_path)
            if isinstance(config, dict) and isinstance(config.get("name"), str):
                name = config["name"]
        except InputError as err:
            issues.append(_issue(err))
    conservation_path = root / "conservation.yaml"
    if conservation_path.is_file():
        try:
            cons = _read_yaml(conservation_path)
            props = cons.get("conserved_properties") if isinstance(cons, dict) else None
            if isinstance(props, list):
                conserved = tuple(str(p) for p in props)
        except InputError as err:
            issues.append(_issue(err))

    summaries = root / "tick_summaries"
    tick_rows: list[dict[str, Any]] = []
    tick_dir = summaries / "ticks"
    if tick_dir.is_dir():
        numbered = sorted(
            (int(m.group(1)), p) for p in tick_dir.iterdir() if (m := _TICK_FILE.match(p.name))
        )
        for _, path in numbered:
            try:
                tick_rows.append(parse_tick(slug, path, read_json(path)))
            except InputError as err:
                issues.append(_issue(err))
    batch_rows: list[dict[str, Any]] = []
    if summaries.is_dir():
        compressed = sorted(
            (m.group(1), int(m.group(2)), p)
            for p in summaries.iterdir()
            if (m := _COMPRESSED_FILE.match(p.name))
        )
        for kind, _, path in compressed:
            try:
                batch_rows.append(_batch_row(slug, path, read_json(path), kind))
            except InputError as err:
                issues.append(_issue(err))
    else:
        warnings.append(f"{slug}: no tick_summaries/ folder")

    ticks = pl.DataFrame(tick_rows, schema=TICKS_SCHEMA).sort("tick")
    dupes = ticks.filter(pl.col("tick").is_duplicated())
    if dupes.height:
        for row in dupes.filter(pl.col("tick").is_first_distinct().not_()).iter_rows(named=True):
            issues.append(
                {"path": row["source_file"], "line": None, "reason": "duplicate tick number"}
            )
        ticks = ticks.unique(subset=["tick"], keep="first", maintain_order=True)

    db = root / "universe.db"
    checkpoints = pl.DataFrame(schema=CHECKPOINTS_SCHEMA)
    if db.is_file():
        try:
            checkpoints = _checkpoints(slug, db)
        except sqlite3.Error as exc:
            issues.append(
                {"path": str(db), "line": None, "reason": f"{db}: unreadable database ({exc})"}
            )
    else:
        warnings.append(f"{slug}: no universe.db, so graph fan-out has no checkpoints")

    universe = Universe(
        ticks=ticks,
        batches=pl.DataFrame(batch_rows, schema=BATCHES_SCHEMA),
        checkpoints=checkpoints,
        issues=pl.DataFrame(issues, schema=LOAD_ISSUES_SCHEMA),
        warnings=tuple(warnings),
        names={slug: name},
        paths={slug: root},
        conserved={slug: conserved},
    )
    return universe, issues


def load_universe(path: str | Path) -> Universe:
    """Load one universe folder.

    Args:
        path: the run folder (its name is the slug).

    Returns:
        A :class:`Universe` whose ``ticks`` frame has the columns of
        :data:`toolkit.frames.TICKS_SCHEMA` (slug, tick, schema_version, timestamp, actor,
        action_text, verb, target, mechanic, status, refusal_reason, rollback,
        continuation, mutation_count, claimed_count, unsupported_claims, grounded,
        grounded_source, observation_text, cost_usd, tokens_in, tokens_out, duration_ms,
        source_file), sorted by tick number.

    Raises:
        InputError: the folder does not exist or is not a folder.
    """
    root = Path(path)
    if not root.exists():
        raise InputError(root, "no such run folder")
    if not root.is_dir():
        raise InputError(root, "a run must be a folder (the universe's slug)")
    universe, _ = _load_one(root.resolve() if root.name in ("", ".", "..") else root)
    return universe


def combine(universes: Sequence[Universe]) -> Universe:
    """Stack loads of several runs into one :class:`Universe` with the same frames."""
    if not universes:
        return Universe(
            ticks=pl.DataFrame(schema=TICKS_SCHEMA),
            batches=pl.DataFrame(schema=BATCHES_SCHEMA),
            checkpoints=pl.DataFrame(schema=CHECKPOINTS_SCHEMA),
            issues=pl.DataFrame(schema=LOAD_ISSUES_SCHEMA),
        )
    return Universe(
        ticks=pl.concat([u.ticks for u in universes]),
        batches=pl.concat([u.batches for u in universes]),
        checkpoints=pl.concat([u.checkpoints for u in universes]),
        issues=pl.concat([u.issues for u in universes]),
        warnings=tuple(w for u in universes for w in u.warnings),
        names={k: v for u in universes for k, v in u.names.items()},
        paths={k: v for u in universes for k, v in u.paths.items()},
        conserved={k: v for u in universes for k, v in u.conserved.items()},
    )


def _run_dirs(patterns: Iterable[str | Path]) -> list[Path]:
    found: dict[str, Path] = {}
    for pattern in patterns:
        for hit in sorted(globmod.glob(str(pattern))):
            p = Path(hit)
            if p.is_dir() and (p / "tick_summaries").is_dir():
                found.setdefault(str(p.resolve()), p)
    return list(found.values())


def load_universes(*patterns: str | Path) -> Universe:
    """Load every run folder matching the glob ``patterns`` into one set of frames.

    A folder counts as a run when it holds ``tick_summaries/``. Every frame carries the
    ``slug`` column, so ``universe.ticks.group_by("slug")`` works across runs.

    Raises:
        InputError: no run folder matches, or two runs share a slug.
    """
    dirs = _run_dirs(patterns)
    if not dirs:
        shown = ", ".join(str(p) for p in patterns)
        raise InputError(shown, "no run folders (with tick_summaries/) match")
    loads = [load_universe(d) for d in dirs]
    seen: dict[str, Path] = {}
    for u in loads:
        if u.slug in seen:
            raise InputError(
                u.paths[u.slug], f"two runs share the slug {u.slug!r} (also {seen[u.slug]})"
            )
        seen[u.slug] = u.paths[u.slug]
    return combine(loads)
