"""Is version B better than A? Paired statistics over two sets of scored runs.

``compare`` is a rubric over scorecards: it reads the long frame every family's
scores turn into (:data:`toolkit.frames.COMPARE_SCORES_SCHEMA`: family, unit, run,
dimension, value, passed) for two arms, A and B, and says per dimension how far B
lands from A, with an interval, an exact test, an effect size and a correction across
dimensions. It never opens a file: :mod:`toolkit.fleet.compare` loads and scores the
folders and hands the frames here.

* **Pairing.** Rows of A and B with the same ``unit`` (a scenario, a task, a game,
  proposition x agent) are a pair; repeated runs of a unit are averaged within an arm.
  Units of one arm only are listed, never dropped silently. With no pair at all the
  comparison falls back to unpaired tests and says so.
* **Numeric dimensions:** means of both arms, the mean paired difference B - A with a
  seeded percentile bootstrap interval (:func:`scipy.stats.bootstrap`), Wilcoxon's
  signed-rank test (:func:`scipy.stats.wilcoxon`, exact where scipy computes it) or
  the paired t-test, the standardised effect d_z and the matched-pairs rank-biserial
  correlation. Unpaired: Mann-Whitney U or Welch's t, Cohen's d.
* **Pass/fail outcomes** (a verdict): the flip table of paired units, McNemar's exact
  test (a binomial test on the discordant pairs) and pass^k as tau-bench defines it
  (per unit C(c, k) / C(n, k), averaged over units) for k = 1..n, with a bootstrap
  interval over units, per arm in every comparison; :func:`pass_k` gives it for one set
  of trials (:mod:`~toolkit.rubrics.compare.pass_k`).
* **Strata** (:mod:`~toolkit.rubrics.compare.strata`): for units that carry a difficulty
  or a language (eval-harness runs), which arm is ahead on each value.
* **Correction** across the dimensions of one comparison: Holm (default) or
  Benjamini-Hochberg (:func:`scipy.stats.false_discovery_control`).
* **Noise floor.** From A's repeated runs of one unit: the pooled within-unit standard
  deviation, how far two single runs land apart by chance (95 % of the time), and the
  same for this comparison's mean difference. A difference below it is "within noise"
  whatever its p-value.
* **Planning** (:func:`plan_pairs`): pairs per arm for 80 % power at a given minimum
  detectable effect, from a pilot set.
* **Gate** (:func:`gate_failures`): the dimensions significantly worse after
  correction, one reason line each with its interval.

The rubric is data (:class:`CompareRubric`, loadable from YAML with
:func:`load_compare_rubric`): the level alpha, the interval's confidence, the bootstrap
resamples and the directions (is higher better?) per family and dimension, versioned and
stamped into every result. docs/rubrics/compare.md says what every number means.

Where each part lives: the rubric's data in :mod:`~toolkit.rubrics.compare.rubric`, the
statistics in :mod:`~toolkit.rubrics.compare.stats`, the noise floor in
:mod:`~toolkit.rubrics.compare.noise`, the arms and their pairing in
:mod:`~toolkit.rubrics.compare.arms`, :func:`compare_scores` in
:mod:`~toolkit.rubrics.compare.comparison`, its result in
:mod:`~toolkit.rubrics.compare.result`, the gate in :mod:`~toolkit.rubrics.compare.gate`,
run planning in :mod:`~toolkit.rubrics.compare.planning`, and each family's scores as the
long frame in :mod:`~toolkit.rubrics.compare.family_scores`.
"""

from toolkit.rubrics.compare.arms import check_scores, rekey
from toolkit.rubrics.compare.comparison import compare_scores
from toolkit.rubrics.compare.family_scores import (
    discussion_scores,
    eval_scores,
    outcome_scores,
    persona_scores,
    simulation_scores,
)
from toolkit.rubrics.compare.gate import gate_failures, parse_gate
from toolkit.rubrics.compare.noise import noise_floor
from toolkit.rubrics.compare.pass_k import PassKResult, check_trials, pass_k, pass_k_rows
from toolkit.rubrics.compare.planning import (
    MAX_PAIRS,
    WILCOXON_ARE,
    paired_t_power,
    pairs_for_power,
    plan_pairs,
)
from toolkit.rubrics.compare.result import CompareResult
from toolkit.rubrics.compare.rubric import (
    COMPARE_VERSION,
    CORRECTIONS,
    DEFAULT_COMPARE_RUBRIC,
    DIRECTIONS,
    EVAL_PASSED,
    FAMILIES,
    MAJORITY,
    PAIR_KEYS,
    TESTS,
    VERDICT,
    CompareRubric,
    Direction,
    direction_of,
    load_compare_rubric,
)
from toolkit.rubrics.compare.stats import (
    EXACT_TIES_MAX,
    TestResult,
    adjust,
    bootstrap_interval,
    holm,
    mcnemar_exact,
    paired_test,
    pass_hat_k,
    rank_biserial_paired,
    unpaired_test,
    wilcoxon_test,
)
from toolkit.rubrics.compare.strata import STRATA_KEYS, strata_frame

__all__ = [
    "COMPARE_VERSION",
    "CORRECTIONS",
    "DEFAULT_COMPARE_RUBRIC",
    "DIRECTIONS",
    "EVAL_PASSED",
    "EXACT_TIES_MAX",
    "FAMILIES",
    "MAJORITY",
    "MAX_PAIRS",
    "PAIR_KEYS",
    "STRATA_KEYS",
    "TESTS",
    "VERDICT",
    "WILCOXON_ARE",
    "CompareResult",
    "CompareRubric",
    "Direction",
    "PassKResult",
    "TestResult",
    "adjust",
    "bootstrap_interval",
    "check_scores",
    "check_trials",
    "compare_scores",
    "direction_of",
    "discussion_scores",
    "eval_scores",
    "gate_failures",
    "holm",
    "load_compare_rubric",
    "mcnemar_exact",
    "noise_floor",
    "outcome_scores",
    "paired_t_power",
    "paired_test",
    "pairs_for_power",
    "parse_gate",
    "pass_hat_k",
    "pass_k",
    "pass_k_rows",
    "persona_scores",
    "plan_pairs",
    "rank_biserial_paired",
    "rekey",
    "simulation_scores",
    "strata_frame",
    "unpaired_test",
    "wilcoxon_test",
]
