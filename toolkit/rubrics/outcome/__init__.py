"""The outcome rubric: an explainable quality score per agent iteration and session.

The rubric is data (``outcome.yaml`` beside this package, dot-agents' version 2.1.0, the
default; ``outcome-3.0.0.yaml``, dot-agents' 3.0.0 with ``human_label`` from reviewers'
labels, by ``load_outcome_rubric("dot-agents-3.0.0")``): seven or eight signals with
weights, the combination method, score bands, and the small mappings the sub-scores use.
Scoring is column-wise over the frames of an :class:`~toolkit.load.iterlog.IterationLog` and its
:class:`~toolkit.load.outcome_evidence.OutcomeEvidence`:

* each signal gets a sub-score in [0, 1] per iteration (one outside is clamped, and the
  detail and the warnings say so), or is *absent* (null) with the reason in its ``detail``;
* the value is the weighted mean over the present signals (absent ones drop out of the
  numerator and the denominator); nothing present -> unscored;
* every iteration has a breakdown row per signal whose contributions sum to the value;
* the integrity track pairs what a role claimed with what was observed, and never
  changes the score.

Where each part lives: the rubric as data in :mod:`.spec`, the inputs in :mod:`.inputs`,
the signals in :mod:`.signals`, the combination in :mod:`.combine`, the integrity track
in :mod:`.integrity`, sessions in :mod:`.sessions`, objectives in :mod:`.objectives`, the
result type in :mod:`.result` and :func:`score_outcome` in :mod:`.score`.

See ``docs/rubrics/outcome.md`` for what every number means.
"""

from toolkit.rubrics.outcome.combine import combine
from toolkit.rubrics.outcome.objectives import OBJECTIVES, objectives
from toolkit.rubrics.outcome.result import OutcomeResult
from toolkit.rubrics.outcome.score import score_outcome
from toolkit.rubrics.outcome.signals import Signal
from toolkit.rubrics.outcome.spec import (
    ABSENT,
    HOOK_RESULTS,
    MEANING,
    PUBLISHED_FINGERPRINTS,
    SIGNALS,
    TWO_WAY_ROLES,
    UNSCORED,
    Band,
    OutcomeRubric,
    SignalWeight,
    default_outcome_rubric,
    load_outcome_rubric,
)

__all__ = [
    "ABSENT",
    "HOOK_RESULTS",
    "MEANING",
    "OBJECTIVES",
    "PUBLISHED_FINGERPRINTS",
    "SIGNALS",
    "TWO_WAY_ROLES",
    "UNSCORED",
    "Band",
    "OutcomeResult",
    "OutcomeRubric",
    "Signal",
    "SignalWeight",
    "combine",
    "default_outcome_rubric",
    "load_outcome_rubric",
    "objectives",
    "score_outcome",
]
