"""Which family of runs is where: the one place the toolkit tells a simulation run from an
iteration log, a discussion game or a persona chat, in a local folder or in object storage.

``toolkit view`` lists every run of every family under its folders
(:func:`toolkit.fleet.find.discover`); ``toolkit compare`` asks which one family a folder
holds (:func:`toolkit.fleet.find.detect_family`); both read the same walk through
:func:`classify`, so a folder is never one family for one command and another for the
other.

A family is told from names only (no file is opened here):

* ``simulation``: a folder holding ``tick_summaries/`` (one run; not looked inside);
* ``eval``: a folder holding ``eval-run.yaml`` (one dot-agents eval-harness run: its
  ``iteration-log/`` is part of the run, not an iteration log of its own); a repository's
  ``.agents/eval/runs/`` is looked into (the only hidden folder that is);
* ``outcome``: a folder holding ``iter-N.yaml`` files (one iteration log);
* ``persona``: a ``*.jsonl`` or ``*.run_messages.json`` chat file;
* ``discussion``: any other ``*.json``, ``*.db`` or ``*.sqlite`` file (a game transcript,
  export or database); whether it really holds games is for the loader to say.

A judge cassette (``cassette.json``, ``*.cassette.json``) is no run of any family. Beside
the runs, a ``calibration.json`` or ``*.calibration.json`` file is taken as the
result of ``toolkit calibrate --format json`` (kind ``calibration``: a page of the site,
not a family of runs; :func:`~toolkit.fleet.find.detect_family` never answers it).

Two kinds of ``*.jsonl`` files are no chats, though they share the suffix:

* an **agent transcript** (kind ``agent_transcript``): a coding agent's session log, as
  the agents name them: Claude Code's ``<session id>.jsonl`` (a UUID) and Codex's
  ``rollout-<time>-<id>.jsonl``, as kept beside iteration logs for ``toolkit outcome
  --transcripts``. It belongs to the iteration whose ``agent.session_id`` it is; never a
  run, never a chat. (Beside a persona kit a ``*.jsonl`` is always taken as a chat, so a
  chat named by a UUID is still scored there.)
* an action gate's **correction log** (``gate-corrections.jsonl``, ``corrections.jsonl``,
  ``*-correction-log.jsonl``: a name holding the word ``correction`` or ``corrections``
  between separators), read by ``tk.load_correction_log``, or the-office's **intervention
  log** (``*-intervention-logs.jsonl``: ``intervention`` or ``interventions``), read by
  ``tk.load_intervention_log``; ``.json`` arrays of those rows too: skipped.

Treatment-vs-control results (the input of ``toolkit experiment``; kind ``experiment``:
a page of the site, not a family of runs) are a ``*.experiment.json``, ``.csv`` or
``.parquet`` file anywhere, or a ``.json``, ``.csv`` or ``.parquet`` file in a folder
named ``experiments`` (as ``sample_runs/experiments``).

A folder that holds a persona kit (:class:`PersonaKit`: ``propositions/`` and a judge
cassette, as ``sample_runs/persona`` does) is the kit of the chats beside it: its
cassette, personas and baselines are not candidates of another family.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io.source import is_postgres_url

#: The families, in the order :func:`~toolkit.fleet.find.detect_family` prefers them
#: when a folder holds several (a fleet's folder may hold a stray JSON file; a chat
#: folder its cassette).
FAMILIES: tuple[str, ...] = ("simulation", "eval", "outcome", "persona", "discussion")
ITER_NAME = re.compile(r"^iter-\d+\.yaml$")
#: The record of one dot-agents eval-harness run (its folder is the run).
EVAL_RUN_NAME = "eval-run.yaml"
#: Where a repository keeps its eval-harness runs: the hidden path walked into.
EVAL_RUNS_PATH = (".agents", "eval", "runs")
CHAT_SUFFIXES = (".jsonl", ".run_messages.json")
GAME_SUFFIXES = (".json", ".db", ".sqlite")
#: A coding agent's session transcript: Claude Code ``<uuid>.jsonl``, Codex ``rollout-*.jsonl``.
AGENT_TRANSCRIPT = "agent_transcript"
AGENT_TRANSCRIPT_NAME = re.compile(
    r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|rollout-.+)\.jsonl$", re.I
)
#: An action gate's correction log (``gate-corrections.jsonl``) or the-office's
#: correction or intervention log (``office-intervention-logs.jsonl``, or a ``.json``
#: array of its rows): no chat, no game, no run.
CORRECTION_LOG_NAME = re.compile(
    r"(?:^|[-_.])(?:corrections?|interventions?)(?:[-_.][^/]*)?\.jsonl?$", re.I
)
#: A judge's recorded answers (``recorded:cassette.json``): never a run of any family.
CASSETTE_NAME = "cassette.json"
#: The name of a ``toolkit calibrate --format json`` result beside the runs.
CALIBRATION_NAME = "calibration.json"
CALIBRATION = "calibration"
#: Treatment-vs-control results beside the runs (a page of the site, not a family).
EXPERIMENT = "experiment"
EXPERIMENTS_FOLDER = "experiments"
EXPERIMENT_SUFFIXES = (".json", ".csv", ".parquet")
#: Folders the toolkit writes beside runs (score sidecars, caches): never runs themselves.
SKIPPED_FOLDERS = frozenset({"evaluations", "__pycache__", "node_modules"})
#: The most files one source is walked for (a bound on a wrongly named folder).
MAX_FILES = 200_000
#: The files of a persona kit, beside the chats they score.
KIT_PROPOSITIONS = "propositions"
KIT_CASSETTE = "cassette.json"
KIT_PERSONAS = ("personas.yaml", "personas.yml", "personas.json")
KIT_BASELINES = "baselines"


@dataclass(frozen=True)
class Found:
    """One run, log, game file or chat: its family, where it is, and a readable id
    (the source's name, then the path under it)."""

    family: str
    path: str
    id: str


@dataclass(frozen=True)
class PersonaKit:
    """What scores the persona chats of a folder without a live call: proposition files
    and a recorded judge (a cassette), with the personas and baselines when present.

    Attributes:
        propositions: the folder of proposition YAML files.
        cassette: the judge's recorded answers (``recorded:CASSETTE``).
        personas: a personas file, or ``None``.
        baselines: a folder of golden baselines, or ``None``.
    """

    propositions: str
    cassette: str
    personas: str | None = None
    baselines: str | None = None


def label(source: str | Path) -> str:
    """The name a source is shown by: its last path part (of the resolved folder for
    ``.``)."""
    text = str(source).rstrip("/")
    if is_postgres_url(text):  # a database: its name, never a query parameter
        text = text.split("?", 1)[0]
    name = text.rsplit("/", 1)[-1]
    return name if name not in ("", ".", "..") else Path(text).resolve().name or "runs"


def file_family(name: str, chats_only: bool = False) -> str:
    """The family a file of this name would hold (``""``: none; ``calibration`` for a
    calibration result; ``agent_transcript`` for a coding agent's session log, unless
    ``chats_only``: beside a persona kit, where every ``*.jsonl`` is a chat)."""
    if name == CALIBRATION_NAME or name.endswith("." + CALIBRATION_NAME):
        return CALIBRATION
    if name == CASSETTE_NAME or name.endswith("." + CASSETTE_NAME):
        return ""
    if not chats_only and AGENT_TRANSCRIPT_NAME.match(name):
        return AGENT_TRANSCRIPT
    if CORRECTION_LOG_NAME.search(name):
        return ""
    if name.endswith(CHAT_SUFFIXES):
        return "persona"
    if name.endswith(GAME_SUFFIXES):
        return "discussion"
    return ""


def is_experiment_file(folder: str, name: str) -> bool:
    """Whether the file ``name`` in ``folder`` (a path) holds treatment-vs-control
    results: ``*.experiment.json`` (or ``.csv``, ``.parquet``) anywhere, or a file of
    those suffixes in a folder named ``experiments``."""
    if not name.endswith(EXPERIMENT_SUFFIXES):
        return False
    stem = name.rsplit(".", 1)[0]
    return (
        stem.endswith(".experiment") or folder.rstrip("/").rsplit("/", 1)[-1] == EXPERIMENTS_FOLDER
    )


def kit_of(folder: str, dirs: Sequence[str], files: Sequence[str]) -> PersonaKit | None:
    """The persona kit of a folder listed as ``dirs`` and ``files`` (names), if it holds
    ``propositions/`` and ``cassette.json``; paths are joined to ``folder`` with ``/``."""
    if KIT_PROPOSITIONS not in dirs or KIT_CASSETTE not in files:
        return None
    personas = next((n for n in KIT_PERSONAS if n in files), None)
    return PersonaKit(
        propositions=f"{folder}/{KIT_PROPOSITIONS}",
        cassette=f"{folder}/{KIT_CASSETTE}",
        personas=f"{folder}/{personas}" if personas else None,
        baselines=f"{folder}/{KIT_BASELINES}" if KIT_BASELINES in dirs else None,
    )


Walk = Iterator[tuple[str, list[str], list[str]]]


def classify(walk: Walk, root: str, name: str) -> tuple[list[Found], dict[str, PersonaKit]]:
    """Runs found in an ``os.walk``-like top-down walk (``dirs`` pruned in place) of
    ``root`` (paths joined with ``/``), and the persona kits by folder."""
    found: list[Found] = []
    kits: dict[str, PersonaKit] = {}
    seen = 0
    for folder, dirs, files in walk:
        rel = folder[len(root) :].lstrip("/")
        prefix = f"{name}/{rel}" if rel else name
        dirs[:] = sorted(d for d in dirs if _walked(rel, d))
        seen += len(files)
        if seen > MAX_FILES:
            raise InputError(root, f"more than {MAX_FILES} files: name a folder of runs")
        if "tick_summaries" in dirs:
            found.append(Found("simulation", folder, prefix))
            dirs[:] = []
            continue
        if EVAL_RUN_NAME in files:
            found.append(Found("eval", folder, prefix))
            dirs[:] = []
            continue
        if any(ITER_NAME.match(f) for f in files):
            found.append(Found("outcome", folder, prefix))
            dirs[:] = []
            continue
        kit = kit_of(folder, dirs, files)
        if kit is not None:
            kits[folder] = kit
            dirs[:] = [d for d in dirs if d not in (KIT_PROPOSITIONS, KIT_BASELINES)]
        for file in sorted(files):
            if file.startswith(".") or (kit is not None and kit_file(kit, f"{folder}/{file}")):
                continue
            family = file_family(file, chats_only=kit is not None)
            if is_experiment_file(folder, file):
                family = EXPERIMENT
            if family:
                found.append(Found(family, f"{folder}/{file}", f"{prefix}/{file}"))
    return found, kits


def _walked(rel: str, name: str) -> bool:
    """Whether the walk goes into folder ``name`` of the folder at ``rel`` (under the
    root): not a hidden folder, nor one the toolkit writes, except the steps of
    ``.agents/eval/runs`` (a repository's eval-harness runs)."""
    if name.startswith("."):
        return name == EVAL_RUNS_PATH[0]
    if name in SKIPPED_FOLDERS:
        return False
    parts = rel.split("/") if rel else []
    if EVAL_RUNS_PATH[0] in parts:  # inside .agents: only eval/runs/ and below
        at = parts.index(EVAL_RUNS_PATH[0])
        depth = len(parts) - at  # 1: in .agents, 2: in .agents/eval
        if depth < len(EVAL_RUNS_PATH):
            return name == EVAL_RUNS_PATH[depth]
    return True


def kit_file(kit: PersonaKit, path: str) -> bool:
    """Whether ``path`` is the cassette or the personas file of ``kit``."""
    return path in (kit.cassette, kit.personas)
