"""The small YAML files of a run, read without PyYAML when they are plain enough.

Importing PyYAML costs ~12 ms of CPU (``yaml.reader`` compiles its character class at
import), about 4 % of ``import polars`` and so of a one-run ``toolkit quality`` (issue 38),
to read a ``universe.yaml`` of five lines. :func:`plain_yaml` reads one strict, tiny subset
of YAML itself and answers :data:`OUTSIDE` for everything else, which the caller hands to
the full parser (:func:`toolkit.io.edge.parse_yaml_text`): its checks, its line numbers,
its warnings. The subset, line by line (``\\n`` ends a line, the last one may be missing):

- ``key: value`` at the first column, the key a letter or ``_`` then letters, digits or
  ``_``; the value a *scalar*, or ``[]``, or ``[`` scalars separated by ``", "`` ``]``;
- ``key:`` alone, followed by one or more ``- scalar`` lines, all indented alike (by zero
  or more spaces);
- empty lines (no spaces) between them;

where a scalar is a decimal whole number without a leading zero (up to 18 digits: an
``int``) or words of ASCII letters, digits and ``_ ( ) . + / -`` separated by single
spaces, the first starting with a letter (a ``str``). Outside it: any other character (a tab, a
``\\r``, a quote, ``#``, ``:`` in a value, anything not ASCII), a word YAML 1.1 reads as a
boolean or null (``yes``, ``Off``, ``null``...: case is ignored, and ``y``/``n`` too), a key
that repeats (its warning is the full parser's), an empty document, nesting deeper than
the reading edge's limit. On the subset the data is what PyYAML's safe loader builds
(``tests/io/test_yaml_plain.py`` checks that against PyYAML on generated documents).
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolkit.io.edge import limits

#: Not a value: the text is outside the subset (read it with the full parser).
OUTSIDE: Final = object()

#: A scalar: a whole number (no leading zero), or words starting with a letter.
_SCALAR = re.compile(r"0|[1-9][0-9]{0,17}|[A-Za-z][A-Za-z0-9_().+/-]*(?: [A-Za-z0-9_().+/-]+)*")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.+))?")
_ITEM_LINE = re.compile(r"( *)- (.+)")

#: Words YAML 1.1 resolves to a boolean or null, in any case (PyYAML takes only some
#: casings; the rest stays outside too, as do ``y`` and ``n`` of the YAML 1.1 spec).
_NOT_TEXT = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})


def _scalar(text: str) -> Any:
    """An ``int`` or a ``str``; :data:`OUTSIDE` for any other text."""
    if _SCALAR.fullmatch(text) is None:
        return OUTSIDE
    if text[0].isdigit():
        return int(text)
    return OUTSIDE if text.lower() in _NOT_TEXT else text


def _value(text: str) -> Any:
    """A scalar, or a flow list of them: ``[]``, ``[a]``, ``[a, b]``...; :data:`OUTSIDE`
    for any other text."""
    if not text.startswith("["):
        return _scalar(text)
    if not text.endswith("]"):
        return OUTSIDE
    items = [_scalar(item) for item in text[1:-1].split(", ")] if text != "[]" else []
    return OUTSIDE if any(item is OUTSIDE for item in items) else items


def plain_yaml(text: str) -> Any:
    """The mapping YAML ``text`` holds when it is in the subset (see the module's
    docstring), else :data:`OUTSIDE`."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    out: dict[str, Any] = {}
    listed: list[Any] | None = None  # the list of the last ``key:`` line
    indent: str | None = None  # its items' indent
    for line in lines:
        if not line:
            continue
        item = _ITEM_LINE.fullmatch(line)
        if item is not None:
            if listed is None or indent not in (None, item[1]):
                return OUTSIDE
            indent = item[1]
            value = _scalar(item[2])
            if value is OUTSIDE:
                return OUTSIDE
            listed.append(value)
            continue
        if listed == []:
            return OUTSIDE  # ``key:`` without items: a null
        key = _KEY_LINE.fullmatch(line)
        if key is None or key[1] in out or key[1].lower() in _NOT_TEXT:
            return OUTSIDE
        listed, indent = None, None
        if key[2] is None:
            listed = out[key[1]] = []
            continue
        out[key[1]] = value = _value(key[2])
        if value is OUTSIDE:
            return OUTSIDE
    nested = any(isinstance(value, list) for value in out.values())
    if not out or listed == [] or 1 + nested > limits().max_depth:
        return OUTSIDE
    return out
