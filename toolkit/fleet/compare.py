"""``tk.compare`` and ``toolkit compare``: score two folders with their family's rubric,
then compare them (:mod:`toolkit.rubrics.compare`).

This module only wires the existing parts together: the fleet engine (local or Dask,
cached, local folders or object storage) for simulation runs, the iteration-log,
discussion and persona loaders and rubrics for the others. Each arm becomes the long
frame of :data:`toolkit.frames.COMPARE_SCORES_SCHEMA`; the statistics never see a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.epoch import Epoch, spec_epoch
from toolkit.errors import InputError
from toolkit.fleet.engine import (
    default_partition_size,
    map_partitions,
    partitions,
    score_fleet,
    score_runs,
)
from toolkit.fleet.find import chat_files, detect_family, find_iteration_logs, fleet_log_names
from toolkit.fleet.pairing import run_pair_keys
from toolkit.io.source import is_postgres_url, open_source
from toolkit.rubrics.compare import (
    DEFAULT_COMPARE_RUBRIC,
    EVAL_PASSED,
    FAMILIES,
    CompareResult,
    PassKResult,
    compare_scores,
    discussion_scores,
    eval_scores,
    load_compare_rubric,
    outcome_scores,
    pass_k,
    persona_scores,
    plan_pairs,
    simulation_scores,
)
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, SimulationRubric, load_simulation_rubric
from toolkit.rubrics.simulation.windows import scored_window

if TYPE_CHECKING:
    from toolkit.rubrics.outcome import OutcomeRubric

# The other families' loaders, rubrics and judges are imported where their arm is scored:
# importing them all cost a comparison of simulation runs about 0.3 s of CPU (their
# pydantic file models, the eval harnesses' readers), as much as its loads and statistics.

AUTO = "auto"


@dataclass(frozen=True)
class ArmScores:
    """One arm, scored: the long frame, what it is called, and notes for the reader."""

    frame: pl.DataFrame
    label: str
    family: str
    notes: tuple[str, ...] = ()
    epoch: Epoch | None = None


def _label(source: str | Path) -> str:
    text = str(source).rstrip("/")
    if is_postgres_url(text):  # a database: its name, never a query parameter
        text = text.split("?", 1)[0]
    return text.rsplit("/", 1)[-1] or text


def _simulation(
    source: str | Path,
    *,
    engine: str,
    scheduler: str | None,
    partition_size: int | None,
    cache: bool | str,
    storage_options: Mapping[str, Any] | None,
    window: int | None,
    rubric: SimulationRubric | None = None,
) -> ArmScores:
    notes: list[str] = []
    options = dict(storage_options or {})
    arm = open_source(source, options)
    single = arm.kind(arm.join(arm.root, "tick_summaries")) == "folder"
    if single:
        runs = [str(source)]
        cards = score_runs(runs, rubric, window, cache, options)
    else:
        fleet = score_fleet(
            source, engine=engine, scheduler=scheduler, partition_size=partition_size,
            window=window, cache=cache, storage_options=options, progress=False,
            rubric=rubric,
        )  # fmt: skip
        runs, cards = list(fleet.runs), fleet.cards
        notes.extend(f"{_label(source)}: {failure}" for failure in fleet.failures)
    keys, problems = run_pair_keys(runs, options)
    notes.extend(problems)
    by_slug = {_label(run): k for run, k in keys.items()}
    spec = rubric or DEFAULT_RUBRIC
    epoch = spec_epoch(spec, window=scored_window(window, spec))
    return ArmScores(simulation_scores(cards, by_slug), _label(source), "simulation",
                     tuple(notes), epoch)  # fmt: skip


def outcome_partition(
    logs: Sequence[str],
    names: Mapping[str, str],
    storage_options: Mapping[str, Any] | None,
    rubric: OutcomeRubric | None = None,
) -> list[pl.DataFrame]:
    """The unit of work of an outcome arm on either engine: load the logs ``logs`` (those
    in object storage in one batched fetch), score each with ``rubric`` (default: the
    outcome rubric 2.1.0) and turn it into compare's long frame, each log named by
    ``names``."""
    # the iteration-log loader and the outcome rubric: only an outcome arm pays them
    from toolkit.load.iterlog import load_iteration_logs
    from toolkit.load.outcome_evidence import collect_outcome_evidence
    from toolkit.rubrics.outcome import default_outcome_rubric, score_outcome

    rubric = rubric or default_outcome_rubric()
    out = []
    for path, log in zip(logs, load_iteration_logs(logs, storage_options=storage_options),
                         strict=True):  # fmt: skip
        result = score_outcome(log, collect_outcome_evidence(log), rubric)
        out.append(outcome_scores(names[path], result, log.iterations))
    return out


def _outcome(
    source: str | Path,
    storage_options: Mapping[str, Any] | None,
    *,
    engine: str,
    scheduler: str | None,
    partition_size: int | None,
    rubric: OutcomeRubric | None = None,
) -> ArmScores:
    logs = [str(p) for p in find_iteration_logs(source, storage_options=storage_options)]
    names = dict(zip(logs, fleet_log_names(source, logs, storage_options=storage_options),
                     strict=True))  # fmt: skip
    notes: list[str] = []
    if engine == "local":
        frames = outcome_partition(logs, names, storage_options, rubric)
    else:
        size = partition_size or default_partition_size(len(logs))
        frames, failures = map_partitions(
            outcome_partition, partitions(logs, size), names, dict(storage_options or {}), rubric,
            engine=engine, scheduler=scheduler, progress=False, desc="scoring iteration logs",
        )  # fmt: skip
        notes.extend(
            f"{_label(source)}: {failure} (its logs are missing from this arm)"
            for failure in failures
        )
    if not frames:
        raise InputError(source, "no iteration log could be scored")
    frame = pl.concat(frames, how="vertical")
    if frame["task"].null_count():
        untasked = frame.filter(pl.col("task").is_null())["run"].n_unique()
        notes.append(
            f"{_label(source)}: {untasked} iteration(s) name no task_id and cannot be paired"
        )
    from toolkit.rubrics.outcome import default_outcome_rubric  # as in outcome_partition

    spec = rubric or default_outcome_rubric()
    # the epoch's transcripts flag as score_outcome stamps it: compare gives no transcripts
    epoch = spec_epoch(spec, transcripts_given=False)
    return ArmScores(frame, _label(source), "outcome", tuple(notes), epoch)


def _eval(source: str | Path, storage_options: Mapping[str, Any] | None) -> ArmScores:
    """Eval-harness runs: each run's iteration scored, its verifier's verdict, its task."""
    from toolkit.fleet.eval_runs import score_eval_runs  # the harnesses' readers: ~0.1 s

    scored = score_eval_runs(source, storage_options=storage_options)
    agents = scored.runs.select("harness", "model").unique(maintain_order=True).rows()
    who = ", ".join(f"{h or '?'}/{m or '?'}" for h, m in agents)
    label = _label(source)
    if label in (".agents", "eval", "runs"):
        label = str(source)
    notes = list(scored.notes)
    if len(agents) > 1:
        notes.append(f"{label}: runs of {len(agents)} agents in one arm ({who})")
    return ArmScores(eval_scores(scored.runs), f"{label} ({who})", "eval", tuple(notes))


def _discussion(source: str | Path, ratings: str | Path | None) -> ArmScores:
    # the discussion loader, ratings and rubric (their models): only a discussion arm
    from toolkit.load.discussion import load_discussions
    from toolkit.load.ratings import open_rating_source
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.rubrics.discussion.epoch import discussion_epoch

    source_ratings = open_rating_source(ratings) if ratings else None
    report = score_discussion(load_discussions([source]), ratings=source_ratings)
    # the epoch the cards are stamped with (score_discussion's defaults, no judge)
    epoch = discussion_epoch(report.spec, None, require_cost=False, engagement="humans")
    return ArmScores(discussion_scores(report), _label(source), "discussion", (), epoch)


def _persona(
    source: str | Path,
    propositions: str | Path | None,
    judge: Any,
    personas: str | Path | None,
    rubric: str | Path | Mapping[str, Any] | None = None,
) -> ArmScores:
    if propositions is None or judge is None:
        raise InputError(
            source, "persona runs are judged: give --propositions DIR and --judge SPEC",
            field="--family", value="persona",
        )  # fmt: skip
    # the persona loader, rubric and judges (their models): only a persona arm
    from toolkit.fleet.rescore_persona import persona_rubric
    from toolkit.judge import judge_from_spec
    from toolkit.load.persona import load_chat, load_propositions
    from toolkit.rubrics.persona import persona_epoch, score_persona

    files = chat_files(source)
    props = load_propositions(propositions)
    the_judge = judge_from_spec(judge) if isinstance(judge, str) else judge
    spec = persona_rubric(rubric)  # the default, a published version by name, or a file
    frames = [
        persona_scores(score_persona(load_chat(f, personas=personas), props, the_judge,
                                     rubric=spec, progress=False))
        for f in files
    ]  # fmt: skip
    # the epoch score_persona stamps each card with: the rubric's data and the judge's basis
    epoch = persona_epoch(spec, the_judge)
    return ArmScores(pl.concat(frames, how="vertical"), _label(source), "persona", (), epoch)


def arm_scores(
    source: str | Path | pl.DataFrame,
    family: str = AUTO,
    *,
    engine: str = "local",
    scheduler: str | None = None,
    partition_size: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    window: int | None = None,
    ratings: str | Path | None = None,
    propositions: str | Path | None = None,
    judge: Any = None,
    personas: str | Path | None = None,
    family_rubric: str | Path | Mapping[str, Any] | None = None,
) -> ArmScores:
    """Score one arm: a folder (or URL, or chat file) of ``family`` runs, or an already
    built :data:`toolkit.frames.COMPARE_SCORES_SCHEMA` frame (returned as it is).

    ``family_rubric``: the rubric file (or mapping; for persona also a published version
    by name) a simulation, outcome or persona arm is scored with instead of its family's
    default; the arm's :class:`~toolkit.epoch.Epoch` says which it was.

    Raises:
        InputError: an unknown family, a family that cannot be told, or bad input.
    """
    if isinstance(source, pl.DataFrame):
        fam = str(source["family"][0]) if source.height else family
        return ArmScores(source, "frame", fam)
    if family != AUTO and family not in FAMILIES:
        raise InputError(
            None, f"must be auto or one of {', '.join(FAMILIES)}", field="--family", value=family
        )
    fam = detect_family(source, storage_options) if family == AUTO else family
    if fam == "simulation":
        sim = None if family_rubric is None else load_simulation_rubric(family_rubric)
        return _simulation(
            source, engine=engine, scheduler=scheduler, partition_size=partition_size,
            cache=cache, storage_options=storage_options, window=window, rubric=sim,
        )  # fmt: skip
    if fam == "outcome":
        from toolkit.rubrics.outcome import load_outcome_rubric  # as in outcome_partition

        out = None if family_rubric is None else load_outcome_rubric(family_rubric)
        return _outcome(source, storage_options, engine=engine, scheduler=scheduler,
                        partition_size=partition_size, rubric=out)  # fmt: skip
    if family_rubric is not None and fam != "persona":
        raise InputError(None, f"a rubric per arm is for simulation, outcome and persona runs, "
                         f"not {fam}", field="--rubric-a/--rubric-b",
                         value=str(family_rubric))  # fmt: skip
    if fam == "eval":
        return _eval(source, storage_options)
    if engine != "local":
        raise InputError(None, f"{fam} runs are scored here: --engine dask is for simulation "
                         "fleets and iteration logs", field="--engine", value=engine)  # fmt: skip
    if fam == "discussion":
        return _discussion(source, ratings)
    return _persona(source, propositions, judge, personas, family_rubric)


def compare(
    a: str | Path | pl.DataFrame,
    b: str | Path | pl.DataFrame,
    *,
    family: str = AUTO,
    pair_by: str | None = None,
    test: str = "wilcoxon",
    correction: str = "holm",
    alpha: float | None = None,
    level: float | None = None,
    seed: int = 0,
    resamples: int | None = None,
    directions: Mapping[str, int] | None = None,
    rubric: str | Path | Mapping[str, Any] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    partition_size: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    window: int | None = None,
    ratings: str | Path | None = None,
    propositions: str | Path | None = None,
    judge: Any = None,
    personas: str | Path | None = None,
    rubric_a: str | Path | Mapping[str, Any] | None = None,
    rubric_b: str | Path | Mapping[str, Any] | None = None,
    across_epochs: bool = False,
) -> CompareResult:
    """Is B better than A? Score both folders with their family's rubric and compare them
    dimension by dimension (see :func:`toolkit.rubrics.compare.compare_scores`).

    Args:
        a, b: the two sets of runs: folders or URLs (a fleet of simulation runs, a
            folder of iteration logs, of discussion games, of persona chats), or
            :data:`toolkit.frames.COMPARE_SCORES_SCHEMA` frames.
        family: ``auto`` (told from each folder), ``simulation``, ``outcome``,
            ``discussion`` or ``persona``.
        pair_by: a pairing key other than the family's (``seed``, ``slug``, ...).
        test, correction, alpha, level, seed, resamples, directions: see
            :func:`~toolkit.rubrics.compare.compare_scores`.
        rubric: a compare rubric YAML file (or mapping) over version 1.1.0 (alpha,
            level, resamples, directions).
        engine, scheduler, partition_size, cache, storage_options, window: how
            simulation fleets are loaded and scored (as ``toolkit quality --all``).
        ratings: a discussion ratings file or store.
        propositions, judge, personas: how persona chats are judged.
        rubric_a, rubric_b: the simulation, outcome or persona rubric (a file or mapping)
            each arm is scored with (default: the family's).
        across_epochs: compare arms scored under different epochs (:mod:`toolkit.epoch`);
            the result's notes then say what differs. Without it such arms are refused.

    Returns:
        A :class:`~toolkit.rubrics.compare.CompareResult`: per dimension both means,
        the paired difference with its bootstrap interval, the test, the corrected
        p-value, the effect size, the noise floor and the outcome (better, worse,
        within noise, ...); flips, pass^k and the noise floor as frames.

    Raises:
        InputError: bad input or options, arms of different families, or arms of
            different epochs without ``across_epochs``.
    """
    spec = DEFAULT_COMPARE_RUBRIC if rubric is None else load_compare_rubric(rubric)

    kwargs: dict[str, Any] = {
        "engine": engine, "scheduler": scheduler, "partition_size": partition_size,
        "cache": cache, "storage_options": storage_options, "window": window,
        "ratings": ratings, "propositions": propositions, "judge": judge,
        "personas": personas,
    }  # fmt: skip
    if judge is not None and isinstance(judge, str):
        from toolkit.judge import judge_from_spec  # as in _persona

        kwargs["judge"] = judge_from_spec(judge)
    arm_a = arm_scores(a, family, family_rubric=rubric_a, **kwargs)
    arm_b = arm_scores(b, arm_a.family if family == AUTO else family, family_rubric=rubric_b,
                       **kwargs)  # fmt: skip
    fence = epoch_fence(arm_a, arm_b, across_epochs)
    return compare_scores(
        arm_a.frame, arm_b.frame, family=arm_a.family, pair_by=pair_by, test=test,
        correction=correction, alpha=alpha, level=level, seed=seed, resamples=resamples,
        directions=directions, labels=(arm_a.label, arm_b.label),
        notes=(*fence, *arm_a.notes, *arm_b.notes), rubric=spec,
        arm_epochs=(_epoch_id(arm_a.epoch), _epoch_id(arm_b.epoch)),
    )  # fmt: skip


def _epoch_id(epoch: Epoch | None) -> str | None:
    return None if epoch is None else epoch.id


def epoch_fence(arm_a: ArmScores, arm_b: ArmScores, across_epochs: bool = False) -> list[str]:
    """The fence between two arms: nothing when both were scored under one epoch (or
    either epoch is unknown, as for a frame given whole); with ``across_epochs``, a note
    naming both epochs and every parameter that differs.

    Raises:
        InputError: the epochs differ and ``across_epochs`` is not set (the line names
            both epochs and what differs).
    """
    if arm_a.epoch is None or arm_b.epoch is None or arm_a.epoch.id == arm_b.epoch.id:
        return []
    differs = "; ".join(arm_a.epoch.differences(arm_b.epoch))
    said = f"A ({arm_a.label}) epoch {arm_a.epoch.id}, B ({arm_b.label}) epoch {arm_b.epoch.id}"
    if not across_epochs:
        raise InputError(
            None,
            f"the arms were scored under different epochs, so their numbers are not comparable "
            f"({said}; differs: {differs}); give --across-epochs to compare them anyway",
        )
    return [f"compared across epochs: {said}; differs: {differs}"]


def compare_plan(
    a: str | Path | pl.DataFrame,
    mde: float,
    *,
    family: str = AUTO,
    standardized: bool = False,
    power: float = 0.8,
    alpha: float = 0.05,
    test: str = "wilcoxon",
    **load: Any,
) -> pl.DataFrame:
    """Pairs per arm to find a difference of ``mde`` with ``power`` (see
    :func:`toolkit.rubrics.compare.plan_pairs`), from the pilot set ``a`` (a folder or
    a scores frame; ``load`` as for :func:`compare`).

    Returns:
        :data:`toolkit.frames.COMPARE_PLAN_SCHEMA`: dimension, mde, sd_diff, source,
        pairs, note.
    """
    arm = arm_scores(a, family, **load)
    return plan_pairs(arm.frame, mde, standardized=standardized, power=power, alpha=alpha,
                      test=test)  # fmt: skip


def scores_of(sources: Sequence[str | Path], family: str = AUTO, **load: Any) -> pl.DataFrame:
    """Several folders of one family, scored and stacked into one long frame (e.g. to
    split one fleet into halves for an A/A check)."""
    return pl.concat([arm_scores(s, family, **load).frame for s in sources], how="vertical")


def trials_of(
    source: str | Path, family: str = AUTO, **load: Any
) -> tuple[pl.DataFrame, list[str]]:
    """The per-trial frame (:data:`toolkit.frames.PASS_K_TRIALS_SCHEMA`) of a folder of
    runs, and notes: for eval-harness runs a task is its ``task_id``, a trial a run and
    its verdict ``verify.passed``; for the other families a task is the comparison's unit
    and the verdict its pass/fail row (``load`` as for :func:`compare`).

    Raises:
        InputError: no runs, or runs without a pass/fail verdict.
    """
    arm = arm_scores(source, family, **load)
    judged = arm.frame.filter(pl.col("passed").is_not_null())
    if judged.is_empty():
        raise InputError(source, f"no run with a pass/fail verdict ({arm.family} runs)")
    dims = judged["dimension"].unique(maintain_order=True).to_list()
    dim = EVAL_PASSED if EVAL_PASSED in dims else dims[0]
    notes = [*arm.notes]
    if arm.family == "eval":
        notes.append("a trial is a run; it passed when its verify.passed is true")
    else:
        notes.append(f"a trial is a run; it passed when its {dim} passed")
    frame = judged.filter(pl.col("dimension") == dim).select(
        pl.col("unit").alias("task"), pl.col("run").alias("trial"), "passed",
        pl.lit(None, pl.Float64()).alias("reward"),
    )  # fmt: skip
    return frame, notes


def pass_k_of(
    source: str | Path,
    *,
    family: str = AUTO,
    level: float | None = None,
    resamples: int | None = None,
    seed: int = 0,
    rubric: str | Path | Mapping[str, Any] | None = None,
    **load: Any,
) -> PassKResult:
    """pass^1 .. pass^n of one set of runs: a ``.csv`` or ``.jsonl`` file of trials
    (:func:`toolkit.load.trials.read_trials`) or a folder of runs (:func:`trials_of`),
    with bootstrap intervals over tasks (the rubric's level and resamples unless given).

    Raises:
        InputError: bad input, one line.
    """
    spec = DEFAULT_COMPARE_RUBRIC if rubric is None else load_compare_rubric(rubric)
    src = open_source(source, load.get("storage_options"))
    if src.kind() == "file":
        from toolkit.load.trials import read_trials  # a trials file only: as in _eval

        frame, notes = read_trials(source, storage_options=load.get("storage_options")), []
        notes.append("a trial passed when its passed is true, else when its reward is within "
                     "1e-6 of 1 (tau-bench)")  # fmt: skip
    else:
        frame, notes = trials_of(source, family, **load)
    return pass_k(
        frame, label=_label(source), level=spec.level if level is None else level,
        resamples=spec.resamples if resamples is None else resamples, seed=seed, notes=notes,
    )  # fmt: skip
