"""Rounding for display: half away from zero, as papers print their numbers."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation


def round_half_away(value: float | None, decimals: int = 2) -> float | None:
    """Round as papers do: half away from zero, on the number as Python prints it.

    The float's shortest decimal form (``repr``: 6.745, not the binary
    6.74499999999999957...) is rounded half away from zero in decimal, so 6.745 -> 6.75
    and -0.125 -> -0.13, where Python's ``round`` (half to even, on the binary value)
    gives 6.74 and -0.12. A difference that float subtraction left just short of a half
    (6.15 - 6.625 = -0.47499999999999964) rounds towards zero (-0.47), as it does in any
    program that prints the float it computed.
    """
    if value is None or math.isnan(value) or math.isinf(value):
        return None
    exact = Decimal(repr(float(value)))
    try:
        return float(exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
    except InvalidOperation:  # more digits than decimal's precision: nothing to round
        return float(value)


def format_number(value: float | None, decimals: int = 2) -> str:
    """``value`` rounded half away from zero and printed with ``decimals`` decimals."""
    rounded = round_half_away(value, decimals)
    if rounded is None:
        return "-"
    text = f"{rounded:.{decimals}f}"
    return "0." + "0" * decimals if text == "-0." + "0" * decimals else text


def format_p(p: float | None, floor: float = 0.001, decimals: int = 3) -> str:
    """A p-value as in the paper: ``<0.001`` below the floor, else three decimals."""
    if p is None or math.isnan(p):
        return "-"
    if p < floor:
        return f"<{floor:g}"
    return format_number(p, decimals)
