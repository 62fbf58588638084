"""Find, load and score everything under some folders for the site: the finder
(:func:`toolkit.fleet.find.survey`) names each run's family, each family's module builds
its site records, and what could not be read is kept as a note, never dropped silently."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolkit.errors import InputError, InputWarning, ToolkitError
from toolkit.fleet.families import AGENT_TRANSCRIPT, Found, PersonaKit
from toolkit.fleet.find import kit_for, session_of, survey
from toolkit.fleet.view.common import what
from toolkit.fleet.view.discussion import discussion_runs, ratings_beside
from toolkit.fleet.view.experiments import experiment_page
from toolkit.fleet.view.links import LinkTarget
from toolkit.fleet.view.memo import Entry, Memo, Stamp, stamp_of
from toolkit.fleet.view.outcome import outcome_runs
from toolkit.fleet.view.persona import persona_runs
from toolkit.fleet.view.results import load_calibration
from toolkit.fleet.view.simulation import simulation_runs
from toolkit.fleet.view.staging import is_one_object, kit_paths, staged, staged_kit
from toolkit.io.source import open_source, redact_uri
from toolkit.io.staging import shown
from toolkit.load.ratings import RatingSource, open_rating_source
from toolkit.views.site import SiteRun


@dataclass
class Collected:
    """The site's runs, and notes on what was left out or read leniently.

    Streamed (a ``sink`` given to :func:`collect`), ``runs`` is empty: each run went to
    the sink as it was made, and ``targets`` holds what a calibration's links need of
    each (:func:`~toolkit.fleet.view.links.calibration_links` reads either).
    """

    runs: list[SiteRun]
    notes: list[str]
    #: A ``toolkit calibrate --format json`` result found beside the runs, and its path.
    calibration: dict[str, Any] | None = None
    calibration_source: str | None = None
    #: Treatment-vs-control results found beside the runs (the experiments' page), each
    #: as :func:`~toolkit.fleet.view.experiments.experiment_page` reads it.
    experiments: list[dict[str, Any]] = field(default_factory=list)
    #: Streamed: each run as a calibration's links read it, in order (else empty).
    targets: list[LinkTarget] = field(default_factory=list)
    #: Streamed: how many runs went to the sink (else ``None``).
    streamed: int | None = None

    @property
    def count(self) -> int:
        """How many runs the site has (streamed or held)."""
        return len(self.runs) if self.streamed is None else self.streamed

    def linkable(self) -> Sequence[SiteRun | LinkTarget]:
        """The runs as a calibration's links read them (held runs, or their targets)."""
        return self.runs if self.streamed is None else self.targets


#: Where :func:`collect` hands each run as it is made (``SiteWriter.add``).
Sink = Callable[[SiteRun], None]


def collect(
    sources: Sequence[str | Path],
    storage_options: Mapping[str, Any] | None = None,
    kit: PersonaKit | None = None,
    repo: str | Path | None = None,
    ratings: str | Path | None = None,
    memo: Memo | None = None,
    sink: Sink | None = None,
) -> Collected:
    """Find, load and score everything under ``sources`` for the site.

    Args:
        sources: folders, files or fsspec URLs.
        storage_options: fsspec options for the URLs.
        kit: the persona kit for chats that have none of their own (a folder holding
            ``propositions/`` and ``cassette.json`` is the kit of the chats under it).
            Chats are judged only by recorded judges: ``toolkit view`` makes no live call.
        repo: the git repository of the iteration logs' commits (as ``toolkit outcome
            --repo``); without it their git facts are missing, as on the command line.
        ratings: engagement ratings for every game (as ``toolkit discussion
            --ratings``); without it, a ratings file beside a game file
            (:data:`~toolkit.fleet.view.discussion.RATINGS_BESIDE`) scores its games.
        memo: the records of earlier rounds (``toolkit view --watch``): a find whose
            files are unchanged since is replayed from it, not loaded and scored again;
            what is scored now is kept in it.
        sink: called with each run as soon as it is made (its source and id as the
            site shows them), in the site's order, instead of holding every run: a
            fleet's records are written one by one (``SiteWriter.add``), never all held.
            Not with ``memo`` (a memo holds every run anyway).

    Returns:
        The runs (simulation runs first, then iteration logs, games and chats, each in
        path order) and the notes on what was left out.

    Raises:
        InputError: a source does not exist, or nothing at all was found in them.
        ValueError: both ``memo`` and ``sink`` are given.
    """
    if memo is not None and sink is not None:
        raise ValueError("collect: a memo holds every run; give a memo or a sink, not both")
    evidence = _Evidence(repo, open_rating_source(ratings) if ratings is not None else None)
    evidence.given = None if ratings is None else str(ratings)
    with tempfile.TemporaryDirectory(prefix="toolkit-view-") as tmp:
        return _collect(sources, storage_options, kit, Path(tmp), evidence, memo, sink)


@dataclass
class _Evidence:
    """What the commands are given beside the runs: the repository of the iteration logs
    and the games' ratings (given, or found beside each game file and opened once)."""

    repo: str | Path | None = None
    ratings: RatingSource | None = None
    found: dict[str, RatingSource | None] = field(default_factory=dict)
    #: The ratings file given (``--ratings``), as named.
    given: str | None = None

    def ratings_path(self, game_file: str) -> str | None:
        """The path of the ratings that score ``game_file``'s games (given or beside)."""
        return self.given if self.given is not None else ratings_beside(game_file)

    def ratings_for(self, game_file: str, notes: list[str]) -> RatingSource | None:
        """The ratings that score the games of ``game_file``; a file found beside it is
        named in the notes once."""
        if self.ratings is not None:
            return self.ratings
        path = ratings_beside(game_file)
        if path is None:
            return None
        if path not in self.found:
            try:
                self.found[path] = open_rating_source(path)
                notes.append(f"engagement ratings found beside the games: {path}")
            except ToolkitError as err:
                self.found[path] = None
                notes.append(f"ratings beside the games not read: {err}")
        return self.found[path]


def _collect(
    sources: Sequence[str | Path],
    storage_options: Mapping[str, Any] | None,
    kit: PersonaKit | None,
    tmp: Path,
    evidence: _Evidence,
    memo: Memo | None = None,
    sink: Sink | None = None,
) -> Collected:
    """:func:`collect`, with games, chats and persona kits of object storage copied into
    ``tmp`` to be loaded (the site and the notes name their URLs)."""
    found, kits, copies, notes = _find(sources, storage_options, tmp)
    if kit is not None and any(open_source(p).disk is None for p in kit_paths(kit)):
        kit = staged_kit(kit, storage_options, tmp / "kit", copies)
    shows = _Shown(copies, sink)
    scoring = _Scoring(storage_options, kits, kit, notes, evidence, memo=memo,
                       shows=shows if sink is not None else None)  # fmt: skip
    scoring.score(found)
    if memo is not None:
        memo.forget_except(found)
    runs = [] if sink is not None else [shows.one(r) for r in scoring.runs]
    notes = [shown(n, copies) for n in scoring.notes] if copies else scoring.notes
    experiments = [{**e, "source": shown(e["source"], copies)} for e in scoring.experiments]
    if not runs and not shows.targets and not experiments:
        where = ", ".join(redact_uri(str(s)) for s in sources)
        raise InputError(where, "no run, iteration log, game or chat found in it")
    kept = list(dict.fromkeys(notes))
    streamed = len(shows.targets) if sink is not None else None
    doc, path = scoring.calibration or (None, None)
    return Collected(runs, kept, doc, None if path is None else shown(path, copies),
                     experiments, shows.targets, streamed)  # fmt: skip


@dataclass
class _Shown:
    """Each run as the site shows it, in order: its source named by its URL when it was
    copied out of object storage (``copies``), its id made unique (a repeated id gets
    ``~2``, ``~3``...). With a ``sink``, each is handed to it and only its link target
    kept."""

    copies: Mapping[str, str]
    sink: Sink | None = None
    seen: dict[str, int] = field(default_factory=dict)
    targets: list[LinkTarget] = field(default_factory=list)

    def one(self, run: SiteRun) -> SiteRun:
        """``run`` as shown (its shown source, its unique id)."""
        if self.copies:
            run = replace(run, source=shown(run.source, self.copies))
        n = self.seen.get(run.id, 0) + 1
        self.seen[run.id] = n
        return run if n == 1 else replace(run, id=f"{run.id}~{n}")

    def send(self, runs: Iterable[SiteRun]) -> None:
        """Each of ``runs``, as shown, to the sink (its link target kept)."""
        assert self.sink is not None
        for run in runs:
            run = self.one(run)
            self.targets.append(LinkTarget.of(run))
            self.sink(run)


def _find(
    sources: Sequence[str | Path], storage_options: Mapping[str, Any] | None, tmp: Path
) -> tuple[list[Found], dict[str, PersonaKit], dict[str, str], list[str]]:
    """Every find under ``sources`` and the persona kits, those of object storage that
    are read whole copied into ``tmp`` (``copies``: local folder -> URL), and the notes
    on objects that could not be copied."""
    found: list[Found] = []
    kits: dict[str, PersonaKit] = {}
    copies: dict[str, str] = {}
    notes: list[str] = []
    for n, given in enumerate(sources):
        source = open_source(given, storage_options)
        here, its_kits = survey(given, storage_options)
        if source.disk is None and source.kind() != "database":  # a database is not copied
            folder = tmp / f"{n:04d}"
            base = source.url()
            one = is_one_object(here, base)
            here, its_kits = staged(source, here, its_kits, storage_options, folder, notes)
            copies[str(folder)] = base.rsplit("/", 1)[0] if one else base
        found.extend(here)
        kits.update(its_kits)
    return found, kits, copies, notes


@contextmanager
def _lenient() -> Iterator[list[str]]:
    """Record the lenient reads (:class:`~toolkit.errors.InputWarning`) of the block as
    notes, in the list yielded (filled when the block ends)."""
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InputWarning)
        try:
            yield notes
        finally:
            notes.extend(f"read leniently: {w.message}" for w in caught
                         if issubclass(w.category, InputWarning))  # fmt: skip


#: The families whose finds are scored one by one (and replayed from a memo).
_SCORED_ONE_BY_ONE = ("outcome", "eval", "discussion", "persona")


@dataclass
class _Scoring:
    """Scoring the finds, one family's module each: the runs, the notes, and the first
    calibration result found."""

    storage_options: Mapping[str, Any] | None
    kits: Mapping[str, PersonaKit]
    kit: PersonaKit | None
    notes: list[str]
    evidence: _Evidence = field(default_factory=_Evidence)
    runs: list[SiteRun] = field(default_factory=list)
    calibration: tuple[dict[str, Any], str] | None = None
    judged: dict[str, Any] = field(default_factory=dict)
    attached: set[str] = field(default_factory=set)
    agent_logs: dict[str, str] = field(default_factory=dict)
    other_json: list[str] = field(default_factory=list)
    experiments: list[dict[str, Any]] = field(default_factory=list)
    memo: Memo | None = None
    #: Streaming: each run is handed to the sink through it as made, not held in ``runs``.
    shows: _Shown | None = None
    #: The notes of lenient reads (``InputWarning``), each kept with the find it came
    #: from (replayed with it), put after the other notes.
    lenient: list[str] = field(default_factory=list)

    def _add(self, runs: Iterable[SiteRun]) -> None:
        """Keep ``runs`` (or, streaming, hand each to the sink as it comes)."""
        if self.shows is None:
            self.runs.extend(runs)
        else:
            self.shows.send(runs)

    def score(self, found: Sequence[Found]) -> None:
        """Every find, simulation runs first; what was read leniently and the agent
        transcripts no iteration names become notes."""
        self.agent_logs = {session_of(f.path): f.path for f in found
                           if f.family == AGENT_TRANSCRIPT}  # fmt: skip
        sims = [f for f in found if f.family == "simulation"]
        if sims:
            self._simulations(sims)
        for f in found:
            stamp = self._stamp(f)
            if self._replayed(f, stamp):
                continue
            if self.memo is not None and f.family not in (*_SCORED_ONE_BY_ONE, "simulation"):
                self.memo.look(f, stamp_of([f.path]))  # a calibration, a transcript
            before = (len(self.runs), len(self.notes), set(self.attached))
            with _lenient() as lenient:
                scored = self._scored(f)
            self.lenient.extend(lenient)
            if scored:
                self._remember(f, stamp, before, lenient)
        if self.other_json:
            self.notes.append(
                f"{len(self.other_json)} JSON file(s) of another kind left out (not a game, "
                f"chat, log or calibration result): {', '.join(self.other_json)}"
            )
        self.notes.extend(self.lenient)
        loose = sorted(set(self.agent_logs.values()) - self.attached)
        if loose:
            self.notes.append(
                f"agent transcript(s) not shown: no iteration log of this site names their "
                f"session (agent.session_id): {', '.join(loose)}"
            )

    def _scored(self, f: Found) -> bool:
        """Score ``f``; False (and a note) when it is left out."""
        try:
            self._one(f)
        except InputError as err:
            if f.family == "discussion" and err.field == "(top level)":
                self.other_json.append(f.path)  # a JSON file of another kind
            else:
                self.notes.append(f"left out as not {what(f.family)}: {err}")
            return False
        except ToolkitError as err:
            self.notes.append(f"left out as not {what(f.family)}: {err}")
            return False
        return True

    def _simulations(self, sims: Sequence[Found]) -> None:
        """The simulation runs, scored together (one bulk load per folder); with a memo,
        only those whose files changed, the others replayed, in the order found."""
        if self.memo is None:
            try:
                self._add(simulation_runs(sims, self.storage_options))
            except ToolkitError as err:
                self.notes.append(f"simulation runs left out: {err}")
            return
        stamps = {f.path: stamp_of([f.path]) for f in sims}
        runs: dict[str, list[SiteRun]] = {}
        fresh = []
        for f in sims:
            entry = self.memo.get(f, stamps[f.path])
            if entry is None:
                fresh.append(f)
            else:
                runs[f.path] = entry.runs
                self.lenient.extend(entry.lenient)
        with _lenient() as lenient:
            try:
                for run in simulation_runs(fresh, self.storage_options) if fresh else ():
                    runs.setdefault(run.source, []).append(run)
            except ToolkitError as err:
                self.notes.append(f"simulation runs left out: {err}")
        self.lenient.extend(lenient)
        for f in sims:
            self.runs.extend(runs.get(f.path, ()))
            if f in fresh and f.path in runs and not lenient:
                # Read together, a lenient read's note is not one run's: a batch that gave
                # one is scored again next round (so its notes come again), not replayed.
                stamp = stamps[f.path]
                self.memo.put(f, stamp, Entry(stamp or (), runs[f.path], [], set()))

    def _stamp(self, f: Found) -> Stamp | None:
        """The stamp of the files ``f`` is scored from (``None`` without a memo, or
        for a find that is not scored one by one)."""
        if self.memo is None or f.family not in _SCORED_ONE_BY_ONE:
            return None
        paths = [f.path]
        if f.family == "outcome":
            paths += sorted(self.agent_logs.values())
        elif f.family == "discussion":
            paths += [p for p in (self.evidence.ratings_path(f.path),) if p]
        elif f.family == "persona":
            kit = kit_for(f.path, self.kits) or self.kit
            paths += kit_paths(kit) if kit is not None else []
        return stamp_of(paths)

    def _replayed(self, f: Found, stamp: Stamp | None) -> bool:
        """Whether ``f``'s records were replayed from the memo (its files unchanged)."""
        if stamp is None or self.memo is None:
            return False
        entry = self.memo.get(f, stamp)
        if entry is None:
            return False
        self.runs.extend(entry.runs)
        self.notes.extend(entry.notes)
        self.lenient.extend(entry.lenient)
        self.attached |= entry.attached
        return True

    def _remember(
        self, f: Found, stamp: Stamp | None,
        before: tuple[int, int, set[str]], lenient: list[str],
    ) -> None:  # fmt: skip
        """Keep what scoring ``f`` gave (runs, notes, lenient reads' notes, attached
        transcripts) in the memo."""
        if stamp is None or self.memo is None:
            return
        runs, notes, attached = before
        entry = Entry(stamp, self.runs[runs:], self.notes[notes:], self.attached - attached,
                      list(lenient))  # fmt: skip
        self.memo.put(f, stamp, entry)

    def _ratings_for(self, game_file: str) -> RatingSource | None:
        return self.evidence.ratings_for(game_file, self.notes)

    def _one(self, f: Found) -> None:
        """One iteration log, game file, chat or calibration result (the other finds are
        scored together or not at all)."""
        if f.family == "outcome":
            self._add(outcome_runs(f, self.storage_options, self.agent_logs,
                                   self.attached, self.evidence.repo))  # fmt: skip
        elif f.family == "eval":  # an eval-harness run: its one-iteration log, as a log
            log = Found("outcome", f"{f.path.rstrip('/')}/iteration-log", f.id)
            self._add(outcome_runs(log, self.storage_options, self.agent_logs,
                                   self.attached))  # fmt: skip
        elif f.family == "discussion":
            self._add(discussion_runs(f, self._ratings_for))
        elif f.family == "persona":
            chats, why = persona_runs(f, kit_for(f.path, self.kits) or self.kit, self.judged)
            self._add(chats)
            if why:
                self.notes.append(why)
        elif f.family == "experiment":
            self.experiments.append(experiment_page(f.path))
        elif f.family == "calibration":
            doc = load_calibration(f.path)
            if self.calibration is None:
                self.calibration = (doc, f.path)
            else:
                shows = self.calibration[1]
                self.notes.append(f"calibration not shown: {f.path} (the site shows "
                                  f"{shows}{_judge_epochs(self.calibration[0], doc)}; "
                                  "name one with --calibration)")  # fmt: skip


def _judge_epochs(shown: Mapping[str, Any], other: Mapping[str, Any]) -> str:
    """What a note says when two calibrations were made by judges of different epochs
    (:mod:`toolkit.epoch`): their numbers are not comparable; nothing otherwise."""
    a, b = shown.get("judge_epoch"), other.get("judge_epoch")
    if a and b and a != b:
        return f"; its judge is of another epoch, {b} not {a}: not comparable"
    return ""
