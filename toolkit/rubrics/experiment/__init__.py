"""Treatment-vs-control experiments: Welch's t-test per experiment and metric (or another
test from scipy: Student's t, Mann-Whitney U, Kolmogorov-Smirnov, chi-square; one-way
ANOVA over three or more groups), with Shapiro-Wilk and Levene assumption checks.

Per-group summaries (n, nulls, mean, sample sd) come from one Polars ``group_by`` over
the long scores frame; the test itself (difference, standard error, Welch-Satterthwaite
degrees of freedom, t, Cohen's d) is column-wise Polars expressions; only the two
t-distribution look-ups (two-sided p-value and the critical value for the interval) go
through :mod:`scipy.stats`, vectorised over the whole column.

Conventions (those of TinyTroupe's paper, arXiv:2507.09788): the difference is
**treatment - control**, sds are sample sds (n - 1), Cohen's d divides the difference by
the pooled sd (weights n - 1), the interval for the difference is Welch's with the same
degrees of freedom at confidence 1 - alpha, so it excludes 0 exactly when p < alpha.

Where each part lives: the rubric's data in :mod:`~toolkit.rubrics.experiment.rubric`,
rounding for display in :mod:`~toolkit.rubrics.experiment.rounding`, per-group summaries
and intervals in :mod:`~toolkit.rubrics.experiment.samples`, the two-group tests in
:mod:`~toolkit.rubrics.experiment.two_groups`, one-way ANOVA in
:mod:`~toolkit.rubrics.experiment.anova`, the assumption checks in
:mod:`~toolkit.rubrics.experiment.assumptions`, the checks against other tables in
:mod:`~toolkit.rubrics.experiment.reference`, and the scorecards in
:mod:`~toolkit.rubrics.experiment.scorecards`.
"""

from toolkit.rubrics.experiment.anova import ANOVA_SCHEMA, anova_stats
from toolkit.rubrics.experiment.assumptions import (
    ASSUMPTIONS_SCHEMA,
    LARGE_GROUP,
    assumption_checks,
)
from toolkit.rubrics.experiment.office import Reproduction, office_reproduction, reported_stats
from toolkit.rubrics.experiment.reference import (
    AGREEMENT_SCHEMA,
    DIRECTION_SCHEMA,
    compare_to_reference,
    compare_to_reported,
    match_key,
    match_key_expr,
)
from toolkit.rubrics.experiment.rounding import format_number, format_p, round_half_away
from toolkit.rubrics.experiment.rubric import (
    DEFAULT_RUBRIC,
    NOT_SIGNIFICANT,
    PUBLISHED,
    SIGN_DECIMALS,
    SIGNIFICANT,
    STATISTIC_NAMES,
    TESTS,
    ExperimentRubric,
    load_experiment_rubric,
)
from toolkit.rubrics.experiment.samples import INTERVALS_SCHEMA, group_intervals
from toolkit.rubrics.experiment.scorecards import experiment_scorecards
from toolkit.rubrics.experiment.two_groups import experiment_stats

__all__ = [
    "AGREEMENT_SCHEMA",
    "ANOVA_SCHEMA",
    "ASSUMPTIONS_SCHEMA",
    "DEFAULT_RUBRIC",
    "DIRECTION_SCHEMA",
    "INTERVALS_SCHEMA",
    "LARGE_GROUP",
    "NOT_SIGNIFICANT",
    "PUBLISHED",
    "SIGNIFICANT",
    "SIGN_DECIMALS",
    "STATISTIC_NAMES",
    "TESTS",
    "ExperimentRubric",
    "Reproduction",
    "anova_stats",
    "assumption_checks",
    "compare_to_reference",
    "compare_to_reported",
    "experiment_scorecards",
    "experiment_stats",
    "format_number",
    "format_p",
    "group_intervals",
    "load_experiment_rubric",
    "match_key",
    "match_key_expr",
    "office_reproduction",
    "reported_stats",
    "round_half_away",
]
