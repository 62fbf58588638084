"""Errors raised for bad input: one line that names the file, the field and the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class ToolkitError(Exception):
    """Base class for every error the toolkit raises on purpose."""


class InputError(ToolkitError):
    """Input that cannot be used.

    The message is one line: ``<path>[:line]: <field>=<value!r>: <reason>``, with the
    parts that are unknown left out, so the CLI can print it as it is.
    """

    def __init__(
        self,
        path: str | Path | None,
        reason: str,
        *,
        field: str | None = None,
        value: Any = None,
        line: int | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.reason = reason
        self.field = field
        self.value = value
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        parts: list[str] = []
        if self.path is not None:
            parts.append(self.path if self.line is None else f"{self.path}:{self.line}")
        if self.field is not None:
            shown = repr(self.value)
            if len(shown) > 60:
                shown = shown[:57] + "..."
            parts.append(f"{self.field}={shown}")
        parts.append(" ".join(self.reason.split()))
        return ": ".join(parts)


class NothingLoadable(InputError):
    """A run folder with nothing to score: no tick file or batch record could be read
    (token-world's scorer calls such a run INSUFFICIENT_DATA)."""


class RubricError(InputError):
    """A rubric definition that is invalid (bad numbers, a changed rubric without a new version)."""


class InputWarning(UserWarning):
    """Input that was used, with a leniency the reader should know of (one line)."""


class SkippedInputWarning(InputWarning):
    """An input that was not read (a folder entry that is no regular file, a symlink out of
    the folder being read, a file the reading edge refused): the message names it and why.
    The command line prints each one on stderr; the loader's result records it too."""


class DuplicateKeyWarning(InputWarning):
    """A JSON object or YAML mapping repeats a key; the last value was used."""


class CacheWarning(InputWarning):
    """The run cache could not be written (one line): the answer is complete, only the
    next load is not faster."""
