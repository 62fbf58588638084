"""One gate vocabulary for every scoring command: which subjects pass a CI gate, and why not.

Every rubric says what it found in its own words (``OK``/``WARN``/``FAIL``, ``PASS``,
``PENDING_RATING``, outcome bands, ``REGRESSION``...). A gate only needs to know what
*kind* of finding each word is, so :data:`STATUS_KINDS` maps the words to seven kinds,
and a gate mode (:data:`MODES`) is the set of kinds that fail it:

========== ==========================================================================
mode       fails a subject on
========== ==========================================================================
strict     anything not green: warn, fail, not measured (N/A), pending, regression
fail-only  fail and regression (WARN, N/A and a pending rating pass)
regression a regression against a baseline only
none       nothing (print, never fail)
========== ==========================================================================

A :class:`Check` is one subject x dimension finding, taken from a
:class:`~toolkit.scorecard.Scorecard` row by :func:`checks_of`; informational dimensions
(``card.meta["informational"]``) are checks that never decide. :func:`decide` returns the
failing checks of each subject. The CLI side (the ``--gate`` flag, the stderr lines, the
exit code) is :mod:`toolkit.cli._gate`; JUnit and Markdown views read the same checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from toolkit._record import FieldsEqual, FieldsRepr, record

if TYPE_CHECKING:
    from toolkit.scorecard import Scorecard

OK_KIND, WARN_KIND, FAIL_KIND, NA_KIND = "ok", "warn", "fail", "na"
PENDING_KIND, REGRESSION_KIND, INFO_KIND = "pending", "regression", "info"

#: A rubric's status or verdict word -> the kind of finding it is.
STATUS_KINDS: dict[str, str] = {
    "OK": OK_KIND,
    "PASS": OK_KIND,
    "HEALTHY": OK_KIND,
    "REPRODUCED": OK_KIND,
    "excellent": OK_KIND,
    "good": OK_KIND,
    "WARN": WARN_KIND,
    "DEGRADED": WARN_KIND,
    "fair": WARN_KIND,
    "FAIL": FAIL_KIND,
    "FAILED": FAIL_KIND,
    "DIVERGES": FAIL_KIND,
    "poor": FAIL_KIND,
    "N/A": NA_KIND,
    "UNKNOWN": NA_KIND,
    "absent": NA_KIND,
    "unscored": NA_KIND,
    "INSUFFICIENT_DATA": NA_KIND,
    "PENDING": PENDING_KIND,
    "PENDING_RATING": PENDING_KIND,
    "REGRESSION": REGRESSION_KIND,
    "SIGNIFICANT": INFO_KIND,
    "n.s.": INFO_KIND,
}

#: Gate mode -> the kinds that fail it. A status word missing from :data:`STATUS_KINDS`
#: is a ``warn``: it fails ``strict`` and never passes silently as green.
MODES: dict[str, frozenset[str]] = {
    "strict": frozenset({WARN_KIND, FAIL_KIND, NA_KIND, PENDING_KIND, REGRESSION_KIND}),
    "fail-only": frozenset({FAIL_KIND, REGRESSION_KIND}),
    "regression": frozenset({REGRESSION_KIND}),
    "none": frozenset(),
}

#: Older spellings, kept working: ``toolkit discussion --gate fail`` was ``fail-only``.
ALIASES: dict[str, str] = {"fail": "fail-only"}


def kind_of(status: str) -> str:
    """The kind of finding a status word is (see :data:`STATUS_KINDS`)."""
    return STATUS_KINDS.get(status, WARN_KIND)


@record  # eq, hash, repr: toolkit._record
class Check(FieldsEqual, FieldsRepr):
    """One subject x dimension finding, as a gate, JUnit and Markdown see it.

    Attributes:
        subject: what was scored (a run slug, a game id, ``iter-7``, ``run/agent``).
        key: the dimension's key (``graph_fanout``), what ``--allow-na`` names.
        name: the dimension's display name.
        status: the rubric's own word for the finding.
        kind: the finding's kind (:data:`STATUS_KINDS`), possibly overridden by the
            command (a persona regression is ``regression``).
        value: the number, or None.
        detail: the evidence, as the scorecard states it.
        green: the OK range, as the rubric states it ("" when it has none).
        red: the FAIL range ("" when it has none).
        counted: False for an informational finding, which never decides a gate.
    """

    subject: str
    key: str
    name: str
    status: str
    kind: str
    value: float | None = None
    detail: str = ""
    green: str = ""
    red: str = ""
    counted: bool = True


def checks_of(
    card: Scorecard, *, kinds: Mapping[str, str] | None = None, by_verdict: bool = False
) -> list[Check]:
    """The checks of one scorecard: one per dimension row.

    A card with no dimension rows (nothing to score) gives one check named ``verdict``
    carrying the verdict and its reason, so that it can still fail a strict gate.

    Args:
        card: the scorecard.
        kinds: overrides by dimension key (e.g. ``{"adherence": "regression"}``).
        by_verdict: the rubric's verdict decides, not each dimension (a discussion game
            passes with 5 of 7 metrics; an iteration's band is its weighted score): the
            dimensions are checks that never decide, and a ``verdict`` check is added.
    """
    skip = set(card.meta.get("informational", ()))
    if by_verdict:
        skip |= set(card.dimensions["dimension"].to_list())
    kinds = kinds or {}
    out = [
        Check(
            subject=card.subject,
            key=row["dimension"],
            name=row["name"],
            status=row["status"],
            kind=kinds.get(row["dimension"], kind_of(row["status"])),
            value=row["value"],
            detail=row["detail"] or "",
            green=row["green"] or "",
            red=row["red"] or "",
            counted=row["dimension"] not in skip,
        )
        for row in card.dimensions.iter_rows(named=True)
    ]
    if by_verdict or not out:
        out.append(
            Check(
                subject=card.subject,
                key="verdict",
                name="verdict",
                status=card.verdict,
                kind=kind_of(card.verdict),
                detail=card.verdict_reason,
            )
        )
    return out


def fails(check: Check, mode: str, allow_na: Iterable[str] = ()) -> bool:
    """Whether ``check`` fails gate ``mode``; ``allow_na`` lists dimension keys whose
    N/A is accepted (``"*"``: every one)."""
    if not check.counted:
        return False
    allowed = set(allow_na)
    if check.kind == NA_KIND and ("*" in allowed or check.key in allowed):
        return False
    return check.kind in MODES[mode]


def decide(
    checks: Sequence[Check], mode: str, allow_na: Iterable[str] = ()
) -> dict[str, list[Check]]:
    """The failing checks of every subject under gate ``mode`` (subjects in first-seen
    order; a subject that passes maps to an empty list)."""
    if mode not in MODES:
        raise ValueError(f"unknown gate mode {mode!r}")
    allowed = tuple(allow_na)
    out: dict[str, list[Check]] = {}
    for check in checks:
        out.setdefault(check.subject, [])
        if fails(check, mode, allowed):
            out[check.subject].append(check)
    return out


def reason(failing: Sequence[Check]) -> str:
    """One line saying why a subject failed: each failing check's name, status and detail."""
    parts = []
    for c in failing:
        word = {NA_KIND: "not measured", REGRESSION_KIND: "REGRESSION"}.get(c.kind, c.status)
        text = " ".join(c.detail.split()).removeprefix("REGRESSION: ")
        detail = f": {text}" if text else ""
        parts.append(f"{c.name} {word}{detail}")
    return "; ".join(parts)
