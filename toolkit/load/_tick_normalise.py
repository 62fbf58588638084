"""Normalise: raw tick records (:data:`~toolkit.load._tick_frame.RAW_TICK_SCHEMA`)
turned into the ticks frame (:data:`toolkit.frames.TICKS_SCHEMA`) column-wise, whichever
path parsed them (:mod:`toolkit.load._ticks`)."""

from __future__ import annotations

import functools

import polars as pl

from toolkit.frames import GROUNDED_SOURCE, TICK_STATUS, TICKS_SCHEMA
from toolkit.load._run_files import TICK_ID_PATTERN
from toolkit.load._tick_frame import STAGES

__all__ = [
    "CONTINUATION_MECHANIC",
    "CONTINUATION_TEXT",
    "in_order",
    "normalise",
    "plain_ids",
    "unsupported_claims",
]

CONTINUATION_TEXT = "[long_running_continuation]"
CONTINUATION_MECHANIC = "continue_long_action"


def plain_ids(ids: pl.Series) -> pl.Series | None:
    """The tick numbers of ``ids`` when every id is present and plain digits (``"42"``,
    as almost every file writes it), else ``None``: then :data:`TICK_ID_PATTERN` must
    read them. An id equal to its number written back has no sign, space, prefix or
    leading zero, so for these ids the cast alone gives what the pattern would, without
    running a regex over every row."""
    if ids.null_count():
        return None
    numbers = ids.cast(pl.Int64, strict=False)
    # a null (an id that is no number) counts as False: ``all`` without ``fill_null``,
    # which as a Series call plans a query of its own
    if ((numbers >= 0) & (numbers.cast(pl.String) == ids)).all(ignore_nulls=False) is not True:
        return None
    return numbers


def _change_parts(change: pl.Expr, value_index: int) -> list[pl.Expr]:
    """A change ``[target, property, ..., value]`` as three text columns ``target``,
    ``property``, ``value`` (numbers arrive as their digits, so ``5`` and ``"5"`` are one
    value; a null part is the text ``"null"``); the value is null when the change has
    fewer than three parts, so that it never matches."""
    target, prop, value = (
        change.list.get(i, null_on_oob=True).fill_null("null") for i in (0, 1, value_index)
    )
    return [
        target.alias("target"),
        prop.alias("property"),
        pl.when(change.list.len() >= 3).then(value).alias("value"),
    ]


def _unsupported_claims(claimed: pl.Series, changes: pl.Series) -> pl.Series:
    """Per row: the claims no change of the row makes, as ``target.property=value; ...``
    (null where every claim is made, or there are none).

    Args:
        claimed: each row's claimed changes ``[target, property, value]`` (null: none).
        changes: each row's changes ``[target, property, ..., new value]``.
    """
    claim, change = pl.col("claim"), pl.col("change")
    rows = (
        pl.DataFrame([claimed.alias("claim"), changes.alias("change")])
        .with_row_index("_row")
        .filter(claim.list.len() > 0)  # only rows with claims need their changes
    )
    claims = (
        rows.select("_row", "claim")
        .explode("claim")
        .drop_nulls("claim")
        .with_columns(_change_parts(claim, 2))
    )
    made = (
        rows.select("_row", "change")
        .explode("change")
        .drop_nulls("change")
        .select("_row", *_change_parts(change, -1))
    )
    text = pl.concat_str(
        claim.list.get(0, null_on_oob=True).fill_null("?"),
        pl.lit("."),
        claim.list.get(1, null_on_oob=True).fill_null("?"),
        pl.lit("="),
        claim.list.last().fill_null("null"),
    )
    unmade = (
        # Joined on the three parts, not one text of them (-12 %; exact, no separator)
        claims.join(
            made, on=["_row", "target", "property", "value"], how="anti", maintain_order="left"
        )
        .group_by("_row")
        .agg(text.str.join("; "))
    )
    # Put in place by row number: a join back would not promise to keep the rows' order.
    return (
        pl.repeat(None, claimed.len(), dtype=pl.String(), eager=True)
        .scatter(unmade["_row"], unmade["claim"])
        .alias("unsupported_claims")
    )


def unsupported_claims(raw: pl.DataFrame) -> pl.Series:
    """Each raw row's unsupported claims (v2 rows' observer claims that no change of the
    row makes), as the ticks frame's ``unsupported_claims`` column holds them."""
    claimed = raw.select(pl.when(_V2).then(pl.col("observation").struct.field("claimed_changes")))
    return _unsupported_claims(claimed.to_series(), raw["mutations"].struct.field("list"))


def _subtypes(changes: pl.Expr) -> pl.Expr:
    """The new values (last part) of the changes ``[target, "subtype", ..., new]``."""
    # Nulls are dropped inside the eval: ``list.drop_nulls`` after it cost 5x the rest.
    written = changes.list.eval(
        pl.when(
            (pl.element().list.len() >= 3)
            & (pl.element().list.get(1, null_on_oob=True) == "subtype")
        )
        .then(pl.element().list.last())
        .drop_nulls()
    )
    return written.fill_null(pl.lit([], dtype=pl.List(pl.String())))


def _tick_numbers(ids: pl.Series, files: pl.Series) -> pl.Series:
    """Each row's tick number: its tick id's (``"42"``, ``" tick_42 "``), else its file
    name's (``tick_42.json``); plain ids without a regex (:func:`_plain_ids`)."""
    plain = plain_ids(ids)
    if plain is not None:
        return plain.alias("tick")
    named = ids.str.strip_chars().str.extract(TICK_ID_PATTERN, 1)
    if named.null_count():
        named = named.fill_null(files.str.extract(r"tick_(\d+)\.json$", 1))
    return named.cast(pl.Int64).alias("tick")


def in_order(frame: pl.DataFrame) -> bool:
    """Whether the rows are sorted by slug, then tick (no null tick)."""
    slug, tick = pl.col("slug"), pl.col("tick")
    later = (slug.shift(-1) > slug) | ((slug.shift(-1) == slug) & (tick.shift(-1) >= tick))
    return bool(frame.select(later.head(pl.len() - 1).fill_null(False).all()).item())


_TICKS = pl.Schema(TICKS_SCHEMA)


def _status(v2: pl.Expr) -> pl.Expr:
    """The tick's status: v2's ``kind``; v1's refused / yielded flags, else executed when
    a mechanic matched, else unmatched."""
    mechanic, kind = pl.col("matched_mechanic_id"), pl.col("kind")

    def status_(name: str) -> pl.Expr:  # built as the enum: no cast of text afterwards
        return pl.lit(name, dtype=TICK_STATUS)

    return (
        pl.when(v2)
        .then(  # three comparisons cost less than a replace_strict
            pl.when(kind == "execute")
            .then(status_("executed"))
            .when(kind == "yield")
            .then(status_("yielded"))
            .when(kind == "refuse")
            .then(status_("refused"))
        )
        .when(pl.col("refused").fill_null(False))
        .then(status_("refused"))
        .when(pl.col("yielded").fill_null(False))
        .then(status_("yielded"))
        .when(mechanic.is_not_null() & (mechanic != ""))
        .then(status_("executed"))
        .otherwise(status_("unmatched"))
    )


@functools.cache
def _status_v2() -> pl.Expr:
    return _status(_V2)


def _derived(
    raw: pl.DataFrame,
    slugs: pl.Series,
    files: pl.Series,
    v2: pl.Expr,
    unsupported: pl.Series | None = None,
) -> pl.DataFrame:
    """``raw`` with the columns the ticks frame is selected from: slug, file, tick number,
    claims, status, continuation, mutation count, verb (``unsupported``: the unsupported
    claims, when the accelerator found them already)."""
    mechanic = pl.col("matched_mechanic_id")
    claims = pl.col("observation").struct.field("claimed_changes")
    continuation = (pl.col("action_text") == CONTINUATION_TEXT).fill_null(False) | (
        mechanic == CONTINUATION_MECHANIC
    ).fill_null(False)
    mutations = pl.col("mutations")
    mutation_count = pl.coalesce(
        mutations.struct.field("count"), mutations.struct.field("list").list.len(), pl.lit(0)
    )
    if unsupported is None:  # found here, from the claims as a column of their own
        claimed = raw.select(pl.when(v2).then(claims)).to_series()
        found: list[pl.Series | pl.Expr] = [
            claimed.alias("_claimed"),
            _unsupported_claims(claimed, raw["mutations"].struct.field("list")),
        ]
    else:  # (the accelerator's: the claims column is built in the same query, not before)
        found = [
            pl.when(v2).then(claims).alias("_claimed"),
            unsupported.alias("unsupported_claims"),
        ]
    return raw.with_columns(
        slugs.alias("slug"),
        files.alias("source_file"),
        _tick_numbers(raw["tick_id"], files),
        *found,
        status=_status_v2(),
        continuation=continuation,
        mutation_count=mutation_count,
        _verb=pl.col("classified_action").struct.field("verb").str.strip_chars().str.to_lowercase(),
    )


def _action_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What the agent did: time, actor, text, verb, target, mechanic, status, refusal."""
    action = pl.col("classified_action")
    return {
        # Each tick has its own time: a cache of parsed strings only costs (-20 %).
        "timestamp": pl.col("timestamp_iso").str.strptime(
            pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%SZ", strict=False, cache=False
        ),
        "actor": pl.coalesce(pl.when(v2).then("actor_id"), action.struct.field("actor")),
        "action_text": "action_text",
        "verb": pl.when(pl.col("_verb") != "").then("_verb"),
        "target": action.struct.field("target"),
        "mechanic": "matched_mechanic_id",
        "status": "status",
        "refusal_reason": "refusal_reason",
    }


def _outcome_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What came of it: rollback, continuation, mutations, claims and groundedness, and
    the observation's text."""
    claimed = pl.col("_claimed").is_not_null()
    proxy_ungrounded = (
        pl.col("status").is_in(["executed", "unmatched"])
        & pl.col("continuation").not_()
        & (pl.col("mutation_count") == 0)
    )
    return {
        "rollback": pl.when(v2)
        .then(pl.col("conservation_verdict") == "violated")
        .otherwise(
            (pl.col("status") == "refused")
            & pl.col("refusal_reason")
            .fill_null("")
            .str.to_lowercase()
            .str.contains("conservation", literal=True)
        )
        .fill_null(False),
        "continuation": "continuation",
        "mutation_count": "mutation_count",
        "subtypes": _subtypes(pl.col("mutations").struct.field("list")),
        "claimed_count": pl.col("_claimed").list.len().cast(pl.Int64),
        "unsupported_claims": "unsupported_claims",
        "grounded": pl.when(claimed)
        .then(pl.col("unsupported_claims").is_null())
        .otherwise(proxy_ungrounded.not_()),
        "grounded_source": pl.when(claimed)
        .then(pl.lit("observer", dtype=GROUNDED_SOURCE))
        .otherwise(pl.lit("proxy", dtype=GROUNDED_SOURCE)),
        "observation_text": pl.when(v2)
        .then(pl.col("observation").struct.field("text"))
        .otherwise(pl.col("observation_text")),
    }


def _usage_columns(v2: pl.Expr) -> dict[str, pl.Expr | str]:
    """What it cost: dollars, tokens in and out (summed over the stages), duration."""
    tokens = pl.col("llm_tokens_by_stage")
    tokens_in = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("in").fill_null(0) for s in STAGES]
    )
    tokens_out = pl.sum_horizontal(
        [tokens.struct.field(s).struct.field("out").fill_null(0) for s in STAGES]
    )
    costs = pl.col("llm_cost_usd_by_stage")
    v1_cost = pl.sum_horizontal([costs.struct.field(s).fill_null(0.0) for s in STAGES])
    return {
        "cost_usd": pl.when(v2).then(pl.col("cost_usd")).when(costs.is_not_null()).then(v1_cost),
        "tokens_in": pl.when(tokens.is_not_null()).then(tokens_in).cast(pl.Int64),
        "tokens_out": pl.when(tokens.is_not_null()).then(tokens_out).cast(pl.Int64),
        "duration_ms": pl.col("duration_ms").cast(pl.Int64),
    }


#: Whether a row is of tick schema v2.
_V2 = pl.col("schema_version").fill_null(1) == 2


@functools.cache  # the same expressions for every chunk: built once (about 1 ms a chunk)
def _selected() -> dict[str, pl.Expr | str]:
    """The ticks frame's columns, as :func:`normalise` selects them from :func:`_derived`."""
    return {
        "slug": "slug",
        "tick": "tick",
        "schema_version": pl.col("schema_version").fill_null(1),
        **_action_columns(_V2),
        **_outcome_columns(_V2),
        **_usage_columns(_V2),
        "source_file": "source_file",
    }


def normalise(
    raw: pl.DataFrame,
    slugs: pl.Series,
    files: pl.Series,
    unsupported: pl.Series | None = None,
) -> pl.DataFrame:
    """Turn raw tick records (:data:`RAW_TICK_SCHEMA`) into the ticks frame.

    Status, rollback, continuation, groundedness (exact from observer claims, else the
    proxy), cost and tokens are derived column-wise; see ``docs/formats/universe.md``.
    Claimed and made values are compared as text (``5`` and ``"5"`` are the same value).
    ``unsupported``: each row's unsupported claims as :func:`unsupported_claims` finds
    them, when the C accelerator found them already (the tests hold it to that).
    """
    out = _derived(raw, slugs, files, _V2, unsupported).select(**_selected())
    # Built in the frame's types: casting a whole frame costs even when nothing changes.
    if out.schema != _TICKS:
        out = out.cast(TICKS_SCHEMA)  # type: ignore[arg-type]
    # Files are listed run by run in tick order, so the rows nearly always come in order:
    # checking costs a fraction of sorting. Equal ticks keep their files' order.
    if in_order(out):
        return out
    return out.sort("slug", "tick", maintain_order=True)
