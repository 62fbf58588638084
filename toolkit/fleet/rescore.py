"""``tk.rescore``, ``tk.sweep`` and ``toolkit rescore``: score the same inputs under two
rubrics (load once, score twice) and say what moved; sweep one threshold of the
simulation rubric over an already-loaded fleet.

The loading and scoring are the families' own (the fleet loader and
:func:`toolkit.rubrics.simulation.score_universe`; the iteration-log loader, its evidence
and :func:`toolkit.rubrics.outcome.score_outcome`); the comparison is
:mod:`toolkit.rubrics.rescore`'s. A rubric is named as ``toolkit compare --rubric-a``
names it (a YAML file, read by the family's own loader), or by a published version:
``1.2.0`` (simulation), ``2.1.0`` / ``3.0.0`` (outcome, dot-agents' versions).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.epoch import EPOCH_KEY, INPUTS_KEY, Epoch, spec_epoch
from toolkit.errors import InputError
from toolkit.fleet.find import (
    detect_family,
    find_iteration_logs,
    fleet_log_names,
    fleet_runs,
)
from toolkit.fleet.rescore_discussion import rescore_discussion, sweep_discussion
from toolkit.io.edge import decode_text, parse_yaml_text
from toolkit.io.source import open_source
from toolkit.load.iterlog import IterationLog, load_iteration_log
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.load.universe import Universe, load_runs
from toolkit.rubrics._plain_values import PlainValues
from toolkit.rubrics.outcome import (
    OutcomeResult,
    OutcomeRubric,
    load_outcome_rubric,
    score_outcome,
)
from toolkit.rubrics.outcome.spec import NAMED_RUBRICS
from toolkit.rubrics.rescore import (
    RescoreResult,
    Scored,
    SweepResult,
    outcome_base_value,
    parse_outcome_sweep,
    parse_sweep,
    rescore_diff,
    sweep_over,
    swept_outcome_rubric,
    swept_rubric,
    verdicts_seen,
)
from toolkit.rubrics.simulation import (
    DEFAULT_RUBRIC,
    PUBLISHED,
    SimulationRubric,
    load_simulation_rubric,
    score_universe,
)
from toolkit.rubrics.simulation.windows import scored_window
from toolkit.scorecard import Scorecard, scorecards_frame
from toolkit.sidecars import iteration_sidecar_path

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
#: The simulation verdicts, in the order a sweep table shows their counts.
SIM_VERDICTS = ("HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT DATA")
RubricArg = str | Path | Mapping[str, Any] | SimulationRubric | OutcomeRubric | None


def simulation_rubric(spec: RubricArg) -> SimulationRubric:
    """A simulation rubric: a published version by name (``1.2.0``), or a file or
    mapping read by :func:`toolkit.rubrics.simulation.load_simulation_rubric`."""
    if spec is None:
        return DEFAULT_RUBRIC
    if isinstance(spec, SimulationRubric):
        return spec
    if isinstance(spec, PlainValues):  # a scorecard's own rubric (``DEFAULT_VALUES``)
        return SimulationRubric.model_validate(spec.model_dump())
    if isinstance(spec, OutcomeRubric):
        raise InputError(
            None, "an outcome rubric for simulation runs", field="--rubric", value=spec.version
        )
    if isinstance(spec, str) and spec in PUBLISHED:
        return PUBLISHED[spec]
    if isinstance(spec, str) and _VERSION.match(spec) and not Path(spec).exists():
        known = ", ".join(PUBLISHED)
        raise InputError(
            None,
            f"no published simulation rubric of that version ({known}, or a YAML file)",
            field="--rubric",
            value=spec,
        )
    return load_simulation_rubric(spec)


def outcome_rubric(spec: RubricArg) -> OutcomeRubric:
    """An outcome rubric: ``2.1.0`` / ``3.0.0`` (dot-agents' published versions), their
    full names (``dot-agents-3.0.0``), or a file or mapping read by
    :func:`toolkit.rubrics.outcome.load_outcome_rubric`."""
    if isinstance(spec, OutcomeRubric):
        return spec
    if isinstance(spec, SimulationRubric):
        raise InputError(
            None, "a simulation rubric for iteration logs", field="--rubric", value=spec.version
        )
    if isinstance(spec, str) and _VERSION.match(spec) and not Path(spec).exists():
        if f"dot-agents-{spec}" not in NAMED_RUBRICS:
            known = ", ".join(n.removeprefix("dot-agents-") for n in NAMED_RUBRICS)
            raise InputError(
                None,
                f"no published outcome rubric of that version ({known}, or a YAML file)",
                field="--rubric",
                value=spec,
            )
        spec = f"dot-agents-{spec}"
    return load_outcome_rubric(spec)


# ---------------------------------------------------------------------------
# Simulation
# ---------------------------------------------------------------------------


def load_simulation_runs(
    source: str | Path,
    *,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """One run folder, or every run of a fleet folder, loaded once (through the Parquet
    cache when ``cache`` is given)."""
    options = dict(storage_options or {})
    where = open_source(source, options)
    single = where.kind(where.join(where.root, "tick_summaries")) == "folder"
    runs = [str(source)] if single else fleet_runs(source, options)
    return load_runs(runs, cache=cache, storage_options=options)


def simulation_side(cards: Sequence[Scorecard], label: str, epoch: Epoch) -> Scored:
    """The scores of a fleet's cards as one side of a re-score."""
    units = pl.DataFrame(
        {
            "subject": [c.subject for c in cards],
            "value": [None] * len(cards),
            "verdict": [c.verdict for c in cards],
            "epoch": [str(c.meta.get(EPOCH_KEY) or epoch.id) for c in cards],
            "input_digest": [c.meta.get(INPUTS_KEY) for c in cards],
        },
        schema=Scored.of([], [], "").units.schema,
    )
    frame = scorecards_frame(cards)
    dims = frame.select(
        "subject",
        "dimension",
        pl.col("value").cast(pl.Float64),
        "status",
        pl.lit(None, pl.Float64).alias("weight"),
    )
    return Scored(units, dims, label, epoch)


def _label(rubric: Any) -> str:
    return f"{rubric.rubric} {rubric.version}"


def _score_simulation(
    universe: Universe,
    rubric: SimulationRubric,
    window: int | None,
    earlier: Sequence[Scorecard] = (),
) -> tuple[list[Scorecard], Epoch]:
    """Score the loaded runs; ``earlier`` cards of the same runs lend their input
    digests (the rows did not change between two scorings of one load)."""
    w = scored_window(window, rubric)
    digests = {c.subject: str(c.meta[INPUTS_KEY]) for c in earlier if c.meta.get(INPUTS_KEY)}
    cards = score_universe(
        universe, rubric, window, series=False, inputs=digests if earlier else None
    )
    return cards, spec_epoch(rubric, window=w)


def stored_simulation(path: str | Path) -> Scored:
    """Scores the toolkit saved earlier (``toolkit quality RUN --format json``, one card
    or a list of them, in a file or every ``*.json`` of a folder), as a side."""
    where = Path(path)
    files = sorted(where.glob("*.json")) if where.is_dir() else [where]
    units: list[dict[str, Any]] = []
    dims: list[dict[str, Any]] = []
    for file in files:
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(
                file, f"cannot read the stored scores ({exc})", field="--stored"
            ) from None
        cards = (
            doc
            if isinstance(doc, list)
            else (doc.get("cards", [doc]) if isinstance(doc, Mapping) else None)
        )
        if not isinstance(cards, list):
            raise InputError(file, "not a scorecard of toolkit quality --format json (nor a "
                             "list of them)", field="--stored", value=str(doc)[:40])  # fmt: skip
        for card in cards:
            if not isinstance(card, Mapping) or "verdict" not in card:
                raise InputError(
                    file,
                    "not a scorecard of toolkit quality --format json",
                    field="--stored",
                    value=str(card)[:40],
                )
            subject = str(card.get("subject") or card.get("slug"))
            units.append(
                {
                    "subject": subject,
                    "verdict": _text(file, subject, "verdict", card["verdict"]),
                    "epoch": _text(file, subject, EPOCH_KEY, card.get(EPOCH_KEY)),
                    "input_digest": _text(file, subject, INPUTS_KEY, card.get(INPUTS_KEY)),
                }
            )
            shown = card.get("dimensions", [])
            if not isinstance(shown, list) or not all(isinstance(d, Mapping) for d in shown):
                raise InputError(file, f"{subject}: dimensions must be a list of objects",
                                 field="dimensions", value=str(shown)[:40])  # fmt: skip
            dims.extend(
                {
                    "subject": subject,
                    "dimension": _text(file, subject, "dimensions.key", d.get("key")),
                    "value": _number(file, subject, f"dimensions.{d.get('key')}.score",
                                     d.get("score")),
                    "status": _text(file, subject, f"dimensions.{d.get('key')}.status",
                                    d.get("status")),
                }
                for d in shown
            )  # fmt: skip
    return Scored.of(units, dims, "stored")


def _text(file: str | Path, subject: str, field: str, value: Any) -> str | None:
    """A stored text field (a verdict, an epoch, a digest), or None; else one line."""
    if value is None or isinstance(value, str):
        return value
    raise InputError(file, f"{subject}: must be text", field=field, value=value)


def _number(file: str | Path, subject: str, field: str, value: Any) -> float | None:
    """A stored score (a finite number), or None; else one line (NaN would spread
    through every mean change)."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise InputError(file, f"{subject}: must be a finite number", field=field, value=value)


def rescore_simulation(
    source: str | Path,
    rubric_a: RubricArg,
    rubric_b: RubricArg,
    *,
    window: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    stored: str | Path | None = None,
) -> RescoreResult:
    """Load the runs once, score them under A and under B, and compare."""
    a, b = simulation_rubric(rubric_a), simulation_rubric(rubric_b)
    universe = load_simulation_runs(source, cache=cache, storage_options=storage_options)
    cards_a, epoch_a = _score_simulation(universe, a, window)
    cards_b, epoch_b = _score_simulation(universe, b, window, cards_a)
    return rescore_diff(
        simulation_side(cards_a, _label(a), epoch_a),
        simulation_side(cards_b, _label(b), epoch_b),
        stored=None if stored is None else stored_simulation(stored),
        family="simulation",
        source=str(source),
        differences=epoch_a.differences(epoch_b),
    )


def sweep(
    source: str | Path | Universe,
    spec: str,
    *,
    rubric: RubricArg = None,
    window: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
) -> SweepResult:
    """``DIMENSION.threshold=a:b:step`` over a fleet: load it once (or take an already
    loaded :class:`~toolkit.load.universe.Universe`), score it under ``rubric`` and
    once per value, and count the verdicts that flip against ``rubric``'s.

    For an outcome iteration log (or a folder of them) the spec is
    ``bands.BAND=a:b:step`` or ``signals.SIGNAL=a:b:step`` (:func:`sweep_outcome`); for
    discussion games ``metrics.METRIC=a:b:step``
    (:func:`toolkit.fleet.rescore_discussion.sweep_discussion`).

    Raises:
        InputError: a malformed spec (one line naming ``--sweep``), or bad runs.
    """
    if not isinstance(source, Universe):
        family = detect_family(source, storage_options)
        if family == "outcome":
            return sweep_outcome(source, spec, rubric=rubric, storage_options=storage_options)
        if family == "discussion":  # no ratings or judge here: sweep_discussion takes them
            return sweep_discussion(source, spec, rubric=rubric)  # type: ignore[arg-type]
    base = simulation_rubric(rubric)
    parsed = parse_sweep(spec, base)
    universe = (
        source
        if isinstance(source, Universe)
        else load_simulation_runs(source, cache=cache, storage_options=storage_options)
    )
    cards, _ = _score_simulation(universe, base, window)

    def at(value: float) -> pl.DataFrame | str:
        swept = swept_rubric(base, parsed, value)
        if isinstance(swept, str):
            return swept
        return _verdicts(_score_simulation(universe, swept, window, cards)[0], parsed.dimension)

    table = sweep_over(parsed.values, _verdicts(cards, parsed.dimension), at, parsed.dimension,
                       SIM_VERDICTS)  # fmt: skip
    where = "a loaded fleet" if isinstance(source, Universe) else str(source)
    base_value = float(getattr(getattr(base, parsed.dimension), parsed.threshold))
    return SweepResult(parsed, _label(base), base_value, table, SIM_VERDICTS, where)


def _verdicts(cards: Sequence[Scorecard], dimension: str) -> pl.DataFrame:
    """subject, verdict and ``dimension``'s status of each card."""
    statuses = scorecards_frame(cards).filter(pl.col("dimension") == dimension)
    units = pl.DataFrame(
        {"subject": [c.subject for c in cards], "verdict": [c.verdict for c in cards]}
    )
    return units.join(
        statuses.select("subject", "status"), on="subject", how="left", maintain_order="left"
    )


# ---------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------


def _outcome_logs(
    source: str | Path, storage_options: Mapping[str, Any] | None
) -> list[tuple[str, IterationLog]]:
    logs = [str(p) for p in find_iteration_logs(source, storage_options=storage_options)]
    if not logs:
        raise InputError(source, "no iteration log (iter-N.yaml) under this folder")
    names = fleet_log_names(source, logs, storage_options=storage_options)
    out = [
        (n, load_iteration_log(p, storage_options=storage_options))
        for n, p in zip(names, logs, strict=True)
    ]
    return [(n if len(out) > 1 else "", log) for n, log in out]


def _subject(name: str, iteration: int) -> str:
    return f"{name}:{iteration}" if name else str(iteration)


def outcome_side(results: Sequence[tuple[str, OutcomeResult]], label: str, epoch: Epoch) -> Scored:
    """The scores of iteration logs (each named, ``""`` for a lone log) as one side."""
    units: list[dict[str, Any]] = []
    dims: list[dict[str, Any]] = []
    for name, result in results:
        for row in result.scores.iter_rows(named=True):
            n = int(row["iteration"])
            units.append(
                {
                    "subject": _subject(name, n),
                    "value": row["value"],
                    "verdict": row["band"],
                    "epoch": result.epoch,
                    "input_digest": result.input_digests.get(n),
                }
            )
        for row in result.breakdown.iter_rows(named=True):
            dims.append(
                {
                    "subject": _subject(name, int(row["iteration"])),
                    "dimension": row["signal"],
                    "value": row["sub_score"],
                    "status": "present" if row["present"] else "absent",
                    "weight": row["effective_weight"],
                }
            )
    return Scored.of(units, dims, label, epoch)


def stored_outcome(logs: Sequence[tuple[str, IterationLog]]) -> Scored | None:
    """The score sidecars beside the logs (``iter-N.score.yaml``, named by
    :func:`toolkit.sidecars.iteration_sidecar_path`), as a side; ``None`` when no log
    has one."""
    units: list[dict[str, Any]] = []
    dims: list[dict[str, Any]] = []
    for name, log in logs:
        names = [iteration_sidecar_path("", int(n)).name for n in log.iterations["iteration"]]
        wanted = [log.source.join(str(log.root), name) for name in names]
        for path, blob in log.source.fetch(wanted).items():
            if isinstance(blob, InputError):  # no sidecar for this iteration
                continue
            where = log.source.url(path)
            data = parse_yaml_text(decode_text(blob, where), where)
            if not isinstance(data, Mapping) or "iteration" not in data:
                continue
            number = data["iteration"]
            if type(number) is not int:
                raise InputError(where, "must be a whole number", field="iteration", value=number)
            subject = _subject(name, number)
            own = data.get("toolkit") or {}
            breakdown = data.get("breakdown") or []
            for field, value, kind in (("toolkit", own, Mapping), ("breakdown", breakdown, list)):
                if not isinstance(value, kind) or (
                    field == "breakdown" and not all(isinstance(b, Mapping) for b in value)
                ):
                    raise InputError(where, f"{subject}: not as the sidecar writes it",
                                     field=field, value=str(value)[:40])  # fmt: skip
            scored = bool(data.get("scored", True))
            units.append(
                {
                    "subject": subject,
                    "value": _number(where, subject, "value", data.get("value")) if scored
                    else None,
                    "verdict": _text(where, subject, "band", data.get("band")),
                    "epoch": _text(where, subject, "toolkit.epoch", own.get("epoch")),
                    "input_digest": _text(where, subject, "toolkit.input_digest",
                                          own.get("input_digest")),
                }
            )  # fmt: skip
            dims.extend(
                {
                    "subject": subject,
                    "dimension": _text(where, subject, "breakdown.signal", b.get("signal")),
                    "value": _number(where, subject, f"breakdown.{b.get('signal')}.sub_score",
                                     b.get("sub_score")),
                    "status": "present" if b.get("present") else "absent",
                    "weight": _number(where, subject,
                                      f"breakdown.{b.get('signal')}.effective_weight",
                                      b.get("effective_weight")),
                }
                for b in breakdown
            )  # fmt: skip
    return Scored.of(units, dims, "stored") if units else None


def rescore_outcome(
    source: str | Path,
    rubric_a: RubricArg,
    rubric_b: RubricArg,
    *,
    repo: str | Path | None = None,
    transcripts: Sequence[str | Path] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> RescoreResult:
    """Load each iteration log and its evidence once, score it under A and under B,
    and compare; the score sidecars beside the logs, if any, split each change."""
    a, b = outcome_rubric(rubric_a), outcome_rubric(rubric_b)
    logs = _outcome_logs(source, storage_options)
    scored_a, scored_b = [], []
    given = bool(transcripts)
    for name, log in logs:
        evidence = collect_outcome_evidence(log, repo=repo, transcripts=list(transcripts))
        scored_a.append((name, score_outcome(log, evidence, a)))
        scored_b.append((name, score_outcome(log, evidence, b)))
        given = evidence.transcripts_given
    epoch_a = spec_epoch(a, transcripts_given=given)
    epoch_b = spec_epoch(b, transcripts_given=given)
    return rescore_diff(
        outcome_side(scored_a, _label(a), epoch_a),
        outcome_side(scored_b, _label(b), epoch_b),
        stored=stored_outcome(logs),
        family="outcome",
        source=str(source),
        differences=epoch_a.differences(epoch_b),
    )


def _bands(results: Sequence[tuple[str, OutcomeResult]]) -> pl.DataFrame:
    """subject and band of every iteration (``status`` null: a band or weight moves no
    signal's presence)."""
    rows = [
        {"subject": _subject(name, int(r["iteration"])), "verdict": r["band"], "status": None}
        for name, result in results
        for r in result.scores.iter_rows(named=True)
    ]
    schema = {"subject": pl.String, "verdict": pl.String, "status": pl.String}
    return pl.DataFrame(rows, schema=schema)


def sweep_outcome(
    source: str | Path,
    spec: str,
    *,
    rubric: RubricArg = None,
    repo: str | Path | None = None,
    transcripts: Sequence[str | Path] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> SweepResult:
    """``bands.BAND=a:b:step`` or ``signals.SIGNAL=a:b:step`` over iteration logs: load
    each log and its evidence once, score it under ``rubric`` (default dot-agents 2.1.0)
    and once per value, and count the iterations whose band differs from ``rubric``'s.
    A swept weight takes the other signals' weights in proportion (they sum to 1).

    Raises:
        InputError: a malformed spec (one line naming ``--sweep``), or a bad log.
    """
    base = outcome_rubric(rubric if rubric is not None else "2.1.0")
    parsed = parse_outcome_sweep(spec, base)
    logs = _outcome_logs(source, storage_options)
    evidence = [
        collect_outcome_evidence(log, repo=repo, transcripts=list(transcripts)) for _, log in logs
    ]

    def scored(r: OutcomeRubric) -> pl.DataFrame:
        return _bands(
            [(n, score_outcome(log, ev, r)) for (n, log), ev in zip(logs, evidence, strict=True)]
        )

    def at(value: float) -> pl.DataFrame | str:
        swept = swept_outcome_rubric(base, parsed, value)
        return swept if isinstance(swept, str) else scored(swept)

    base_frame = scored(base)
    verdicts = verdicts_seen(base_frame, [b.band for b in base.bands])
    return SweepResult(
        parsed,
        _label(base),
        outcome_base_value(base, parsed),
        sweep_over(parsed.values, base_frame, at, parsed.dimension, verdicts),
        verdicts,
        str(source),
        family="outcome",
    )


# ---------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------


def rescore(
    source: str | Path,
    rubric_a: RubricArg = None,
    rubric_b: RubricArg = None,
    *,
    family: str = "auto",
    window: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    stored: str | Path | None = None,
    repo: str | Path | None = None,
    transcripts: Sequence[str | Path] = (),
) -> RescoreResult:
    """Score the runs of ``source`` under rubric A and rubric B and report what moved:
    per run and overall, every dimension's change, verdict (or band) flips and, where
    stored scores exist (outcome sidecars beside the logs; simulation ``stored``, the
    JSON of ``toolkit quality RUN --format json``), how much of each change since comes
    from the rubric and how much from changed inputs.

    Args:
        source: a run folder or fleet folder (simulation), an iteration log or a
            folder of them (outcome), games (discussion: no judge here; with a judge,
            :func:`toolkit.fleet.rescore_discussion.rescore_discussion`).
        rubric_a, rubric_b: a published version (``1.2.0``; ``2.1.0``, ``3.0.0``), a
            YAML file, a mapping or a rubric object; ``None`` the family's default.

    Example:
        >>> tk.rescore("sample_runs/iteration_logs/tally-loop", "2.1.0", "3.0.0")  # doctest: +SKIP
    """
    fam = detect_family(source, storage_options) if family == "auto" else family
    if fam == "simulation":
        return rescore_simulation(
            source,
            rubric_a,
            rubric_b,
            window=window,
            cache=cache,
            storage_options=storage_options,
            stored=stored,
        )
    if fam == "outcome":
        if stored is not None:
            raise InputError(
                None,
                "outcome scores are stored beside the log (iter-N.score.yaml)",
                field="--stored",
                value=str(stored),
            )
        return rescore_outcome(
            source,
            rubric_a,
            rubric_b,
            repo=repo,
            transcripts=transcripts,
            storage_options=storage_options,
        )
    if fam == "discussion":
        return rescore_discussion(source, rubric_a, rubric_b)  # type: ignore[arg-type]
    raise InputError(
        source,
        f"toolkit rescore --rubric scores simulation, outcome and discussion runs, not "
        f"{fam} (persona runs: --judge A --judge B)",
        field="--family",
        value=fam,
    )
