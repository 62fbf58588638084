"""Which family of runs is where: the one place the toolkit tells a simulation run from an
iteration log, a discussion game or a persona chat, in a local folder or in object storage.

``toolkit view`` lists every run of every family under its folders (:func:`discover`);
``toolkit compare`` asks which one family a folder holds (:func:`detect_family`); both
read the same walk, so a folder is never one family for one command and another for the
other.

A family is told from names only (no file is opened here):

* ``simulation``: a folder holding ``tick_summaries/`` (one run; not looked inside);
* ``outcome``: a folder holding ``iter-N.yaml`` files (one iteration log);
* ``persona``: a ``*.jsonl`` or ``*.run_messages.json`` chat file;
* ``discussion``: any other ``*.json``, ``*.db`` or ``*.sqlite`` file (a game transcript,
  export or database); whether it really holds games is for the loader to say.

A judge cassette (``cassette.json``, ``*.cassette.json``) is no run of any family. Beside
the runs, a ``calibration.json`` or ``*.calibration.json`` file is taken as the
result of ``toolkit calibrate --format json`` (kind ``calibration``: a page of the site,
not a family of runs; :func:`detect_family` never answers it).

Two kinds of ``*.jsonl`` files are no chats, though they share the suffix:

* an **agent transcript** (kind ``agent_transcript``): a coding agent's session log, as
  the agents name them: Claude Code's ``<session id>.jsonl`` (a UUID) and Codex's
  ``rollout-<time>-<id>.jsonl``, as kept beside iteration logs for ``toolkit outcome
  --transcripts``. It belongs to the iteration whose ``agent.session_id`` it is; never a
  run, never a chat. (Beside a persona kit a ``*.jsonl`` is always taken as a chat, so a
  chat named by a UUID is still scored there.)
* an action gate's **correction log** (``gate-corrections.jsonl``, ``corrections.jsonl``,
  ``*-correction-log.jsonl``: a name holding the word ``correction`` or ``corrections``
  between separators), read by ``tk.load_correction_log``: skipped.

A folder that holds a persona kit (:class:`PersonaKit`: ``propositions/`` and a judge
cassette, as ``sample_runs/persona`` does) is the kit of the chats beside it: its
cassette, personas and baselines are not candidates of another family.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import InputError

#: The families, in the order :func:`detect_family` prefers them when a folder holds
#: several (a fleet's folder may hold a stray JSON file; a chat folder its cassette).
FAMILIES: tuple[str, ...] = ("simulation", "outcome", "persona", "discussion")
ITER_NAME = re.compile(r"^iter-\d+\.yaml$")
CHAT_SUFFIXES = (".jsonl", ".run_messages.json")
GAME_SUFFIXES = (".json", ".db", ".sqlite")
#: A coding agent's session transcript: Claude Code ``<uuid>.jsonl``, Codex ``rollout-*.jsonl``.
AGENT_TRANSCRIPT = "agent_transcript"
AGENT_TRANSCRIPT_NAME = re.compile(
    r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|rollout-.+)\.jsonl$", re.I
)
#: An action gate's correction log (``gate-corrections.jsonl``): no chat, no run.
CORRECTION_LOG_NAME = re.compile(r"(?:^|[-_.])corrections?(?:[-_.][^/]*)?\.jsonl$", re.I)
#: A judge's recorded answers (``recorded:cassette.json``): never a run of any family.
CASSETTE_NAME = "cassette.json"
#: The name of a ``toolkit calibrate --format json`` result beside the runs.
CALIBRATION_NAME = "calibration.json"
CALIBRATION = "calibration"
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


def _classify(walk: Walk, root: str, name: str) -> tuple[list[Found], dict[str, PersonaKit]]:
    """Runs found in an ``os.walk``-like top-down walk (``dirs`` pruned in place) of
    ``root`` (paths joined with ``/``), and the persona kits by folder."""
    found: list[Found] = []
    kits: dict[str, PersonaKit] = {}
    seen = 0
    for folder, dirs, files in walk:
        rel = folder[len(root) :].lstrip("/")
        prefix = f"{name}/{rel}" if rel else name
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        seen += len(files)
        if seen > MAX_FILES:
            raise InputError(root, f"more than {MAX_FILES} files: name a folder of runs")
        if "tick_summaries" in dirs:
            found.append(Found("simulation", folder, prefix))
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
            if family:
                found.append(Found(family, f"{folder}/{file}", f"{prefix}/{file}"))
    return found, kits


def kit_file(kit: PersonaKit, path: str) -> bool:
    """Whether ``path`` is the cassette or the personas file of ``kit``."""
    return path in (kit.cassette, kit.personas)


def _local_walk(root: Path) -> Walk:
    for folder, dirs, files in os.walk(root):  # links are not followed
        yield Path(folder).as_posix(), dirs, files


def _listing_walk(root: str, objects: Sequence[str]) -> Walk:
    """An ``os.walk``-like top-down walk of the object keys ``objects`` (relative to
    ``root``), honouring pruned ``dirs``."""
    files: dict[str, list[str]] = {}
    dirs: dict[str, set[str]] = {}
    for key in objects:
        parts = key.strip("/").split("/")
        for depth in range(len(parts) - 1):
            parent = "/".join(parts[:depth])
            dirs.setdefault(parent, set()).add(parts[depth])
        files.setdefault("/".join(parts[:-1]), []).append(parts[-1])
    stack = [""]
    while stack:
        rel = stack.pop()
        here = sorted(dirs.get(rel, ()))
        yield (f"{root}/{rel}" if rel else root), here, sorted(files.get(rel, []))
        stack.extend(f"{rel}/{d}" if rel else d for d in reversed(here))


def survey(
    source: str | Path, storage_options: Mapping[str, Any] | None = None
) -> tuple[list[Found], dict[str, PersonaKit]]:
    """Every run, log, game file and chat under ``source`` (a folder, a file or an fsspec
    URL, listed in one recursive listing), in path order, and the persona kits found.

    Raises:
        InputError: no such file, folder or bucket, or one that cannot be listed.
    """
    from toolkit.io.source import is_remote, local_path, open_remote

    if is_remote(source):
        remote = open_remote(str(source), storage_options)
        objects = remote.find_many([remote.root])[0]
        name = label(str(source))
        if not objects:
            # A URL naming one object, not a folder.
            fam = file_family(remote.root.rsplit("/", 1)[-1], chats_only=True)
            try:
                single = bool(fam) and bool(remote.fs.isfile(remote.root))
            except Exception as exc:  # any back-end's failure becomes one line
                raise remote.error(exc) from exc
            if single:
                return [Found(fam, remote.url(), name)], {}
            raise InputError(remote.url(), "no such file or folder (nothing under it)")
        found, kits = _classify(_listing_walk(remote.root, list(objects)), remote.root, name)
        as_url = {k: _kit_urls(remote.url, v) for k, v in kits.items()}
        return [Found(f.family, remote.url(f.path), f.id) for f in found], {
            remote.url(k): v for k, v in as_url.items()
        }
    root = local_path(source)
    if not root.exists():
        raise InputError(root, "no such file or folder")
    if root.is_file():
        # A chat named alone is still scored by the kit of its folder.
        folder = root.parent
        try:
            entries = list(os.scandir(folder))
        except OSError:  # an unlistable folder has no kit to offer; the file is still read
            entries = []
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        kit = kit_of(folder.as_posix(), dirs, [e.name for e in entries if e.is_file()])
        kits = {folder.as_posix(): kit} if kit is not None else {}
        return [Found(file_family(root.name, chats_only=True), str(root), label(source))], kits
    found, kits = _classify(_local_walk(root), root.as_posix(), label(source))
    return [Found(f.family, str(Path(f.path)), f.id) for f in found], kits


def _kit_urls(url: Any, kit: PersonaKit) -> PersonaKit:
    return PersonaKit(
        propositions=url(kit.propositions),
        cassette=url(kit.cassette),
        personas=url(kit.personas) if kit.personas else None,
        baselines=url(kit.baselines) if kit.baselines else None,
    )


def discover(source: str | Path, storage_options: Mapping[str, Any] | None = None) -> list[Found]:
    """Every run, log, game file and chat under ``source`` (see :func:`survey`).

    Raises:
        InputError: no such file or folder.
    """
    return survey(source, storage_options)[0]


def chat_files(source: str | Path) -> list[Path]:
    """The persona chat files of a local ``source``: itself when a file, else every chat
    :func:`discover` finds under it (path order).

    Raises:
        InputError: no such file or folder, or a folder with no chat file in it.
    """
    path = Path(source)
    if path.is_file():
        return [path]
    files = [Path(f.path) for f in discover(path) if f.family == "persona"]
    if not files:
        raise InputError(path, "no chat files (*.jsonl, *.run_messages.json) in it")
    return files


def detect_family(source: str | Path, storage_options: Mapping[str, Any] | None = None) -> str:
    """The one family of the runs in ``source``: ``simulation`` (run folders with
    tick_summaries/), ``outcome`` (iter-N.yaml files), ``persona`` (chat files) or
    ``discussion`` (game transcripts, exports or a game database); when a folder holds
    several, the first of :data:`FAMILIES`. A single file that is no chat is taken as
    games.

    Raises:
        InputError: nothing recognisable in ``source`` (name ``--family``).
    """
    from toolkit.io.source import is_remote, local_path

    if not is_remote(source) and local_path(source).is_file():
        return file_family(local_path(source).name, chats_only=True) or "discussion"
    families = {f.family for f in discover(source, storage_options)}
    for family in FAMILIES:
        if family in families:
            return family
    shown = source if is_remote(source) else local_path(source)
    raise InputError(
        shown, "cannot tell which runs these are: give --family", field="--family", value="auto"
    )
