"""The comparison's gate: ``--gate no-regression[:DIM,...]`` and why it fails."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.errors import InputError
from toolkit.rubrics.compare.result import CompareResult


def parse_gate(spec: str) -> tuple[str, ...] | None:
    """``no-regression`` -> ``None`` (every dimension); ``no-regression:a,b`` -> those.

    Raises:
        InputError: another mode, or an empty list.
    """
    mode, _, names = spec.partition(":")
    if mode != "no-regression":
        raise InputError(
            None, "must be no-regression or no-regression:DIM,...", field="--gate", value=spec
        )
    if not _:
        return None
    dims = tuple(n.strip() for n in names.split(",") if n.strip())
    if not dims:
        raise InputError(None, "names no dimension after ':'", field="--gate", value=spec)
    return dims


def gate_failures(result: CompareResult, dimensions: Sequence[str] | None = None) -> list[str]:
    """Why a no-regression gate fails: one line per dimension (of ``dimensions``, or all)
    that is significantly worse in B after correction and above the noise floor, with
    its interval. An empty list passes.

    Raises:
        InputError: a dimension in ``dimensions`` that the comparison does not have.
    """
    known = result.dimensions["dimension"].to_list()
    if dimensions is not None:
        for name in dimensions:
            if name not in known:
                raise InputError(
                    None, f"no such dimension (there are: {', '.join(known)})",
                    field="--gate", value=name,
                )  # fmt: skip
    pct = f"{result.interval_level * 100:.3g}%" + (
        " adjusted" if result.interval_level != result.level else ""
    )
    lines = []
    for r in result.dimensions.iter_rows(named=True):
        if r["outcome"] != "worse" or (dimensions is not None and r["dimension"] not in dimensions):
            continue
        interval = (
            f"{pct} CI {r['ci_low']:+.4g} to {r['ci_high']:+.4g}"
            if r["ci_low"] is not None
            else "no interval"
        )
        lines.append(
            f"{r['dimension']} is worse in {result.labels[1]}: {r['diff']:+.4g} ({interval}), "
            f"{result.correction}-adjusted p={r['p_adj']:.3g}"
        )
    return lines
