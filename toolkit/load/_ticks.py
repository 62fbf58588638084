"""Tick summaries, read in bulk by Polars' NDJSON reader and normalised column-wise.

The fast path joins the tick files' bytes into one NDJSON document (JSON strings cannot
hold a raw newline, so replacing newlines with spaces keeps every file one valid line)
and parses it once with an explicit schema. Every row is then checked column-wise; only
when the bulk read fails, or some rows fail the check, are the files concerned looked at
one by one with the pydantic models, which name the file, the field and the value. A
file that passes there is re-serialised in canonical form and joins the bulk read, so
there is exactly one normaliser, :func:`normalise`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import ValidationError

from toolkit.errors import InputError
from toolkit.frames import TICKS_SCHEMA
from toolkit.load._common import parse_json_bytes

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"
TICK_ID_PATTERN = r"^(?:tick_)?(\d+)$"
_TICK_ID = re.compile(TICK_ID_PATTERN)
_CHANGES = pl.List(pl.List(pl.String()))
_STAGES = ("classifier", "observer")

#: What the NDJSON reader is asked for: the union of tick schema v1 and v2. Scalars inside
#: mutation and claim lists arrive as text (numbers as digits, objects as JSON).
RAW_TICK_SCHEMA: dict[str, pl.DataType] = {
    "schema_version": pl.Int64(),
    "tick_id": pl.String(),
    "timestamp_iso": pl.String(),
    "action_text": pl.String(),
    "classified_action": pl.Struct(
        {"verb": pl.String(), "actor": pl.String(), "target": pl.String()}
    ),
    "matched_mechanic_id": pl.String(),
    "yielded": pl.Boolean(),
    "refused": pl.Boolean(),
    "refusal_reason": pl.String(),
    "mutations": pl.Struct({"count": pl.Int64(), "list": _CHANGES}),
    "observation_text": pl.String(),
    "duration_ms": pl.Float64(),
    "llm_tokens_by_stage": pl.Struct(
        {s: pl.Struct({"in": pl.Float64(), "out": pl.Float64()}) for s in _STAGES}
    ),
    "llm_cost_usd_by_stage": pl.Struct({s: pl.Float64() for s in _STAGES}),
    "actor_id": pl.String(),
    "kind": pl.String(),
    "conservation_verdict": pl.String(),
    "observation": pl.Struct({"text": pl.String(), "claimed_changes": _CHANGES}),
    "cost_usd": pl.Float64(),
}


def tick_number(value: str | int | None) -> int | None:
    """``"42"``, ``"tick_42"`` or ``42`` → ``42``; anything else → ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    m = _TICK_ID.match(value.strip())
    return int(m.group(1)) if m else None


def validate_tick(path: Path, data: Any) -> dict[str, Any]:
    """Check one parsed tick file with the pydantic models; return it in canonical form.

    Raises:
        InputError: naming the file, the field and the value that is wrong.
    """
    from toolkit.load._common import validation_problem
    from toolkit.load.universe import TickV1, TickV2

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
    if tick.tick_id is not None and tick_number(tick.tick_id) is None:
        raise InputError(path, "tick id is not a tick number", field="tick_id", value=tick.tick_id)
    if tick.tick_id is None and not re.match(r"^tick_\d+\.json$", path.name):
        raise InputError(path, "no tick id, and none in the file name", field="tick_id")
    canonical = tick.model_dump(mode="json", by_alias=True)
    canonical["schema_version"] = version
    return canonical


def _one_line(blob: bytes) -> bytes:
    return blob.replace(b"\r", b" ").replace(b"\n", b" ").strip()


def _read(lines: Sequence[bytes]) -> pl.DataFrame:
    return pl.read_ndjson(io.BytesIO(b"\n".join(lines)), schema=RAW_TICK_SCHEMA)


def _problems(raw: pl.DataFrame, files: pl.Series) -> pl.Series:
    """Rows the column-wise check rejects (the pydantic models would reject them too)."""
    version = pl.col("schema_version").fill_null(1)
    name_number = files.str.extract(r"(?:^|/)tick_(\d+)\.json$", 1)
    bad = (
        version.is_in([1, 2]).not_()
        | ((version == 2) & pl.col("kind").is_in(["execute", "yield", "refuse"]).not_())
        | ((version == 2) & pl.col("kind").is_null())
        | (
            (version == 2)
            & pl.col("conservation_verdict").is_not_null()
            & pl.col("conservation_verdict").is_in(["ok", "violated"]).not_()
        )
        | (
            pl.col("tick_id").is_not_null()
            & pl.col("tick_id").str.strip_chars().str.contains(TICK_ID_PATTERN).not_()
        )
        | (pl.col("tick_id").is_null() & pl.lit(name_number).is_null())
    )
    return raw.select(bad.fill_null(True)).to_series()


def parse_ticks(
    slugs: Sequence[str], files: Sequence[str | Path], blobs: Sequence[bytes]
) -> tuple[pl.DataFrame, list[InputError]]:
    """Parse tick files' bytes (of one run or many) into the ticks frame.

    Args:
        slugs: the run slug of each file.
        files: the tick files, in the same order.
        blobs: each file's bytes.

    Returns:
        The ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`) sorted by slug and tick,
        and one :class:`InputError` per file that could not be used.
    """
    names = pl.Series("source_file", [str(f) for f in files], dtype=pl.String)
    slug_col = pl.Series("slug", list(slugs), dtype=pl.String)
    count = len(blobs)
    errors: list[InputError] = []
    raw: pl.DataFrame | None = None
    try:
        raw = _read([_one_line(b) for b in blobs]) if count else None
    except pl.exceptions.PolarsError:
        raw = None
    if raw is not None and raw.height == count:
        bad = _problems(raw, names)
        if not bad.any():
            return normalise(raw, slug_col, names), errors
        redo = set(bad.arg_true().to_list())
    elif len(set(slugs)) > 1:
        # One broken file must not send a whole fleet down the slow path: retry run by run.
        frames: list[pl.DataFrame] = []
        by_run: dict[str, list[int]] = {}
        for i, s in enumerate(slugs):
            by_run.setdefault(s, []).append(i)
        for run, idx in by_run.items():
            frame, errs = parse_ticks(
                [run] * len(idx), [files[i] for i in idx], [blobs[i] for i in idx]
            )
            frames.append(frame)
            errors.extend(errs)
        return pl.concat(frames), errors
    else:
        redo = set(range(count))
    # The slow path: only for the files the bulk read could not take.
    keep_lines: list[bytes] = []
    keep_files: list[str] = []
    keep_slugs: list[str] = []
    for i, (path, blob) in enumerate(zip(files, blobs, strict=True)):
        if i not in redo:
            keep_lines.append(_one_line(blobs[i]))
            keep_files.append(str(path))
            keep_slugs.append(slugs[i])
            continue
        try:
            canonical = validate_tick(Path(path), parse_json_bytes(Path(path), blob))
        except InputError as err:
            errors.append(err)
            continue
        keep_lines.append(json.dumps(canonical).encode())
        keep_files.append(str(path))
        keep_slugs.append(slugs[i])
    if not keep_lines:
        return pl.DataFrame(schema=TICKS_SCHEMA), errors
    frame = normalise(
        _read(keep_lines),
        pl.Series("slug", keep_slugs, dtype=pl.String),
        pl.Series("source_file", keep_files, dtype=pl.String),
    )
    return frame, errors


def _change_key(change: pl.Expr, value_index: int) -> pl.Expr:
    """A change ``[target, property, ..., value]`` as ``target␟property␟value`` text; null
    when it has fewer than three parts (so it can never match)."""
    parts = [change.list.get(i, null_on_oob=True).fill_null("null") for i in (0, 1, value_index)]
    return pl.when(change.list.len() >= 3).then(pl.concat_str(parts, separator="\x1f"))


def _unsupported_claims(frame: pl.DataFrame) -> pl.DataFrame:
    """Per row (``_row``): observer claims with no matching mutation, and how many."""
    claims = (
        frame.select("_row", claim="_claimed")
        .explode("claim")
        .drop_nulls("claim")
        .with_columns(
            key=_change_key(pl.col("claim"), 2),
            text=pl.concat_str(
                pl.col("claim").list.get(0, null_on_oob=True).fill_null("?"),
                pl.lit("."),
                pl.col("claim").list.get(1, null_on_oob=True).fill_null("?"),
                pl.lit("="),
                pl.col("claim").list.last().fill_null("null"),
            ),
        )
    )
    made = (
        frame.select("_row", change=pl.col("mutations").struct.field("list"))
        .explode("change")
        .drop_nulls("change")
        .select("_row", key=_change_key(pl.col("change"), -1))
    )
    return (
        claims.join(made, on=["_row", "key"], how="anti")
        .group_by("_row")
        .agg(unsupported_claims=pl.col("text").str.join("; "))
    )


def _subtypes(changes: pl.Expr) -> pl.Expr:
    """The new values (last part) of the changes ``[target, "subtype", ..., new]``."""
    written = changes.list.eval(
        pl.when(
            (pl.element().list.len() >= 3)
            & (pl.element().list.get(1, null_on_oob=True) == "subtype")
        ).then(pl.element().list.last())
    )
    return written.list.drop_nulls().fill_null(pl.lit([], dtype=pl.List(pl.String())))


def normalise(raw: pl.DataFrame, slugs: pl.Series, files: pl.Series) -> pl.DataFrame:
    """Turn raw tick records (:data:`RAW_TICK_SCHEMA`) into the ticks frame.

    Status, rollback, continuation, groundedness (exact from observer claims, else the
    proxy), cost and tokens are derived column-wise; see ``docs/formats/universe.md``.
    Claimed and made values are compared as text (``5`` and ``"5"`` are the same value).
    """
    v2 = pl.col("schema_version").fill_null(1) == 2
    action = pl.col("classified_action")
    mechanic = pl.col("matched_mechanic_id")
    status = (
        pl.when(v2)
        .then(
            pl.col("kind").replace_strict(
                {"execute": "executed", "yield": "yielded", "refuse": "refused"},
                default=None,
                return_dtype=pl.String,
            )
        )
        .when(pl.col("refused").fill_null(False))
        .then(pl.lit("refused"))
        .when(pl.col("yielded").fill_null(False))
        .then(pl.lit("yielded"))
        .when(mechanic.is_not_null() & (mechanic != ""))
        .then(pl.lit("executed"))
        .otherwise(pl.lit("unmatched"))
    )
    claims = pl.col("observation").struct.field("claimed_changes")
    continuation = (pl.col("action_text") == CONTINUATION_TEXT).fill_null(False) | (
        mechanic == CONTINUATION_MECHANIC
    ).fill_null(False)
    mutations = pl.col("mutations")
    mutation_count = pl.coalesce(
        mutations.struct.field("count"), mutations.struct.field("list").list.len(), pl.lit(0)
    )
    tokens = pl.col("llm_tokens_by_stage")
    tokens_in = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("in").fill_null(0) for s in _STAGES]
    )
    tokens_out = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("out").fill_null(0) for s in _STAGES]
    )
    costs = pl.col("llm_cost_usd_by_stage")
    v1_cost = pl.sum_horizontal([costs.struct.field(s).fill_null(0.0) for s in _STAGES])
    verb = action.struct.field("verb").str.strip_chars().str.to_lowercase()

    frame = raw.with_columns(
        files.alias("source_file"),
        slugs.alias("slug"),
        _row=pl.int_range(pl.len()),
        _claimed=pl.when(v2).then(claims),
    )
    unsupported = _unsupported_claims(frame)
    out = (
        frame.join(unsupported, on="_row", how="left")
        .with_columns(status=status, continuation=continuation, mutation_count=mutation_count)
        .with_columns(
            grounded=pl.when(pl.col("_claimed").is_not_null())
            .then(pl.col("unsupported_claims").is_null())
            .otherwise(
                (
                    pl.col("status").is_in(["executed", "unmatched"])
                    & pl.col("continuation").not_()
                    & (pl.col("mutation_count") == 0)
                ).not_()
            ),
            grounded_source=pl.when(pl.col("_claimed").is_not_null())
            .then(pl.lit("observer"))
            .otherwise(pl.lit("proxy")),
        )
        .select(
            slug="slug",
            tick=pl.coalesce(
                pl.col("tick_id").str.strip_chars().str.extract(TICK_ID_PATTERN, 1),
                pl.col("source_file").str.extract(r"tick_(\d+)\.json$", 1),
            ).cast(pl.Int64),
            schema_version=pl.col("schema_version").fill_null(1),
            timestamp=pl.col("timestamp_iso").str.strptime(
                pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%SZ", strict=False
            ),
            actor=pl.when(v2)
            .then(pl.coalesce(pl.col("actor_id"), action.struct.field("actor")))
            .otherwise(action.struct.field("actor")),
            action_text="action_text",
            verb=pl.when(verb != "").then(verb),
            target=action.struct.field("target"),
            mechanic="matched_mechanic_id",
            status="status",
            refusal_reason="refusal_reason",
            rollback=pl.when(v2)
            .then(pl.col("conservation_verdict") == "violated")
            .otherwise(
                (pl.col("status") == "refused")
                & pl.col("refusal_reason")
                .fill_null("")
                .str.to_lowercase()
                .str.contains("conservation", literal=True)
            )
            .fill_null(False),
            continuation="continuation",
            mutation_count="mutation_count",
            subtypes=_subtypes(mutations.struct.field("list")),
            claimed_count=pl.col("_claimed").list.len(),
            unsupported_claims="unsupported_claims",
            grounded="grounded",
            grounded_source="grounded_source",
            observation_text=pl.when(v2)
            .then(pl.col("observation").struct.field("text"))
            .otherwise(pl.col("observation_text")),
            cost_usd=pl.when(v2).then(pl.col("cost_usd")).when(costs.is_not_null()).then(v1_cost),
            tokens_in=pl.when(tokens.is_not_null()).then(tokens_in),
            tokens_out=pl.when(tokens.is_not_null()).then(tokens_out),
            duration_ms="duration_ms",
            source_file="source_file",
        )
    )
    return out.cast(TICKS_SCHEMA).sort("slug", "tick")  # type: ignore[arg-type]
