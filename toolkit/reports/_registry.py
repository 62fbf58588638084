"""The report templates: which curated notebook renders which kind of input.

Adding a template is one :class:`ReportTemplate` entry in :data:`TEMPLATES` (its notebook
carries the shared header and footer cells; its ``samples`` join the test matrix).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from toolkit.errors import InputError

#: Where the curated notebooks live: ``$TOOLKIT_NOTEBOOKS`` or ``notebooks/`` of the checkout.
NOTEBOOKS_ENV = "TOOLKIT_NOTEBOOKS"
ROOT = Path(__file__).resolve().parents[2]


def notebooks_dir() -> Path:
    """The folder of the curated notebooks (``$TOOLKIT_NOTEBOOKS``, else the checkout's)."""
    return Path(os.environ.get(NOTEBOOKS_ENV) or ROOT / "notebooks")


def _rubric_version(name: str) -> str:
    """The version of the packaged rubric ``name`` (the one each template scores with).

    Each rubric is imported only when its version is asked for: a report needs one rubric,
    and importing all seven costs about a second of CPU (polars, pydantic, the rubrics'
    specs) before ``toolkit report`` could refuse a typo."""
    if name == "simulation":
        from toolkit.rubrics.simulation import DEFAULT_RUBRIC

        return DEFAULT_RUBRIC.version
    if name == "outcome":
        from toolkit.rubrics.outcome import default_outcome_rubric

        return default_outcome_rubric().version
    if name == "discussion":
        from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC

        return DEFAULT_DISCUSSION_SPEC.version
    if name == "persona":
        from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC

        return DEFAULT_PERSONA_RUBRIC.version
    if name == "experiment":
        from toolkit.rubrics.experiment import DEFAULT_RUBRIC as EXPERIMENT_RUBRIC

        return EXPERIMENT_RUBRIC.version
    if name == "compare":
        from toolkit.rubrics.compare import COMPARE_VERSION

        return COMPARE_VERSION
    if name == "calibrate":
        from toolkit.rubrics.calibrate import CALIBRATE_VERSION

        return CALIBRATE_VERSION
    raise KeyError(name)


def _one(template: str, inputs: list[str]) -> str:
    if len(inputs) != 1:
        raise InputError(None, f"template {template!r} takes one input, got {len(inputs)}")
    return inputs[0]


def _two(inputs: list[str]) -> list[str]:
    """A comparison takes two inputs: A (before) and B (after)."""
    if len(inputs) != 2:
        raise InputError(None, f"template 'compare' takes two inputs, A and B, got {len(inputs)}")
    return list(inputs)


def _fleet_glob(inputs: list[str]) -> str:
    """A fleet is one folder of run folders (or a glob of run folders)."""
    pattern = _one("fleet", inputs)
    path = Path(pattern)
    if path.is_dir() and not (path / "tick_summaries").is_dir():
        return str(path / "*")
    return pattern


@dataclass(frozen=True)
class Sample:
    """A sample input a template is tested with (paths relative to the checkout).

    Attributes:
        inputs: the ``INPUT...`` arguments.
        params: extra ``--param`` values.
        expect: text the rendered report must contain (from its scorecard).
    """

    inputs: tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    expect: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportTemplate:
    """One report template: a curated notebook and how inputs become its parameters.

    Attributes:
        name: the name ``toolkit report`` knows it by.
        notebook: the notebook's file name in :func:`notebooks_dir`.
        title: what the report is, for its header.
        rubric: the rubric it scores with.
        doc: the rubric's doc page, relative to the checkout.
        meaning: one paragraph for the footer: how to read the numbers.
        input_parameter: the parameter the inputs are bound to.
        many: the inputs are bound as a list (``INPUT...``) rather than one path.
        path_parameters: other parameters holding paths; a relative ``--param`` value is
            read from the current folder, like the inputs.
        bind: turns the (absolute) inputs into the parameter's value; default: one path,
            or a list when ``many``.
        samples: sample inputs the test matrix renders it with.
        report_params: parameter values every report of this template is rendered with
            (e.g. a notebook's demonstration steps turned off); ``--param`` overrides them.
    """

    name: str
    notebook: str
    title: str
    rubric: str
    doc: str
    meaning: str
    input_parameter: str
    many: bool = False
    path_parameters: tuple[str, ...] = ()
    bind: Callable[[list[str]], Any] | None = None
    samples: tuple[Sample, ...] = ()
    report_params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """The notebook's path."""
        return notebooks_dir() / self.notebook

    @property
    def rubric_version(self) -> str:
        """The version of the rubric the template scores with."""
        return _rubric_version(self.rubric)

    def bind_inputs(self, inputs: list[str]) -> Any:
        """The value of :attr:`input_parameter` for these inputs."""
        if self.bind is not None:
            return self.bind(inputs)
        if self.many:
            if not inputs:
                raise InputError(None, f"template {self.name!r} needs at least one input")
            return list(inputs)
        return _one(self.name, inputs)


_STATUSES = (
    "OK / WARN / FAIL per dimension (N/A: no evidence, with the reason; never a silent score)."
)

_ENTRIES = (
    ReportTemplate(
        name="simulation",
        notebook="simulation_postmortem.ipynb",
        title="Simulation post-mortem",
        rubric="simulation",
        doc="docs/rubrics/simulation.md",
        meaning=(
            "Eight dimensions over the last W ticks of the run (seven decide the verdict), "
            f"{_STATUSES} "
            "The verdict is HEALTHY, DEGRADED (a WARN) or FAILED (a FAIL)."
        ),
        input_parameter="run",
        samples=(
            Sample(("sample_runs/universes/ashfall",), expect=("Verdict: FAILED",)),
            Sample(("sample_runs/universes/harbor-town",), expect=("Verdict: DEGRADED",)),
            Sample(("sample_runs/universes/willowbrook",), expect=("Verdict: HEALTHY",)),
        ),
    ),
    ReportTemplate(
        name="outcome",
        notebook="outcome_integrity.ipynb",
        title="Outcome scores and integrity",
        rubric="outcome",
        doc="docs/rubrics/outcome.md",
        meaning=(
            "Each iteration's score is the weighted mean (0-1) of the signals with evidence; "
            "absent signals drop out and the weights are renormalised. A negative "
            "claimed-vs-observed delta is an over-claim; integrity never changes the score."
        ),
        input_parameter="LOG_DIR",
        path_parameters=("TRANSCRIPTS", "REPO"),
        samples=(
            Sample(
                ("sample_runs/iteration_logs/tally-loop",),
                params={"TRANSCRIPTS": ["sample_runs/iteration_logs/transcripts"]},
                expect=("Breakdown (weight -> effective weight x sub-score = contribution)",),
            ),
        ),
    ),
    ReportTemplate(
        name="discussion",
        notebook="discussion_postmortem.ipynb",
        title="Discussion post-mortem",
        rubric="discussion",
        doc="docs/rubrics/discussion.md",
        meaning=(
            "Seven metrics per game, each with the evidence that decided it; a game PASSes "
            "when enough metrics meet their thresholds, and is PENDING_RATING until "
            "engagement has human ratings."
        ),
        input_parameter="GAMES",
        path_parameters=("BASELINE", "RATINGS"),
        samples=(
            Sample(
                ("sample_runs/discussions",), expect=("Game game-role-repetition", "Game game-pass")
            ),
            Sample(("sample_runs/discussions/game-pass.json",), expect=("Game game-pass",)),
            Sample(("sample_runs/discussions/baseline",), expect=("Game base-7-1",)),
        ),
    ),
    ReportTemplate(
        name="persona",
        notebook="persona_drift.ipynb",
        title="Persona drift",
        rubric="persona",
        doc="docs/rubrics/persona.md",
        meaning=(
            "Each dimension is the mean of its propositions' scores, 0-9, judged on a window "
            "of messages; REGRESSION marks a dimension more than 1.0 below its golden "
            "baseline. Algorithmic evidence beside it needs no LLM."
        ),
        input_parameter="RUN",
        path_parameters=("PERSONAS", "PROPOSITIONS", "CASSETTE", "BASELINES", "GATE_LOG"),
        samples=(Sample(("sample_runs/persona/radio-week2.jsonl",), expect=("REGRESSION",)),),
    ),
    ReportTemplate(
        name="experiment",
        notebook="experiment_report.ipynb",
        title="Treatment vs control",
        rubric="experiment",
        doc="docs/rubrics/experiment.md",
        meaning=(
            "Mean (sd) per group, Δ = treatment − control, Welch's two-sided p; * marks "
            "p < alpha. A row without p is absent and the notes say why."
        ),
        input_parameter="files",
        many=True,
        path_parameters=("reference",),
        samples=(
            Sample(
                (
                    "sample_runs/experiments/harbour_council_gate.json",
                    "sample_runs/experiments/orchard_variety.csv",
                ),
                expect=("harbour_council_gate",),
            ),
            Sample(
                ("sample_runs/experiments/orchard_variety.csv",),
                params={"reference": None},
                expect=("orchard_variety",),
            ),
        ),
    ),
    ReportTemplate(
        name="fleet",
        notebook="fleet_overview.ipynb",
        title="Fleet overview",
        rubric="simulation",
        doc="docs/rubrics/simulation.md",
        meaning=(
            f"Every run scored on the simulation rubric's eight dimensions, {_STATUSES} "
            "Runs are listed worst first."
        ),
        input_parameter="runs",
        bind=_fleet_glob,
        samples=(
            Sample(("sample_runs/fleet",), expect=("run-0000",)),
            Sample(("sample_runs/universes",), expect=("ashfall",)),
        ),
    ),
    ReportTemplate(
        name="rating-agreement",
        notebook="engagement_rating.ipynb",
        title="Engagement ratings and rater agreement",
        rubric="discussion",
        doc="docs/ratings.md",
        meaning=(
            "Engagement is the mean of the raters' latest 1-5 scores per transcript; the "
            "spread is highest minus lowest. Krippendorff's alpha: 1 = perfect agreement, "
            "0 = chance; below 0.667 the scale is not yet read the same way."
        ),
        input_parameter="RATINGS",
        path_parameters=("GAMES",),
        report_params={"DEMO": False},
        samples=(
            Sample(
                ("sample_runs/discussions/rating_events.csv",),
                expect=("rating events saved", "alpha"),
            ),
            Sample(
                ("sample_runs/discussions/rating_events.csv",),
                params={"GAMES": ["sample_runs/discussions/baseline"]},
                expect=("rating events saved", "base-7-1"),
            ),
        ),
    ),
    ReportTemplate(
        name="compare",
        notebook="compare_versions.ipynb",
        title="Is version B better than A?",
        rubric="compare",
        doc="docs/rubrics/compare.md",
        meaning=(
            "Per dimension: B − A over paired units with its seeded bootstrap interval, "
            "Wilcoxon's signed-rank p corrected across dimensions (Holm), the effect size, "
            "and the noise floor of A's repeated runs: a difference below it is within "
            "noise whatever its p-value."
        ),
        input_parameter="ARMS",
        many=True,
        bind=_two,
        samples=(
            Sample(
                ("sample_runs/compare/a", "sample_runs/compare/b"),
                expect=("worse on character_stability", "character_stability"),
            ),
        ),
    ),
    ReportTemplate(
        name="calibration",
        notebook="judge_calibration.ipynb",
        title="Can we trust the judge?",
        rubric="calibrate",
        doc="docs/rubrics/calibration.md",
        meaning=(
            "Krippendorff's alpha among the humans, and with the judge in each human's "
            "place: the judge is as good as one more human when no replacement falls below "
            "the humans' leave-one-out band. Bias is judge − human mean with a bootstrap "
            "interval; the disagreements are ranked by |judge − human mean|."
        ),
        input_parameter="SCORES",
        samples=(
            Sample(
                ("sample_runs/calibration/scores.csv",),
                expect=("alpha among the humans", "p02-cleo", "Sarcasm is this persona"),
            ),
        ),
    ),
)

#: Every report template by name.
TEMPLATES: Mapping[str, ReportTemplate] = MappingProxyType({t.name: t for t in _ENTRIES})


def get_template(name: str) -> ReportTemplate:
    """The template called ``name``.

    Raises:
        InputError: no template has that name.
    """
    try:
        return TEMPLATES[name]
    except KeyError:
        known = ", ".join(TEMPLATES)
        raise InputError(
            None, f"unknown template {name!r}: expected one of {known} or a notebook path"
        ) from None
