"""Re-scoring: what changes when the same inputs are scored under two rubrics (or judges),
and how much of a change since a stored score comes from the rubric and how much from
inputs that changed (issue 40's ``toolkit rescore``).

Pure: every function here takes frames of scores and returns frames; the loading and the
scoring are :mod:`toolkit.fleet.rescore`'s. One side's scores are two frames:

* units (:data:`UNIT_SCHEMA`): one row per scored subject (a run, an iteration, a
  proposition x agent): its overall ``value`` (null when the family has none, as a
  simulation run), its ``verdict`` (or band), its ``epoch`` and ``input_digest``;
* dimensions (:data:`DIM_SCHEMA`): one row per subject and dimension (or signal): its
  ``value``, ``status`` and, where the family weighs dimensions, ``weight``.

The split of a change since a stored score (:func:`rescore_diff` with ``stored``): the
stored score (old rubric, old inputs) -> A now (the old rubric on today's inputs) -> B now
(the new rubric on today's inputs). ``from_inputs`` is A now - stored when the input
digest differs (and the stored score was made under A's epoch), 0 when it does not;
``from_rubric`` is B now - A now, plus A now - stored when the inputs are the same but the
stored epoch is not A's. A stored score under another epoch on changed inputs cannot be
split: ``from_inputs`` is null and the row's ``note`` says why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from pydantic import BaseModel, ValidationError

from toolkit.errors import InputError
from toolkit.rubrics.discussion.spec import DiscussionSpec
from toolkit.rubrics.outcome.spec import OutcomeRubric
from toolkit.rubrics.simulation.spec import SimulationRubric
from toolkit.summary import Shows, Summary, plural

UNIT_SCHEMA: dict[str, Any] = {
    "subject": pl.String,
    "value": pl.Float64,
    "verdict": pl.String,
    "epoch": pl.String,
    "input_digest": pl.String,
}
DIM_SCHEMA: dict[str, Any] = {
    "subject": pl.String,
    "dimension": pl.String,
    "value": pl.Float64,
    "status": pl.String,
    "weight": pl.Float64,
}
#: Values closer than this are the same (scores are rounded to 4 decimals at most).
TOLERANCE = 1e-9
#: The most values one sweep scores.
MAX_SWEEP_POINTS = 500


@dataclass(frozen=True)
class Scored:
    """One side of a re-score: its unit and dimension frames, what it is called, and its
    epoch (id and the :class:`toolkit.epoch.Epoch`, when known)."""

    units: pl.DataFrame
    dimensions: pl.DataFrame
    label: str
    epoch: Any = None

    @staticmethod
    def of(
        units: Sequence[Mapping[str, Any]],
        dims: Sequence[Mapping[str, Any]],
        label: str,
        epoch: Any = None,
    ) -> Scored:
        """A side from rows (missing keys are null)."""
        return Scored(
            pl.DataFrame([{k: u.get(k) for k in UNIT_SCHEMA} for u in units], schema=UNIT_SCHEMA),
            pl.DataFrame([{k: d.get(k) for k in DIM_SCHEMA} for d in dims], schema=DIM_SCHEMA),
            label,
            epoch,
        )


@dataclass(frozen=True, repr=False)
class RescoreResult(Shows):
    """What changed between scoring the same inputs under A and under B.

    Attributes:
        family, source: the runs' family and where they were read from.
        a, b: what each side is called (rubric and version, or judge).
        epoch_a, epoch_b: each side's epoch id.
        differences: what differs between the epochs, one line each.
        runs: one row per subject: value_a, value_b, delta, verdict_a, verdict_b,
            flipped; with stored scores also value_stored, verdict_stored,
            epoch_stored, inputs_changed, from_inputs, from_rubric, note.
        dimensions: one row per subject and dimension: value_a, value_b, delta,
            status_a, status_b, flipped, weight_a, weight_b.
        notes: what the reader must know (subjects only one side scored, ...).
        judge_calls: judge calls made (persona); ``None`` when no judge is involved.
    """

    family: str
    source: str
    a: str
    b: str
    epoch_a: str
    epoch_b: str
    differences: tuple[str, ...]
    runs: pl.DataFrame
    dimensions: pl.DataFrame
    stored: bool = False
    notes: tuple[str, ...] = ()
    judge_calls: int | None = None

    def _summary(self) -> Summary:
        o = self.overall()
        facts: list[tuple[str, object]] = [
            ("subjects", o["subjects"]),
            ("verdict flips", o["verdict_flips"]),
            ("dimension flips", o["dimension_flips"]),
        ]
        if o["mean_delta"] is not None:
            facts.append(("mean change:", f"{o['mean_delta']:+.4f}"))
        if self.stored:
            facts.append(("inputs changed:", o["inputs_changed"]))
        if self.judge_calls is not None:
            facts.append(("judge calls", self.judge_calls))
        rows = tuple((str(a), "→", str(b), plural(n, "flip")) for a, b, n in self.flips().rows())
        return Summary(
            "RescoreResult",
            f"{self.family}: {self.a} → {self.b}",
            tuple(facts),
            notes=self.notes,
            notes_title="notes",
            columns=("A", "", "B", "runs"),
            rows=rows,
        )

    def dimension_summary(self) -> pl.DataFrame:
        """One row per dimension (first-seen order): ``subjects``, ``changed`` (value
        moved), ``mean_delta``, ``max_abs_delta``, ``flips`` (status changed)."""
        d = self.dimensions
        if d.is_empty():
            return pl.DataFrame(
                schema={
                    "dimension": pl.String,
                    "subjects": pl.UInt32,
                    "changed": pl.UInt32,
                    "mean_delta": pl.Float64,
                    "max_abs_delta": pl.Float64,
                    "flips": pl.UInt32,
                    "mean_weight_delta": pl.Float64,
                }
            )
        return d.group_by("dimension", maintain_order=True).agg(
            pl.len().alias("subjects"),
            (pl.col("delta").abs() > TOLERANCE).sum().cast(pl.UInt32).alias("changed"),
            pl.col("delta").mean().alias("mean_delta"),
            pl.col("delta").abs().max().alias("max_abs_delta"),
            pl.col("flipped").sum().cast(pl.UInt32).alias("flips"),
            (pl.col("weight_b") - pl.col("weight_a")).mean().alias("mean_weight_delta"),
        )

    def flips(self) -> pl.DataFrame:
        """Verdict (or band) flips from A to B: ``verdict_a``, ``verdict_b``, ``runs``."""
        return (
            self.runs.filter(pl.col("flipped"))
            .group_by("verdict_a", "verdict_b", maintain_order=True)
            .agg(pl.len().alias("runs"))
        )

    def overall(self) -> dict[str, Any]:
        """The totals: subjects, scored on both sides, mean and largest change of the
        value, verdict flips; with stored scores, the summed split of the change."""
        r = self.runs
        both = r.drop_nulls("delta")
        out: dict[str, Any] = {
            "subjects": r.height,
            "changed": int((both["delta"].abs() > TOLERANCE).sum()) if both.height else 0,
            "mean_delta": _num(both["delta"].mean()) if both.height else None,
            "max_abs_delta": _num(both["delta"].abs().max()) if both.height else None,
            "verdict_flips": int(r["flipped"].sum()),
            "dimension_flips": int(self.dimensions["flipped"].sum()),
        }
        if self.stored:
            have = r.filter(pl.col("value_stored").is_not_null())
            out["stored"] = have.height
            out["inputs_changed"] = int(have["inputs_changed"].sum())
            out["mean_from_inputs"] = _num(have["from_inputs"].mean()) if have.height else None
            out["mean_from_rubric"] = _num(have["from_rubric"].mean()) if have.height else None
            out["flips_from_inputs"] = int(have["flipped_inputs"].sum())
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolkit rescore --format json``."""
        return {
            "family": self.family,
            "source": self.source,
            "a": {"label": self.a, "epoch": self.epoch_a},
            "b": {"label": self.b, "epoch": self.epoch_b},
            "differences": list(self.differences),
            "judge_calls": self.judge_calls,
            "overall": self.overall(),
            "flips": self.flips().to_dicts(),
            "dimensions": [_clean(row) for row in self.dimension_summary().to_dicts()],
            "runs": [_clean(row) for row in self.runs.to_dicts()],
            "changes": [_clean(row) for row in self.dimensions.to_dicts()],
            "notes": list(self.notes),
        }


def _num(value: Any) -> float | None:
    """A number JSON can hold (``None`` for nan/inf/None)."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _clean(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _num(v) if isinstance(v, float) else v for k, v in row.items()}


def _same(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """Null-aware equality of two string columns."""
    return a.eq_missing(b)


def rescore_diff(
    a: Scored,
    b: Scored,
    *,
    stored: Scored | None = None,
    family: str = "",
    source: str = "",
    differences: Sequence[str] = (),
    notes: Sequence[str] = (),
    judge_calls: int | None = None,
) -> RescoreResult:
    """Compare side ``b`` with side ``a`` subject by subject and dimension by dimension,
    and, with ``stored`` (scores saved earlier beside the runs), split each change into
    what the rubric did and what changed inputs did (see the module docstring)."""
    au, bu = a.units, b.units
    runs = (
        au.select("subject", "value", "verdict", "epoch", "input_digest")
        .join(
            bu.select("subject", "value", "verdict", "epoch"),
            on="subject",
            how="full",
            coalesce=True,
            suffix="_b",
            maintain_order="left",
        )
        .rename({"value": "value_a", "verdict": "verdict_a", "epoch": "epoch_a"})
    )
    runs = runs.with_columns(
        (pl.col("value_b") - pl.col("value_a")).alias("delta"),
        (~_same(pl.col("verdict_a"), pl.col("verdict_b"))).alias("flipped"),
    )
    out_notes = list(notes)
    only = runs.filter(pl.col("verdict_a").is_null() | pl.col("verdict_b").is_null())
    if only.height:
        out_notes.append(f"{only.height} subject(s) scored on one side only")
    if stored is not None:
        runs = _split(runs, stored.units, a.epoch)
    runs = runs.select(
        "subject",
        "value_a",
        "value_b",
        "delta",
        "verdict_a",
        "verdict_b",
        "flipped",
        *(c for c in runs.columns if c.endswith("_stored") or c in _SPLIT_COLUMNS),
        "input_digest",
    )
    dims = a.dimensions.join(
        b.dimensions,
        on=["subject", "dimension"],
        how="full",
        coalesce=True,
        suffix="_b",
        maintain_order="left",
    )
    dims = dims.rename({"value": "value_a", "status": "status_a", "weight": "weight_a"})
    both = pl.col("status_a").is_not_null() & pl.col("status_b").is_not_null()
    dims = dims.with_columns(
        (pl.col("value_b") - pl.col("value_a")).alias("delta"),
        (both & (pl.col("status_a") != pl.col("status_b"))).fill_null(False).alias("flipped"),
    ).select(
        "subject",
        "dimension",
        "value_a",
        "value_b",
        "delta",
        "status_a",
        "status_b",
        "flipped",
        "weight_a",
        "weight_b",
    )
    out_notes.extend(_one_sided(dims, a.label, b.label))
    return RescoreResult(
        family,
        source,
        a.label,
        b.label,
        _epoch_id(a.epoch),
        _epoch_id(b.epoch),
        tuple(differences),
        runs,
        dims,
        stored is not None,
        tuple(out_notes),
        judge_calls,
    )


def _one_sided(dims: pl.DataFrame, a: str, b: str) -> list[str]:
    """A note for each dimension scored under one side only (a signal a rubric adds)."""
    notes = []
    for side, other, label in (("status_a", "status_b", b), ("status_b", "status_a", a)):
        only = dims.filter(pl.col(side).is_null() & pl.col(other).is_not_null())
        for name in only["dimension"].unique(maintain_order=True).to_list():
            notes.append(f"{name}: scored under {label} only")
    return notes


_SPLIT_COLUMNS = ("inputs_changed", "from_inputs", "from_rubric", "flipped_inputs", "note")


def _epoch_id(epoch: Any) -> str:
    if epoch is None:
        return ""
    return str(getattr(epoch, "id", epoch))


def _split(runs: pl.DataFrame, stored: pl.DataFrame, epoch_a: Any) -> pl.DataFrame:
    """Add the stored score of each subject and the split of the change since."""
    s = stored.select(
        "subject",
        pl.col("value").alias("value_stored"),
        pl.col("verdict").alias("verdict_stored"),
        pl.col("epoch").alias("epoch_stored"),
        pl.col("input_digest").alias("digest_stored"),
    )
    runs = runs.join(s, on="subject", how="left", maintain_order="left")
    has = pl.col("verdict_stored").is_not_null()
    # no digest on either side (a score stored before digests, or by another tool): what
    # changed since is unknown, never "the inputs changed"
    known = has & pl.col("digest_stored").is_not_null() & pl.col("input_digest").is_not_null()
    changed = ~_same(pl.col("digest_stored"), pl.col("input_digest"))
    same_epoch = _same(pl.col("epoch_stored"), pl.lit(_epoch_id(epoch_a) or None, pl.String))
    first = pl.col("value_a") - pl.col("value_stored")  # stored -> A now
    rubric = pl.col("value_b") - pl.col("value_a")  # A now -> B now
    return runs.with_columns(
        pl.when(known).then(changed).alias("inputs_changed"),
        pl.when(~known)
        .then(None)
        .when(~changed)
        .then(pl.lit(0.0))
        .when(same_epoch)
        .then(first)
        .otherwise(None)
        .alias("from_inputs"),
        pl.when(~has)
        .then(None)
        .when(~known)
        .then(rubric)
        .when(~changed & ~same_epoch)
        .then(rubric + first)
        .otherwise(rubric)
        .alias("from_rubric"),
        pl.when(known)
        .then(~_same(pl.col("verdict_stored"), pl.col("verdict_a")) & changed)
        .otherwise(False)
        .alias("flipped_inputs"),
        pl.when(~has)
        .then(pl.lit("no stored score"))
        .when(~known)
        .then(pl.lit("the stored score has no input digest: the change since it cannot be split"))
        .when(changed & ~same_epoch)
        .then(pl.lit("stored under another epoch on other inputs: the change cannot be split"))
        .when(~changed & ~same_epoch)
        .then(pl.lit("stored under another epoch: counted as rubric"))
        .otherwise(pl.lit(None, pl.String))
        .alias("note"),
    ).drop("digest_stored")


# ---------------------------------------------------------------------------
# Threshold sweeps
# ---------------------------------------------------------------------------

_SWEEP = re.compile(r"^([A-Za-z_][\w]*)\.([A-Za-z_][\w]*)=([^:]+):([^:]+):([^:]+)$")


@dataclass(frozen=True)
class SweepSpec:
    """``DIMENSION.threshold=a:b:step``: the rubric part, its field, and the values."""

    dimension: str
    threshold: str
    values: tuple[float, ...]
    text: str = ""
    integral: bool = False

    @property
    def name(self) -> str:
        """``dimension.threshold``."""
        return f"{self.dimension}.{self.threshold}"


def _bad(text: str, why: str) -> InputError:
    return InputError(None, why, field="--sweep", value=text)


def _number(text: str, part: str, spec: str) -> float:
    try:
        if "_" in text:  # float() reads "1_0" as 10: a typo here, not a number
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise _bad(spec, f"{part} must be a number (DIMENSION.threshold=a:b:step)") from None
    if not math.isfinite(value):
        raise _bad(spec, f"{part} must be a finite number")
    return value


def parse_sweep(text: str, rubric: BaseModel | None = None) -> SweepSpec:
    """Parse ``DIMENSION.threshold=a:b:step`` (``a`` to ``b`` inclusive in steps of
    ``step``), checked against ``rubric`` (default: the simulation rubric): the
    dimension must be one of its parts and the threshold one of that part's numbers.

    Raises:
        InputError: one line naming ``--sweep`` and the value.
    """
    rubric = rubric or SimulationRubric()
    match = _SWEEP.match(text.strip())
    if match is None:
        raise _bad(
            text, "must be DIMENSION.threshold=a:b:step (e.g. groundedness.ok_min=0.8:1:0.05)"
        )
    dim, threshold = match.group(1), match.group(2)
    a, b, step = (_number(match.group(i), p, text) for i, p in ((3, "a"), (4, "b"), (5, "step")))
    part = getattr(rubric, dim, None)
    if not isinstance(part, BaseModel):
        parts = [k for k, v in rubric if isinstance(v, BaseModel)]
        raise _bad(text, f"no such rubric dimension {dim!r} (one of {', '.join(parts)})")
    current = getattr(part, threshold, None)
    if isinstance(current, bool) or not isinstance(current, int | float):
        numbers = [k for k, v in part if isinstance(v, int | float) and not isinstance(v, bool)]
        raise _bad(text, f"{dim} has no threshold {threshold!r} (one of {', '.join(numbers)})")
    values = _sweep_values(text, a, b, step)
    integral = isinstance(current, int)
    if integral and any(v != int(v) for v in values):
        raise _bad(text, f"{dim}.{threshold} is a whole number: give whole a, b and step")
    return SweepSpec(dim, threshold, values, text, integral)


def _sweep_values(text: str, a: float, b: float, step: float) -> tuple[float, ...]:
    """a, a + step, ... up to b (rounded to 10 decimals), at most :data:`MAX_SWEEP_POINTS`.

    Raises:
        InputError: b below a, a step that is not positive, more values than the limit
            (a range too wide for its step, however wide: never an overflow), or a step
            so small that rounded values repeat.
    """
    if step <= 0 or b < a:
        raise _bad(text, "need a <= b and a positive step")
    ratio = (b - a) / step
    count = math.floor(ratio + 1e-9) + 1 if math.isfinite(ratio) else None
    if count is None or count > MAX_SWEEP_POINTS:
        shown = (
            "too many"
            if count is None
            else (
                f"{count:,}" if count <= 10**6 else "more than 1,000,000"  # not 300 digits
            )
        )
        raise _bad(text, f"{shown} values: a sweep scores at most {MAX_SWEEP_POINTS}")
    values = tuple(dict.fromkeys(round(a + i * step, 10) for i in range(count)))
    if len(values) < count:
        raise _bad(text, "the step is below 1e-10: the values repeat once rounded")
    return values


def swept_rubric(base: SimulationRubric, spec: SweepSpec, value: float) -> SimulationRubric | str:
    """``base`` with ``spec``'s threshold set to ``value`` (its version marked
    ``+sweep``), or why that value makes no valid rubric (as a FAIL bound above its
    OK bound)."""
    data = base.model_dump(mode="json")
    data[spec.dimension][spec.threshold] = int(value) if spec.integral else value
    data["version"] = f"{base.version}+sweep"
    try:
        return SimulationRubric.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        return str(err["msg"]).removeprefix("Value error, ")


#: The parts of the outcome rubric a sweep can move: a band's ``min``, a signal's weight.
OUTCOME_SWEEP_PARTS = ("bands", "signals", "weights")


def parse_outcome_sweep(text: str, rubric: OutcomeRubric) -> SweepSpec:
    """Parse an outcome sweep: ``bands.BAND=a:b:step`` (the band's ``min``) or
    ``signals.SIGNAL=a:b:step`` (``weights.SIGNAL`` the same: the signal's weight), the
    names as the rubric YAML spells them.

    Raises:
        InputError: one line naming ``--sweep`` and the value.
    """
    match = _SWEEP.match(text.strip())
    if match is None:
        raise _bad(text, "must be bands.BAND=a:b:step or signals.SIGNAL=a:b:step "
                   "(e.g. bands.good=0.6:0.8:0.05)")  # fmt: skip
    part, name = match.group(1), match.group(2)
    a, b, step = (_number(match.group(i), p, text) for i, p in ((3, "a"), (4, "b"), (5, "step")))
    if part not in OUTCOME_SWEEP_PARTS:
        raise _bad(text, f"an outcome sweep moves bands.BAND or signals.SIGNAL, not {part!r}")
    if part == "bands" and name not in [x.band for x in rubric.bands]:
        known = ", ".join(x.band for x in rubric.bands)
        raise _bad(text, f"no band {name!r} in outcome {rubric.version} (one of {known})")
    if part != "bands" and name not in rubric.weights():
        known = ", ".join(rubric.weights())
        raise _bad(text, f"no signal {name!r} in outcome {rubric.version} (one of {known})")
    values = _sweep_values(text, a, b, step)
    return SweepSpec("bands" if part == "bands" else "signals", name, values, text)


def outcome_base_value(rubric: OutcomeRubric, spec: SweepSpec) -> float:
    """The swept number's value in ``rubric`` (a band's min, a signal's weight)."""
    if spec.dimension == "bands":
        return next(b.min for b in rubric.bands if b.band == spec.threshold)
    return rubric.weights()[spec.threshold]


def swept_outcome_rubric(base: OutcomeRubric, spec: SweepSpec, value: float) -> OutcomeRubric | str:
    """``base`` with ``spec``'s band min or signal weight set to ``value`` (its version
    marked ``+sweep``), or why that makes no valid rubric. A weight set to ``value``
    takes the others' weights down (or up) in proportion, so they still sum to 1."""
    data = base.model_dump(mode="json")
    if spec.dimension == "bands":
        for band in data["bands"]:
            if band["band"] == spec.threshold:
                band["min"] = value
    else:
        old = base.weights()[spec.threshold]
        if old >= 1.0 or value >= 1.0:
            return f"{spec.threshold} would weigh everything (the others need a weight)"
        scale = (1.0 - value) / (1.0 - old)
        for signal in data["signals"]:
            is_swept = signal["signal"] == spec.threshold
            signal["weight"] = value if is_swept else signal["weight"] * scale
    data["version"] = f"{base.version}+sweep"
    try:
        return OutcomeRubric.model_validate(data)
    except ValidationError as exc:
        return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")


def parse_discussion_sweep(text: str, rubric: DiscussionSpec) -> SweepSpec:
    """Parse a discussion sweep: ``metrics.METRIC=a:b:step``, the pass threshold of one
    metric of ``rubric`` (a score at or above it passes), named as the rubric YAML
    names it.

    Raises:
        InputError: one line naming ``--sweep`` and the value.
    """
    match = _SWEEP.match(text.strip())
    if match is None:
        raise _bad(text, "must be metrics.METRIC=a:b:step (e.g. metrics.engagement=2.5:4:0.5)")
    part, name = match.group(1), match.group(2)
    a, b, step = (_number(match.group(i), p, text) for i, p in ((3, "a"), (4, "b"), (5, "step")))
    if part != "metrics":
        raise _bad(
            text, f"a discussion sweep moves metrics.METRIC (a pass threshold), not {part!r}"
        )
    if name not in rubric.metrics:
        known = ", ".join(rubric.metrics)
        raise _bad(text, f"no metric {name!r} in discussion {rubric.version} (one of {known})")
    return SweepSpec("metrics", name, _sweep_values(text, a, b, step), text)


def swept_discussion_rubric(
    base: DiscussionSpec, spec: SweepSpec, value: float
) -> DiscussionSpec | str:
    """``base`` with metric ``spec.threshold``'s pass threshold set to ``value`` (its
    version marked ``+sweep``), or why that makes no valid rubric."""
    data = base.model_dump(mode="json")
    data["metrics"][spec.threshold]["threshold"] = value
    data["version"] = f"{base.version}+sweep"
    try:
        return DiscussionSpec.model_validate(data)
    except ValidationError as exc:
        return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")


@dataclass(frozen=True, repr=False)
class SweepResult(Shows):
    """How many verdicts flip at each value of one threshold.

    Attributes:
        spec: the sweep.
        base: the rubric's label the flips are counted against (and its value there).
        table: one row per value: ``value``, ``valid``, ``reason`` (why not valid),
            ``runs``, ``flips`` (verdicts unlike the base's), ``status_flips`` (the
            swept dimension's statuses unlike the base's), and one count column per
            verdict.
        verdicts: the verdict columns of ``table``, in order.
    """

    spec: SweepSpec
    base: str
    base_value: float
    table: pl.DataFrame
    verdicts: tuple[str, ...] = ()
    source: str = ""
    notes: tuple[str, ...] = field(default=())
    family: str = "simulation"

    def _summary(self) -> Summary:
        valid = self.table.filter(pl.col("valid"))
        rows = tuple(
            (f"{v:g}", plural(int(f), "flip"))
            for v, f in valid.select("value", "flips").iter_rows()
        )
        return Summary(
            "SweepResult",
            f"{self.spec.name} against {self.base} ({self.base_value:g})",
            (("values", self.table.height), ("invalid", self.table.height - valid.height)),
            notes=self.notes,
            notes_title="notes",
            columns=("value", "flips"),
            rows=rows,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolkit rescore --sweep --format json``."""
        return {
            "sweep": self.spec.name,
            "spec": self.spec.text,
            "family": self.family,
            "source": self.source,
            "base": self.base,
            "base_value": self.base_value,
            "values": [_clean(row) for row in self.table.to_dicts()],
            "notes": list(self.notes),
        }


def sweep_row(
    value: float,
    base: pl.DataFrame,
    swept: pl.DataFrame | str,
    dimension: str,
    verdicts: Sequence[str],
) -> dict[str, Any]:
    """One row of a sweep table: ``base`` and ``swept`` are the unit frames joined with
    the swept dimension's status (columns subject, verdict, status); ``swept`` is a
    reason when the value made no valid rubric."""
    row: dict[str, Any] = {
        "value": value,
        "valid": not isinstance(swept, str),
        "reason": swept if isinstance(swept, str) else None,
    }
    if isinstance(swept, str):
        return row | {"runs": None, "flips": None, "status_flips": None} | dict.fromkeys(verdicts)
    both = base.join(swept, on="subject", suffix="_new", maintain_order="left")
    row["runs"] = both.height
    row["flips"] = int((both["verdict"] != both["verdict_new"]).sum())
    row["status_flips"] = int((~both["status"].eq_missing(both["status_new"])).sum())
    counts = dict(swept.group_by("verdict").len().iter_rows())
    return row | {v: int(counts.get(v, 0)) for v in verdicts}


def sweep_over(
    values: Sequence[float],
    base: pl.DataFrame,
    at: Callable[[float], pl.DataFrame | str],
    dimension: str,
    verdicts: Sequence[str],
) -> pl.DataFrame:
    """The sweep table: one :func:`sweep_row` per value, ``at(value)`` the unit frame
    scored under the rubric with that value (or why there is none)."""
    return sweep_table([sweep_row(v, base, at(v), dimension, verdicts) for v in values], verdicts)


def verdicts_seen(base: pl.DataFrame, known: Sequence[str]) -> tuple[str, ...]:
    """``known`` verdicts in their order, then any other verdict ``base`` holds, in the
    order it first appears (a rubric may name bands of its own)."""
    seen = base["verdict"].unique(maintain_order=True)
    return tuple(known) + tuple(v for v in seen if v not in known)


def sweep_table(rows: Sequence[Mapping[str, Any]], verdicts: Sequence[str]) -> pl.DataFrame:
    """The rows of :func:`sweep_row` as a frame (typed even when every row is invalid)."""
    schema: dict[str, Any] = {
        "value": pl.Float64,
        "valid": pl.Boolean,
        "reason": pl.String,
        "runs": pl.Int64,
        "flips": pl.Int64,
        "status_flips": pl.Int64,
    }
    schema |= dict.fromkeys(verdicts, pl.Int64)
    return pl.DataFrame([dict(r) for r in rows], schema=schema)
