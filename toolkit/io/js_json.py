"""JSON text as JavaScript's ``JSON.stringify(value, null, indent)`` writes it.

For documents a JavaScript program reads back and compares byte for byte or displays
(the-office's evaluation harness report, 2L's ``<stem>-evaluation.json``): whole numbers
without a fraction (``1``, not Python's ``1.0``), exponents as ECMAScript's
``Number::toString`` places them (``1e-7``,
``0.000001``, ``1e+21``), keys in insertion order, non-ASCII characters kept, and
``Number.prototype.toFixed`` for the numbers a report prints.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from toolkit.errors import InputError


def js_number(value: float | int, *, non_finite: Literal["refuse", "null"] = "refuse") -> str:
    """``value`` as ECMAScript's ``Number::toString`` (and so ``JSON.stringify``) writes it.

    The digits are the shortest that read back to the same double (Python's ``repr``
    finds the same ones); only their placement differs: ``1`` for 1.0, ``0.00001`` for
    1e-05, ``100000000000000000000`` for 1e20, ``1e+21`` for 1e21. An int below 2**53 is
    written whole; a larger one as the double JavaScript would hold.

    Args:
        non_finite: NaN and the infinities: ``"null"`` writes them as ``JSON.stringify``
            does; ``"refuse"`` (for a reader that formats every number, like the-office's
            harness) raises.

    Raises:
        InputError: a boolean, or NaN or an infinity under ``"refuse"``.
    """
    if isinstance(value, bool):
        raise InputError(None, "a boolean is not a number", field="number", value=value)
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        if non_finite == "null":
            return "null"
        raise InputError(None, "JSON has no such number", field="number", value=value)
    if number == 0:
        return "0"  # -0 too: JSON.stringify(-0) is "0"
    sign = "-" if number < 0 else ""
    digits, point = _shortest_digits(abs(number))
    k, n = len(digits), point
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        exponent = n - 1
        mark = "+" if exponent >= 0 else "-"
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{mark}{abs(exponent)}"
    return sign + body


def _shortest_digits(number: float) -> tuple[str, int]:
    """The shortest round-trip digits of a positive finite ``number`` and ``n`` with
    ``number = 0.d1d2...dk × 10**n`` (ECMAScript's notation)."""
    text = repr(number)
    mantissa, _, exp = text.partition("e")
    exponent = int(exp) if exp else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    lead = len(whole) if whole != "0" else -(len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    return digits, lead + exponent


def js_to_fixed(value: float, digits: int) -> str:
    """``value.toFixed(digits)`` as JavaScript computes it: the exact binary value rounded
    half up (away from zero), ``-`` kept for a negative value that rounds to zero
    (``(-0.04).toFixed(1)`` is ``"-0.0"``), none for ``-0``; from 1e21 on, the number as
    ``String(value)`` writes it."""
    number = float(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if abs(number) >= 1e21:
        return js_number(number)  # toFixed falls back to ToString from 10**21 on
    sign = "-" if number < 0 else ""
    quantum = Decimal(1).scaleb(-digits)
    rounded = Decimal(abs(number)).quantize(quantum, rounding=ROUND_HALF_UP)
    return sign + f"{rounded:.{digits}f}"


def js_json(
    value: Any, indent: int = 2, *, non_finite: Literal["refuse", "null"] = "refuse"
) -> str:
    """``JSON.stringify(value, null, indent)`` of a document of dicts, lists, strings,
    numbers, booleans and ``None`` (no trailing newline, as JavaScript gives it);
    ``non_finite`` as in :func:`js_number`."""
    return _dump(value, indent, 0, non_finite)


def _dump(value: Any, indent: int, depth: int, non_finite: Literal["refuse", "null"]) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value, non_finite=non_finite)
    if isinstance(value, str):
        return _string(value)
    pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = [
            f"{inner}{_string(k)}: {_dump(v, indent, depth + 1, non_finite)}"
            for k, v in js_items(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, Sequence):
        if not value:
            return "[]"
        items = [f"{inner}{_dump(v, indent, depth + 1, non_finite)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    raise InputError(None, "cannot be written as JSON", field="value", value=type(value).__name__)


#: A surrogate code point (after pairs are joined: a lone one).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(value: object) -> str:
    """A string as JSON.stringify quotes it: non-ASCII kept, a surrogate pair as the one
    character it encodes in UTF-16, a lone surrogate (which UTF-8 cannot encode) as a
    lowercase ``\\u`` escape (ES2019's well-formed stringify)."""
    text = str(value)
    if _SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    quoted = json.dumps(text, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def js_items(value: Mapping[Any, Any]) -> list[tuple[str, Any]]:
    """The items in the order JavaScript enumerates an object's keys (ECMA-262
    OrdinaryOwnPropertyKeys): array indices (the canonical decimal of 0 .. 2**32 - 2)
    ascending first, then the other keys in insertion order."""
    items = [(str(k), v) for k, v in value.items()]
    indices = sorted(((int(k), k, v) for k, v in items if _is_index(k)), key=lambda t: t[0])
    return [(k, v) for _, k, v in indices] + [(k, v) for k, v in items if not _is_index(k)]


def _is_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and str(int(key)) == key and int(key) < 2**32 - 1
