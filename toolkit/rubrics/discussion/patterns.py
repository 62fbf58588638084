"""The rubric's regular expressions checked as the scorer will run them: by Polars' regex
engine (Rust's ``regex``, whose syntax is not Python's ``re``), in the forms the metrics
build (:func:`pattern_union`, and :func:`ascii_union` on all-ASCII games)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from toolkit.rubrics.discussion.text import ascii_union, pattern_union

__all__ = ["refused_pattern"]


def _forms(patterns: Sequence[str]) -> list[str]:
    """The regexes the scorer compiles for ``patterns``: as written (on text beyond ASCII)
    and as run on all-ASCII text."""
    return [pattern_union(patterns), ascii_union(patterns)[0]]


def _reason(exc: pl.exceptions.ComputeError) -> str:
    """The regex engine's reason in a few words (``unclosed group``)."""
    lines = str(exc).splitlines()
    for line in lines:
        if line.startswith("error: "):
            return line.removeprefix("error: ").strip()
    first = lines[0] if lines else str(exc)
    return first.removeprefix("regex error: ").strip().rstrip(".")


def _refusal(forms: list[str]) -> str | None:
    """Why Polars refuses one of ``forms``, or None when it compiles them all."""
    try:  # every form compiled in one step (a literal's pattern is compiled once)
        pl.select(pl.lit("").str.contains(form).alias(str(i)) for i, form in enumerate(forms))
    except pl.exceptions.ComputeError as exc:
        return _reason(exc)
    return None


def refused_pattern(patterns: Sequence[str]) -> tuple[int | None, str] | None:
    """The first of ``patterns`` Polars' regex engine refuses, as the scorer runs it, and
    the engine's reason: ``(index, reason)``; ``(None, reason)`` when each compiles alone
    but not all together (a capture group name used twice, the size limit); None when
    the scorer can run them all.
    """
    if not patterns:
        return None
    reason = _refusal(_forms(patterns))
    if reason is None:
        return None
    for index, pattern in enumerate(patterns):
        alone = _refusal(_forms([pattern]))
        if alone is not None:
            return index, alone
    return None, reason
