"""Where bytes come from and go to: the one door of the toolkit.

- :mod:`toolkit.io.source`: one :class:`Source` (a local folder, an fsspec URL) behind
  list / fetch-many / marks / url-to-show / write; :func:`open_source` is the only place
  a scheme is read.
- :mod:`toolkit.io.edge`: the reading edge (size and depth limits, decoding, JSON, YAML,
  SQLite and CSV safety).
- :mod:`toolkit.io.atomic`: atomic writes; :mod:`toolkit.io.staging`: copying remote
  files beside a local output; :mod:`toolkit.io.network`: the network deadlines.
- :mod:`toolkit.io.archive`: zip members read through the reading limits;
  :mod:`toolkit.io.csvcells`: the one CSV writer (cells that would start a formula
  neutralised).

Each public name is imported on first use (PEP 562, as in ``toolkit``): importing one
module of the package (``toolkit.io.source``) does not import the others, and ``toolkit
--help`` pays for none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

#: Public name -> the module that defines it (imported on first use, as in ``toolkit``).
_LAZY: dict[str, str] = {
    "atomic_path": "toolkit.io.atomic",
    "checked_blob": "toolkit.io.edge",
    "Deadlines": "toolkit.io.network",
    "deadlines": "toolkit.io.network",
    "decode_text": "toolkit.io.edge",
    "Folder": "toolkit.io.source",
    "Limits": "toolkit.io.edge",
    "limits": "toolkit.io.edge",
    "LocalSource": "toolkit.io.source",
    "open_source": "toolkit.io.source",
    "parse_json": "toolkit.io.edge",
    "parse_json_lines": "toolkit.io.edge",
    "parse_storage_options": "toolkit.io.source",
    "parse_yaml_text": "toolkit.io.edge",
    "read_bytes": "toolkit.io.edge",
    "read_many_fast": "toolkit.io.edge",
    "read_text": "toolkit.io.edge",
    "read_yaml": "toolkit.io.edge",
    "RemoteSource": "toolkit.io.source",
    "safe_file_name": "toolkit.io.atomic",
    "Source": "toolkit.io.source",
    "sqlite_readonly": "toolkit.io.edge",
    "stage": "toolkit.io.staging",
    "write_text_atomic": "toolkit.io.atomic",
}

__all__ = [*_LAZY]

if TYPE_CHECKING:
    from toolkit.io.atomic import atomic_path as atomic_path
    from toolkit.io.atomic import safe_file_name as safe_file_name
    from toolkit.io.atomic import write_text_atomic as write_text_atomic
    from toolkit.io.edge import Limits as Limits
    from toolkit.io.edge import checked_blob as checked_blob
    from toolkit.io.edge import decode_text as decode_text
    from toolkit.io.edge import limits as limits
    from toolkit.io.edge import parse_json as parse_json
    from toolkit.io.edge import parse_json_lines as parse_json_lines
    from toolkit.io.edge import parse_yaml_text as parse_yaml_text
    from toolkit.io.edge import read_bytes as read_bytes
    from toolkit.io.edge import read_many_fast as read_many_fast
    from toolkit.io.edge import read_text as read_text
    from toolkit.io.edge import read_yaml as read_yaml
    from toolkit.io.edge import sqlite_readonly as sqlite_readonly
    from toolkit.io.network import Deadlines as Deadlines
    from toolkit.io.network import deadlines as deadlines
    from toolkit.io.source import Folder as Folder
    from toolkit.io.source import LocalSource as LocalSource
    from toolkit.io.source import RemoteSource as RemoteSource
    from toolkit.io.source import Source as Source
    from toolkit.io.source import open_source as open_source
    from toolkit.io.source import parse_storage_options as parse_storage_options
    from toolkit.io.staging import stage as stage
else:
    __getattr__, __dir__ = attach(__name__, _LAZY)
