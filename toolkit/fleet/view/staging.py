"""Games, chats, persona kits and calibration results of object storage, copied into a
local folder to be loaded (their loaders read one file whole from a path; see
:mod:`toolkit.io.staging`), the site and the notes naming them by their URLs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.fleet.families import Found, PersonaKit
from toolkit.fleet.find import objects_under, objects_under_many
from toolkit.fleet.view.common import what
from toolkit.fleet.view.discussion import RATINGS_BESIDE
from toolkit.io.source import Source, open_source
from toolkit.io.staging import local_name, stage

#: The families read whole from a path, so copied out of object storage to be loaded.
STAGED_FAMILIES = ("discussion", "persona", "calibration", "experiment")


def is_one_object(found: Sequence[Found], base: str) -> bool:
    return len(found) == 1 and found[0].path == base


def kit_paths(kit: PersonaKit) -> list[str]:
    return [p for p in (kit.propositions, kit.cassette, kit.personas, kit.baselines) if p]


def staged(
    source: Source,
    found: list[Found],
    kits: Mapping[str, PersonaKit],
    storage_options: Mapping[str, Any] | None,
    folder: Path,
    notes: list[str],
) -> tuple[list[Found], dict[str, PersonaKit]]:
    """The games, chats and persona kits found in ``source``, copied into ``folder``:
    the same finds with local paths (an object that cannot be read is noted and left
    out), and the kits by their local folder."""
    base = source.url()
    wanted = [f.path for f in found if f.family in STAGED_FAMILIES]
    kit_files = _kit_files(source, kits, storage_options)
    games = [f.path for f in found if f.family == "discussion"]
    ratings = _ratings_files(games)
    got = stage(base, [*wanted, *kit_files, *ratings], folder, storage_options)
    out: list[Found] = []
    for f in found:
        if f.family not in STAGED_FAMILIES:
            out.append(f)
            continue
        copy = got.get(f.path)
        if isinstance(copy, Path):
            out.append(Found(f.family, str(copy), f.id))
        elif copy is not None:
            notes.append(f"left out as not {what(f.family)}: {copy}")

    def here(path: str | None) -> str | None:
        if path is None:
            return None
        return folder.as_posix() if path == base else local_name(base, path, folder).as_posix()

    local_kits = {}
    for where, kit in kits.items():
        local_kits[str(here(where))] = PersonaKit(
            propositions=str(here(kit.propositions)), cassette=str(here(kit.cassette)),
            personas=here(kit.personas), baselines=here(kit.baselines),
        )  # fmt: skip
    return out, local_kits


def _ratings_files(games: Sequence[str]) -> list[str]:
    """Where ratings files beside the game files ``games`` (URLs) would be (the names of
    :data:`RATINGS_BESIDE`), to be copied with them when they exist (a missing one is no
    note), so a bucket's games are scored with the ratings a folder's would be."""
    folders = dict.fromkeys(g.rstrip("/").rsplit("/", 1)[0] for g in games)
    return [f"{folder}/{name}" for folder in folders for name in RATINGS_BESIDE]


def _kit_files(
    source: Source, kits: Mapping[str, PersonaKit], storage_options: Mapping[str, Any] | None
) -> list[str]:
    """Every object of the kits in ``source``: the cassette, the personas file, and what
    the propositions and baselines folders hold (listed in one request each)."""
    if not kits:
        return []
    folders = [k for kit in kits.values() for k in (kit.propositions, kit.baselines) if k]
    paths = [open_source(f, storage_options).root for f in folders]
    listed = objects_under_many(source, paths)
    files = [p for kit in kits.values() for p in (kit.cassette, kit.personas) if p]
    for folder, objects in zip(folders, listed, strict=True):
        files.extend(f"{folder}/{rel}" for rel in sorted(objects))
    return files


def staged_kit(
    kit: PersonaKit,
    storage_options: Mapping[str, Any] | None,
    folder: Path,
    copies: dict[str, str],
) -> PersonaKit:
    """A kit given by URLs on the command line, copied into ``folder`` (one subfolder per
    part, each named back to its URL in ``copies``).

    Raises:
        InputError: a part cannot be listed or read.
    """
    parts: dict[str, str | None] = {}
    for n, (name, path) in enumerate(
        (("propositions", kit.propositions), ("cassette", kit.cassette),
         ("personas", kit.personas), ("baselines", kit.baselines))
    ):  # fmt: skip
        if path is None:
            parts[name] = None
            continue
        part = open_source(path, storage_options)
        if part.disk is not None:
            parts[name] = path
            continue
        base = path.rstrip("/")
        here = folder / f"{n}"
        if name in ("propositions", "baselines"):
            objects = objects_under(part)
            urls = [f"{base}/{rel}" for rel in sorted(objects)]
            copies[str(here)] = base
            target = here
        else:
            urls = [base]
            copies[str(here)] = base.rsplit("/", 1)[0]
            target = here / base.rsplit("/", 1)[-1]
        for got in stage(base, urls, here, storage_options).values():
            if isinstance(got, InputError):
                raise got
        parts[name] = str(target)
    return PersonaKit(
        propositions=str(parts["propositions"]), cassette=str(parts["cassette"]),
        personas=parts["personas"], baselines=parts["baselines"],
    )  # fmt: skip
