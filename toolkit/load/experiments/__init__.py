"""Treatment-vs-control experiment results into one long frame of scores.

Two input forms:

* **TinyTroupe results JSON** (``{"experiments": {"Control": {"results": {<metric>:
  [scores...]}, "statistical_test_results_vs_others": {...}}, "Treatment": {...}}}``):
  one score per list element; the unit is the element's position (``"0"``, ``"1"``, ...)
  because the lists are anonymous. The authors' own test results are kept apart, in
  ``reported``, so a reproduction can be checked against them.
* **the-office's experiment runner report** (``{scenario, seed, metrics: {<dim>: {treatment,
  control, delta, tTest, effectSize}}, displayLabels, ...}``), told apart from a TinyTroupe
  file by its shape: summaries only, kept in ``reported`` (no scores); see
  :mod:`~toolkit.load.experiments.office`.
* **A tidy score table** (CSV, JSON Lines or Parquet), one row per score, which is what
  the persona scorers write for two runs of the same agents: columns ``group``
  (``treatment`` | ``control``; or ``run`` plus a run -> group mapping), ``agent`` (or
  ``unit``), ``metric`` (or ``dimension``), ``score``, and optionally ``experiment``.
  See ``docs/rubrics/experiment.md``.

Every score lands in :data:`toolkit.frames.EXPERIMENT_SCORES_SCHEMA` (experiment, group,
metric, unit, score, source_file, family). A TinyTroupe file with several treatment arms
beside its Control gives one experiment per arm (``<name> / <arm>``), each against the same
control scores, all of family ``<name>`` (what a one-way ANOVA compares). A null or empty
score stays in the frame as a null, so the statistics can drop it *and count it*; a score
that is not a number is an error.

Where each part lives: TinyTroupe files in :mod:`~toolkit.load.experiments.tinytroupe`,
tidy tables in :mod:`~toolkit.load.experiments.tidy`, the cells both share in
:mod:`~toolkit.load.experiments.cells`, reference tables in
:mod:`~toolkit.load.experiments.reference`, and the loaded scores with the entry points in
:mod:`~toolkit.load.experiments.scores`.
"""

from toolkit.load.experiments.cells import GROUPS
from toolkit.load.experiments.office import (
    OFFICE_TABLE1_SCENARIOS,
    is_office_report,
    parse_office_report,
)
from toolkit.load.experiments.reference import load_reference_table
from toolkit.load.experiments.scores import (
    ExperimentScores,
    load_experiment,
    load_experiments,
    split_named_path,
)
from toolkit.load.experiments.tidy import (
    TIDY_COLUMNS,
    TIDY_SUFFIXES,
    parse_score_table,
    scores_from_frame,
)
from toolkit.load.experiments.tinytroupe import (
    ReportedTest,
    ResultsFile,
    ResultsGroup,
    parse_tinytroupe_results,
)

__all__ = [
    "GROUPS",
    "OFFICE_TABLE1_SCENARIOS",
    "TIDY_COLUMNS",
    "TIDY_SUFFIXES",
    "ExperimentScores",
    "ReportedTest",
    "ResultsFile",
    "ResultsGroup",
    "is_office_report",
    "load_experiment",
    "load_experiments",
    "load_reference_table",
    "parse_office_report",
    "parse_score_table",
    "parse_tinytroupe_results",
    "scores_from_frame",
    "split_named_path",
]
