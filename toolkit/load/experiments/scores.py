"""The loaded scores (:class:`ExperimentScores`) and the entry points that read one or
several experiment files of either format."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import EXPERIMENT_REPORTED_SCHEMA, EXPERIMENT_SCORES_SCHEMA
from toolkit.load._common import read_json
from toolkit.load.experiments.office import is_office_report, parse_office_report
from toolkit.load.experiments.tidy import TIDY_SUFFIXES, parse_score_table, read_tidy
from toolkit.load.experiments.tinytroupe import parse_tinytroupe_results
from toolkit.summary import Shows, Summary, plural

# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class ExperimentScores(Shows):
    """Scores of one or more treatment-vs-control experiments.

    Attributes:
        scores: one row per score, :data:`toolkit.frames.EXPERIMENT_SCORES_SCHEMA`
            (experiment, group, metric, unit, score, source_file); null scores kept.
        reported: the authors' own test results where the file carries them,
            :data:`toolkit.frames.EXPERIMENT_REPORTED_SCHEMA`.
        warnings: leniencies applied while loading (one sentence each).
        sources: the file each experiment came from.
    """

    scores: pl.DataFrame
    reported: pl.DataFrame
    warnings: tuple[str, ...] = ()
    sources: Mapping[str, str] | None = None

    def _summary(self) -> Summary:
        names = self.experiments
        shown = ", ".join(names[:3]) + (f", … {len(names) - 3} more" if len(names) > 3 else "")
        return Summary(
            "ExperimentScores",
            f"{plural(len(names), 'experiment')} ({shown or 'none'})",
            (
                ("scores", self.scores.height),
                ("metrics", self.scores["metric"].n_unique()),
                ("null scores", self.scores["score"].null_count()),
                ("reported tests", self.reported.height),
            ),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def experiments(self) -> list[str]:
        """Experiment names in load order."""
        return list(dict.fromkeys(self.scores["experiment"].to_list()))


_NAMED = re.compile(r"^([^=/\\]+)=(.+)$")


def split_named_path(arg: str) -> tuple[str | None, Path]:
    """``"exp_1=path/file.json"`` -> ``("exp_1", path)``; a plain path -> ``(None, path)``."""
    if Path(arg).exists():
        return None, Path(arg)
    m = _NAMED.match(arg)
    if m:
        return m.group(1).strip(), Path(m.group(2))
    return None, Path(arg)


def load_experiment(
    path: str | Path,
    *,
    experiment: str | None = None,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> ExperimentScores:
    """Load one experiment file: TinyTroupe results JSON, or a tidy score table.

    Args:
        path: a ``.json`` TinyTroupe results file or the-office experiment runner report
            (told apart by shape; the report gives ``reported`` rows and no scores), or a
            ``.csv`` / ``.jsonl`` / ``.parquet`` tidy table.
        experiment: the experiment's name (default: the file's stem; a tidy table's
            ``experiment`` column wins over both).
        groups: for tidy tables with a ``run`` column: run name -> treatment | control.
        rename: metric name as written in the file -> the name to report it under (e.g.
            ``{"Hard Persona Adherence": "Persona Adherence"}``).

    Returns:
        :class:`ExperimentScores` whose ``scores`` frame has the columns experiment,
        group (treatment | control), metric, unit, score (Float64, null kept),
        source_file.

    Raises:
        InputError: the file is missing, unreadable or not in either format; one line
            naming the file, the field and the value.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(
            p, "is a folder: name the results files in it (e.g. FOLDER/*.json FOLDER/*.csv)"
        )
    if not p.exists():
        raise InputError(p, "no such file")
    name = experiment or p.stem
    suffix = p.suffix.lower()
    if suffix == ".json":
        data = read_json(p)
        if is_office_report(data):  # the-office's runner report: summaries, no scores
            reported, warnings = parse_office_report(p, data, experiment, rename)
            sources = {e: str(p) for e in dict.fromkeys(reported["experiment"].to_list())}
            empty = pl.DataFrame(schema=EXPERIMENT_SCORES_SCHEMA)
            return ExperimentScores(empty, reported, tuple(warnings), sources or {name: str(p)})
        scores, reported, warnings = parse_tinytroupe_results(p, data, name, rename)
    elif suffix in TIDY_SUFFIXES:
        rows, first = read_tidy(p)
        scores = parse_score_table(
            p, rows, first_line=first, experiment=experiment, groups=groups, rename=rename
        )
        reported, warnings = pl.DataFrame(schema=EXPERIMENT_REPORTED_SCHEMA), []
    else:
        raise InputError(
            p,
            "unknown experiment file type (expected .json, .csv, .jsonl or .parquet)",
            field="suffix",
            value=p.suffix,
        )
    if scores.height == 0:
        warnings.append(f"{p}: no scores")
    sources = {e: str(p) for e in dict.fromkeys(scores["experiment"].to_list())} or {name: str(p)}
    return ExperimentScores(scores, reported, tuple(warnings), sources)


def load_experiments(
    paths: Iterable[str | Path | tuple[str, str | Path]],
    *,
    groups: Mapping[str, str] | None = None,
    rename: Mapping[str, str] | None = None,
) -> ExperimentScores:
    """Load several experiment files into one :class:`ExperimentScores`.

    Args:
        paths: files, or ``(experiment name, file)`` pairs; a string ``"NAME=FILE"`` also
            names the experiment (as on the command line).
        groups: see :func:`load_experiment`.
        rename: see :func:`load_experiment`.

    Raises:
        InputError: a bad file, or two files giving the same experiment name.
    """
    loaded: list[ExperimentScores] = []
    owner: dict[str, str] = {}
    for item in paths:
        if isinstance(item, tuple):
            name: str | None = item[0]
            path = Path(item[1])
        else:
            name, path = split_named_path(str(item))
        one = load_experiment(path, experiment=name, groups=groups, rename=rename)
        for exp, src in (one.sources or {}).items():
            if exp in owner:
                raise InputError(
                    path,
                    f"experiment name already used by {owner[exp]}; name it NAME=FILE",
                    field="experiment",
                    value=exp,
                )
            owner[exp] = src
        loaded.append(one)
    if not loaded:
        raise InputError(None, "no experiment files given")
    return ExperimentScores(
        scores=pl.concat([x.scores for x in loaded], how="vertical"),
        reported=pl.concat([x.reported for x in loaded], how="vertical"),
        warnings=tuple(w for x in loaded for w in x.warnings),
        sources=owner,
    )
