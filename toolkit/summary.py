"""How result objects show themselves: a short ``__repr__`` and a ``_repr_html_``.

A result class inherits :class:`Shows` (its dataclass declared with ``repr=False``) and
says what matters about it in :meth:`Shows._summary`: a headline, a few counts, the
issues or warnings a reader must not miss, and optionally a small table. The text form is
a few lines, like a polars frame's header. Here a result only *says* what it holds:
the HTML of a summary and of a scorecard is drawn by whatever :func:`register_html` names
for it, and :mod:`toolkit._html` registers its drawers when the package's front door is
imported (which Python does before any module of the package). So loaders and rubrics
import no drawing code, and nothing heavy is imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolkit._record import FieldsEqual, FieldsRepr, record

#: kind ("summary", "scorecard") -> the function that draws it as HTML.
_DRAWERS: dict[str, Callable[..., str]] = {}


def register_html(kind: str, draw: Callable[..., str]) -> None:
    """Name the function that draws ``kind`` ("summary", "scorecard") as notebook HTML."""
    _DRAWERS[kind] = draw


def draw_html(kind: str, *args: Any, **kwargs: Any) -> str:
    """``kind`` drawn as HTML by its registered function.

    Raises:
        RuntimeError: nothing is registered for ``kind`` (an internal error: importing
            ``toolkit`` registers every drawer).
    """
    draw = _DRAWERS.get(kind)
    if draw is None:
        raise RuntimeError(f"no HTML drawer for {kind!r} (importing toolkit registers them)")
    return draw(*args, **kwargs)


#: The longest line a ``__repr__`` writes, how many table rows and notes it lists.
MAX_WIDTH = 100
MAX_LINES = 3
MAX_NOTES = 2


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 run"``, ``"3 runs"``."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def _clip(line: str, width: int = MAX_WIDTH) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def _fact(label: str, value: object) -> str:
    """``"64 ticks"``, ``"1 issue"``; a label ending in ``:`` goes first:
    ``"worst: #5 0.479"``."""
    if label.endswith(":"):
        return f"{label} {value}"
    if value == 1 and label.endswith("s") and not label.endswith("ss"):
        label = label[:-1]
    return f"{value} {label}"


def short_path(path: str, parts: int = 3) -> str:
    """The last ``parts`` components of ``path`` (the run folder, its subfolder, the
    file), enough to find the file without a long absolute prefix."""
    pieces = str(path).replace("\\", "/").split("/")
    return "/".join(pieces[-parts:]) if len(pieces) > parts else str(path)


def issue_notes(issues: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """Load-issue rows (path, line, reason) as ``path[:line]: reason`` notes."""
    return tuple(
        f"{short_path(r['path'])}{'' if r['line'] is None else ':' + str(r['line'])}: {r['reason']}"
        for r in issues
    )


@record  # eq, hash, repr: toolkit._record
class Summary(FieldsEqual, FieldsRepr):
    """What a result object shows about itself.

    Attributes:
        kind: the class name shown first (``"Universe"``).
        headline: what it holds, in a few words (``"ashfall (1 run)"``).
        facts: (label, value) counts, in reading order; shown as ``value label``, or as
            ``label value`` when the label ends with ``:``.
        notes: issues or warnings, one sentence each, under ``notes_title``.
        columns, rows: an optional small table (one row per game, per agent...).
    """

    kind: str
    headline: str
    facts: tuple[tuple[str, object], ...] = ()
    notes: tuple[str, ...] = ()
    notes_title: str = "issues"
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()

    def text(self) -> str:
        """The few-line text form (each line at most :data:`MAX_WIDTH` characters)."""
        lines = [_clip(f"{self.kind}: {self.headline}")]
        if self.facts:
            lines.append(
                _clip("  " + ", ".join(_fact(label, value) for label, value in self.facts))
            )
        shown = self.rows[:MAX_LINES]
        widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))] if shown else []
        for row in shown:
            cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=True)]
            lines.append(_clip("  " + "  ".join(cells).rstrip()))
        if len(self.rows) > MAX_LINES:
            lines.append(f"  … {len(self.rows) - MAX_LINES} more")
        if self.notes:
            lines.append(f"  {self.notes_title} ({len(self.notes)}):")
            lines.extend(_clip(f"    {n}") for n in self.notes[:MAX_NOTES])
            if len(self.notes) > MAX_NOTES:
                lines.append(f"    … {len(self.notes) - MAX_NOTES} more")
        return "\n".join(lines)


class Shows:
    """Mixin: ``__repr__`` and ``_repr_html_`` from :meth:`_summary`."""

    def _summary(self) -> Summary:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self._summary().text()

    def _repr_html_(self) -> str:
        return draw_html("summary", self._summary())
