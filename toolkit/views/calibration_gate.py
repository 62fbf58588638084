"""The calibration gate drawn as a scorecard: each finding of ``--gate min-alpha``
(:func:`~toolkit.rubrics.calibrate.gate_checks`) one OK or FAIL dimension, so that
``--junit``, the GitHub step summary and the stderr lines are written as for every
scoring command. The rubric decides; this draws its findings."""

from __future__ import annotations

from toolkit.rubrics.calibrate import Calibration, gate_checks
from toolkit.scorecard import FAIL, OK, Dimension, Scorecard

__all__ = ["gate_scorecard"]


def gate_scorecard(result: Calibration, min_alpha: float, subject: str) -> Scorecard:
    """The gate's findings as a :class:`~toolkit.scorecard.Scorecard` (one dimension per
    :class:`~toolkit.rubrics.calibrate.GateCheck`, OK or FAIL; verdict PASS or FAIL), so
    that ``--junit``, the GitHub step summary and the stderr lines are written as for
    every scoring command.

    Args:
        result: the calibration.
        min_alpha: the gate's alpha (the rubric's when no gate was asked for).
        subject: what was calibrated, e.g. ``judge 'judge' on scores.csv``.
    """
    checks = gate_checks(result, min_alpha)
    dims = [
        Dimension(c.key, c.name, c.value, OK if c.passed else FAIL, c.detail,
                  f">= {min_alpha:g}" + ("" if c.key == "alpha_humans" else ", inside the band"),
                  f"< {min_alpha:g}" + ("" if c.key == "alpha_humans" else " or below the band"))
        for c in checks
    ]  # fmt: skip
    failed = [c.name for c in checks if not c.passed]
    return Scorecard(
        rubric=result.rubric.rubric,
        rubric_version=result.rubric.version,
        subject=subject,
        title=f"calibrate {subject}",
        verdict="FAIL" if failed else "PASS",
        verdict_reason=(
            f"below min-alpha {min_alpha:g} or the band: {', '.join(failed)}"
            if failed
            else f"the judge sits inside the human band (min-alpha {min_alpha:g})"
        ),
        dimensions=Scorecard.dimensions_frame(subject, dims),
        meta={"judge": result.judge, "humans": list(result.humans), "min_alpha": min_alpha},
    )
