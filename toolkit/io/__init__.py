"""Where bytes come from and go to: the one door of the toolkit.

- :mod:`toolkit.io.source`: one :class:`Source` (a local folder, an fsspec URL) behind
  list / fetch-many / marks / url-to-show / write; :func:`open_source` is the only place
  a scheme is read.
- :mod:`toolkit.io.edge`: the reading edge (size and depth limits, decoding, JSON, YAML,
  SQLite and CSV safety).
- :mod:`toolkit.io.atomic`: atomic writes; :mod:`toolkit.io.staging`: copying remote
  files beside a local output; :mod:`toolkit.io.network`: the network deadlines.
"""

from toolkit.io.atomic import atomic_path, safe_file_name, write_text_atomic
from toolkit.io.edge import (
    Limits,
    checked_blob,
    decode_text,
    limits,
    parse_json,
    parse_json_lines,
    parse_yaml_text,
    read_bytes,
    read_many_fast,
    read_text,
    read_yaml,
    sqlite_readonly,
)
from toolkit.io.network import Deadlines, deadlines
from toolkit.io.source import (
    Folder,
    LocalSource,
    RemoteSource,
    Source,
    open_source,
    parse_storage_options,
)
from toolkit.io.staging import stage

__all__ = [
    "Deadlines",
    "Folder",
    "Limits",
    "LocalSource",
    "RemoteSource",
    "Source",
    "atomic_path",
    "checked_blob",
    "deadlines",
    "decode_text",
    "limits",
    "open_source",
    "parse_json",
    "parse_json_lines",
    "parse_storage_options",
    "parse_yaml_text",
    "read_bytes",
    "read_many_fast",
    "read_text",
    "read_yaml",
    "safe_file_name",
    "sqlite_readonly",
    "stage",
    "write_text_atomic",
]
