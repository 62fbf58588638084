"""Pairing keys of simulation runs: ``scenario`` and ``seed`` from each run's universe.yaml.

``toolkit compare`` pairs a run of version A with the run of version B that played the
same scenario (or, without one, the same seed). The keys come from the run's
``universe.yaml``, asked of each run's :class:`~toolkit.io.source.Source`: through the
reading edge (local folders) or one concurrent fetch (object storage); a run whose file
is missing or unreadable simply has no key (it is then paired by its slug), and a file
that is not valid YAML is reported as a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.source import open_source

#: The universe.yaml fields read as pairing keys.
KEY_FIELDS: tuple[str, ...] = ("scenario", "seed")


def _keys_of(config: Any) -> dict[str, str]:
    if not isinstance(config, dict):
        return {}
    out: dict[str, str] = {}
    for key in KEY_FIELDS:
        value = config.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            out[key] = str(value).strip()
    return out


def run_pair_keys(
    runs: Sequence[str], storage_options: Mapping[str, Any] | None = None
) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The pairing keys of each run folder (path or URL) and the problems met.

    Returns:
        ``({run: {"scenario": ..., "seed": ...}}, problems)``: a run maps to the keys
        its universe.yaml holds (maybe none); each problem is one line naming the file.
    """
    keys: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    sources = {run: open_source(run, storage_options) for run in runs}
    remote = [run for run, source in sources.items() if source.disk is None]
    for run, source in sources.items():
        folder = source.disk
        if folder is None:
            continue
        path = folder / "universe.yaml"
        if not path.is_file():
            keys[run] = {}
            continue
        try:
            keys[run] = _keys_of(edge.read_yaml(path, within=folder))
        except InputError as err:
            keys[run] = {}
            problems.append(str(err))
    if remote:
        store = sources[remote[0]]  # one batched fetch for every run in object storage
        keys_at = {run: store.join(sources[run].root, "universe.yaml") for run in remote}
        wanted = {run: store.url(key) for run, key in keys_at.items()}
        blobs = store.fetch(list(keys_at.values()))
        for run, key in keys_at.items():
            blob = blobs.get(key)
            if blob is None or isinstance(blob, InputError):
                keys[run] = {}
                continue
            try:
                text = edge.decode_text(blob, wanted[run])
                keys[run] = _keys_of(edge.parse_yaml_text(text, wanted[run]))
            except InputError as err:
                keys[run] = {}
                problems.append(str(err))
    return keys, problems
