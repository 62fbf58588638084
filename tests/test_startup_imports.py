"""What starting the toolkit imports: `import toolkit` and each CLI command stay light.

Each command runs in a fresh Python process on a sample input; the process then reports
the modules it imported, which must include none of the heavy libraries (charts, widgets,
statistics, notebook machinery) unless the command needs them. Structural, not timed:
the times are in bench/bench_startup.py and docs/performance.md.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLE_RUNS

import toolkit
import toolkit.reports

#: Top-level packages that no light path may import (altair pulls jsonschema, whose
#: rfc3987 backend alone costs seconds; the notebook machinery is as slow).
HEAVY = frozenset(
    {
        "altair",
        "vega",
        "vegafusion",
        "vl_convert",
        "ipywidgets",
        "anywidget",
        "jsonschema",
        "scipy",
        "nbclient",
        "nbconvert",
        "papermill",
        "starlette",
        "uvicorn",
        "jinja2",
        "great_tables",
        "psycopg",
    }
)

#: Object-storage and cluster libraries: imported only when a URL or --engine dask asks.
STORAGE = frozenset({"fsspec", "s3fs", "aiobotocore", "boto3", "botocore", "dask", "distributed"})

#: Runs the CLI, then writes its exit code and sorted(sys.modules) to the file argv[1].
CLI_WRAPPER = """
import json, sys
from toolkit.cli import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:  # --help and argument errors exit from argparse
    code = exc.code
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""

UNIVERSES = SAMPLE_RUNS / "universes"
RUN = UNIVERSES / "ashfall"
LOG = SAMPLE_RUNS / "iteration_logs" / "tally-loop"
GAMES = SAMPLE_RUNS / "discussions"
PERSONA = SAMPLE_RUNS / "persona"


def _env() -> dict[str, str]:
    """This checkout's toolkit first on the path of the child process."""
    here = str(Path(toolkit.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}


def _imported(code: str, *args: str, tmp_path: Path) -> tuple[object, set[str]]:
    """Run ``code`` in a fresh interpreter; its exit code and the top-level modules it
    imported (read from the file it writes)."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out), *args],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.exists(), f"the child process failed:\n{done.stderr[-3000:]}"
    report = json.loads(out.read_text(encoding="utf-8"))
    return report["code"], {name.partition(".")[0] for name in report["modules"]}


#: (test id, CLI arguments, expected exit code)
LIGHT_COMMANDS = [
    ("help", ["--help"], 0),
    ("quality-help", ["quality", "--help"], 0),
    ("quality-table", ["quality", str(RUN)], 0),
    ("quality-json", ["quality", str(RUN), "--format", "json"], 0),
    ("quality-html", ["quality", str(RUN), "--format", "html"], 0),
    ("quality-gate", ["quality", str(RUN), "--gate"], 1),
    ("quality-all", ["quality", "--all", str(UNIVERSES)], 0),
    ("quality-all-json", ["quality", "--all", str(UNIVERSES), "--format", "json"], 0),
    ("quality-bad-input", ["quality", str(ROOT / "no-such-run")], 2),
    ("outcome-table", ["outcome", str(LOG)], 0),
    ("outcome-json", ["outcome", str(LOG), "--format", "json"], 0),
    ("outcome-iteration", ["outcome", str(LOG), "--iteration", "2"], 0),
    ("outcome-all", ["outcome", "--all", str(LOG.parent)], 0),
    ("discussion-table", ["discussion", str(GAMES)], 0),
    (
        "discussion-ratings-baseline-json",
        [
            "discussion",
            str(GAMES),
            "--ratings",
            str(GAMES / "ratings.csv"),
            "--baseline",
            str(GAMES / "baseline"),
            "--format",
            "json",
        ],
        0,
    ),
    (
        "persona-recorded-judge",
        [
            "persona",
            str(PERSONA / "radio-week2.jsonl"),
            "--propositions",
            str(PERSONA / "propositions"),
            "--judge",
            f"recorded:{PERSONA / 'cassette.json'}",
            "--baseline",
            str(PERSONA / "baselines"),
        ],
        1,  # week 2 regresses against week 1's baselines, as the sample is meant to show
    ),
    # The commands that may import heavy parts do so only after parsing their arguments.
    ("experiment-help", ["experiment", "--help"], 0),
    ("report-help", ["report", "--help"], 0),
    ("report-argument-error", ["report", "simulation"], 2),
    # A misspelt --param is refused from the notebook's JSON, before nbformat or a kernel.
    ("report-param-typo", ["report", "simulation", str(RUN), "--param", "windw=5"], 2),
    ("rate-help", ["rate", "--help"], 0),
    ("rate-argument-error", ["rate", str(GAMES), "--port", "70000"], 2),
    ("view-help", ["view", "--help"], 0),
    ("view-bad-input", ["view", str(ROOT / "no-such-run"), "-o", str(ROOT / "no-such-site")], 2),
    ("calibrate-help", ["calibrate", "--help"], 0),
    ("calibrate-bad-input", ["calibrate", str(ROOT / "no-such-scores.csv")], 2),
]


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [pytest.param(args, code, id=name) for name, args, code in LIGHT_COMMANDS],
)
def test_light_commands_import_no_heavy_library(
    args: list[str], exit_code: int, tmp_path: Path
) -> None:
    code, modules = _imported(CLI_WRAPPER, *args, tmp_path=tmp_path)
    assert code == exit_code
    assert "toolkit" in modules
    assert modules & HEAVY == set()
    assert modules & STORAGE == set()  # local inputs: no storage back-end, no Dask


def test_experiment_imports_scipy_but_no_chart_or_notebook_library(tmp_path: Path) -> None:
    results = SAMPLE_RUNS / "experiments" / "orchard_variety.csv"
    code, modules = _imported(CLI_WRAPPER, "experiment", str(results), tmp_path=tmp_path)
    assert code == 0
    assert "scipy" in modules  # the t-distribution look-ups
    assert modules & HEAVY == {"scipy"}


IMPORT_ONLY = """
import json, sys
import toolkit
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": 0, "modules": sorted(sys.modules)}, out)
"""


def test_import_toolkit_imports_no_heavy_library(tmp_path: Path) -> None:
    _, modules = _imported(IMPORT_ONLY, tmp_path=tmp_path)
    assert "toolkit" in modules
    assert modules & HEAVY == set()


def test_a_chart_imports_altair_on_first_use(tmp_path: Path) -> None:
    panel = f"tk.quality_panel(tk.score_universe(tk.load_universe({str(RUN)!r}))[0])"
    code = IMPORT_ONLY.replace("import toolkit\n", f"import toolkit as tk\n{panel}\n")
    _, modules = _imported(code, tmp_path=tmp_path)
    assert "altair" in modules  # (which itself imports anywidget and ipywidgets)
    assert modules & {"scipy", "nbclient", "nbconvert", "papermill", "starlette"} == set()


# ---------------------------------------------------------------------------
# The lazy table of public names
# ---------------------------------------------------------------------------


def _static_imports(package_file: str) -> dict[str, str]:
    """Name -> "module" (or "module:attribute") of the TYPE_CHECKING imports of a package."""
    tree = ast.parse(Path(package_file).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    assert stmt.module is not None
                    for alias in stmt.names:
                        name = alias.asname or alias.name
                        found[name] = stmt.module + ("" if name == alias.name else f":{alias.name}")
    return found


@pytest.mark.parametrize("package", [toolkit, toolkit.reports], ids=lambda p: p.__name__)
def test_the_static_imports_name_the_same_modules_as_the_lazy_table(package: object) -> None:
    table: dict[str, str] = package._LAZY  # type: ignore[attr-defined]
    assert _static_imports(package.__file__) == table  # type: ignore[attr-defined]


@pytest.mark.parametrize("package", [toolkit, toolkit.reports], ids=lambda p: p.__name__)
def test_every_public_name_resolves_and_is_listed_by_dir(package: object) -> None:
    public = package.__all__  # type: ignore[attr-defined]
    assert len(public) == len(set(public))
    listed = dir(package)
    for name in public:
        assert name in listed
        assert getattr(package, name) is not None, name


def test_each_public_name_is_the_object_its_module_defines() -> None:
    import importlib

    for name, target in toolkit._LAZY.items():
        module, _, attribute = target.partition(":")
        assert getattr(toolkit, name) is getattr(importlib.import_module(module), attribute or name)
    assert toolkit.compare_discussions.__name__ == "compare"
    assert toolkit.__version__ == "0.1.0"


def test_a_mistyped_name_raises_the_usual_attribute_error() -> None:
    with pytest.raises(AttributeError) as caught:
        toolkit.load_univers  # noqa: B018
    assert str(caught.value) == "module 'toolkit' has no attribute 'load_univers'"
    assert caught.value.name == "load_univers"
    assert caught.value.obj is toolkit
    assert not hasattr(toolkit, "no_such_name")
    with pytest.raises(ImportError, match="cannot import name 'load_univers' from 'toolkit'"):
        from toolkit import load_univers  # type: ignore[attr-defined]  # noqa: F401


def test_the_hint_for_a_mistyped_name_is_pythons_did_you_mean() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import toolkit; toolkit.load_univers"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1
    assert last == (
        "AttributeError: module 'toolkit' has no attribute 'load_univers'. "
        "Did you mean: 'load_universe'?"
    )


def test_report_help_names_every_template_though_the_parser_does_not_read_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from toolkit.cli import main

    with pytest.raises(SystemExit) as done:
        main(["report", "--help"])
    shown = " ".join(capsys.readouterr().out.split())  # unwrapped
    assert done.value.code == 0
    names = ", ".join(toolkit.reports.TEMPLATES)
    assert f"Execute a report template ({names}, or the path of any notebook" in shown
    assert f"TEMPLATE {names}, or a notebook path" in shown
    assert "{template names}" not in shown


def test_report_process_skips_jsonschemas_iri_parsers_and_still_validates_notebooks(
    tmp_path: Path,
) -> None:
    code = """
import json, sys
from toolkit.cli.report import _without_iri_parsers
_without_iri_parsers()
import nbformat
nb = nbformat.read(sys.argv[2], as_version=4)
nbformat.validate(nb)
broken = nbformat.from_dict(json.loads(json.dumps(nb)))
broken.cells[0].cell_type = "nonsense"
try:
    nbformat.validate(broken)
    caught = False
except nbformat.ValidationError:
    caught = True
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": caught, "modules": sorted(k for k, v in sys.modules.items() if v)}, out)
"""
    notebook = ROOT / "notebooks" / "simulation_postmortem.ipynb"
    caught, modules = _imported(code, str(notebook), tmp_path=tmp_path)
    assert caught is True  # nbformat's schema validation still works without it
    assert "jsonschema" in modules and "rfc3987_syntax" not in modules


# ---------------------------------------------------------------------------
# One run (issue 38): what `toolkit quality RUN` and `toolkit discussion DIR` leave out
# ---------------------------------------------------------------------------

#: Runs the CLI, then writes every module it imported and whether pydantic's plugin
#: discovery ran (its cache is filled by the scan of every distribution's entry points).
ONE_RUN_WRAPPER = """
import json, sys
from toolkit.cli import main
code = main(sys.argv[2:])
loader = sys.modules.get("pydantic.plugin._loader")
pydantic = sys.modules.get("pydantic")  # quality with the default rubric never imports it
models, todo = [], list(pydantic.BaseModel.__subclasses__()) if pydantic else []
while todo:  # every pydantic model class built in the process
    model = todo.pop()
    models.append(f"{model.__module__}.{model.__qualname__}")
    todo.extend(model.__subclasses__())
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": code, "modules": sorted(sys.modules), "models": sorted(models),
               "plugins_scanned": loader is not None and loader._plugins is not None}, out)
"""

#: Modules no one-run command needs: the other subcommands (their parsers and modules
#: are built only for --help), numbers libraries Polars does without, progress bars.
ONE_RUN_NEVER = frozenset(
    {f"toolkit.cli.{name}" for name in ("persona", "experiment", "rate", "report", "view")}
    | {"numpy", "tqdm", "asyncio", "toolkit.views.site", "toolkit.fleet"}
)

ONE_RUN_COMMANDS = [
    ("quality", ["quality", str(RUN)], "toolkit.cli.discussion"),
    ("quality-json", ["quality", str(RUN), "--format", "json"], "toolkit.cli.discussion"),
    ("discussion", ["discussion", str(GAMES)], "toolkit.cli.quality"),
]


def _one_run(args: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> dict:
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", ONE_RUN_WRAPPER, str(out), *args],
        cwd=ROOT,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.exists(), f"the child process failed:\n{done.stderr[-3000:]}"
    report: dict = json.loads(out.read_text(encoding="utf-8"))
    return report


@pytest.mark.parametrize(
    ("args", "sibling"),
    [pytest.param(args, sibling, id=name) for name, args, sibling in ONE_RUN_COMMANDS],
)
def test_one_run_builds_only_its_own_command_and_skips_pydantic_plugin_discovery(
    args: list[str], sibling: str, tmp_path: Path
) -> None:
    report = _one_run(args, tmp_path)
    modules = set(report["modules"])
    assert report["code"] == 0
    assert f"toolkit.cli.{args[0]}" in modules
    assert sibling not in modules  # another command's module: only --help imports them all
    never = {m for m in modules for n in ONE_RUN_NEVER if m == n or m.startswith(n + ".")}
    assert never == set()
    # neither builds a pydantic model by default (see below); a command that does, does
    # so without reading every distribution's entry points (the next test)
    assert report["plugins_scanned"] is False


def test_a_user_who_sets_pydantic_disable_plugins_keeps_their_setting(tmp_path: Path) -> None:
    env = {**_env(), "PYDANTIC_DISABLE_PLUGINS": ""}  # empty: plugins on
    rubric = tmp_path / "rubric.yaml"  # a rubric file: the models validate it
    rubric.write_text("version: 9.0.0\nmin_passed: 4\n", encoding="utf-8")
    report = _one_run(["discussion", str(GAMES), "--rubric", str(rubric)], tmp_path, env)
    assert report["code"] == 0
    assert report["plugins_scanned"] is True
    # and without the variable, the same command skips the scan
    assert (
        _one_run(["discussion", str(GAMES), "--rubric", str(rubric)], tmp_path)["plugins_scanned"]
        is False
    )


def test_help_still_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from toolkit.cli import COMMANDS, main

    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    for module in COMMANDS:
        assert module.rpartition(".")[2] in shown


def test_compare_of_simulation_arms_imports_no_other_familys_loader(tmp_path: Path) -> None:
    pair = SAMPLE_RUNS / "compare"
    report = _one_run(["compare", str(pair / "a"), str(pair / "b")], tmp_path)
    modules = set(report["modules"])
    assert report["code"] == 0
    assert "toolkit.load.universe" in modules  # the arms are simulation runs
    others = {
        "toolkit.load.discussion",
        "toolkit.load.persona",
        "toolkit.load.iterlog",
        "toolkit.load.ratings",
        "toolkit.load.trials",
        "toolkit.fleet.eval_runs",
        "toolkit.judge",
        "toolkit.rubrics.outcome",
        "toolkit.rubrics.persona",
        "toolkit.rubrics.discussion",
    }
    assert modules & others == set()
    assert {m.partition(".")[0] for m in modules} & {"tqdm", "asyncio", "scipy"} == set()
    assert report["plugins_scanned"] is False


@pytest.mark.parametrize(
    "args",
    [pytest.param(args, id=name) for name, args, _ in ONE_RUN_COMMANDS if args[0] == "quality"],
)
def test_one_run_quality_with_the_default_rubric_imports_no_pydantic_remote_source_or_pyyaml(
    args: list[str], tmp_path: Path
) -> None:
    # The default rubric's plain values score it (pydantic and the rubric's nine model
    # classes: ~0.1 s of CPU, issue 38); the models come back when a user names one. A
    # well-formed run's tick files and batch record are checked without the loader's file
    # models too (~13 ms; only for a file the fast path cannot vouch for).
    report = _one_run(args, tmp_path)
    assert report["code"] == 0
    modules = set(report["modules"])
    assert "toolkit.load._run_models" not in modules
    assert {m.partition(".")[0] for m in modules} & {"pydantic", "pydantic_core"} == set()
    assert "toolkit.rubrics.simulation.spec" not in modules
    # The remote source and its network settings are for URLs only (a few ms of every
    # local run); `toolkit.io.source` imports them on first use.
    assert "toolkit.io.source" in modules
    assert {"toolkit.io.source_remote", "toolkit.io.network"} & modules == set()
    assert "toolkit.rubrics._spec" not in modules
    assert report["models"] == []
    # universe.yaml and conservation.yaml are plain: read without PyYAML (~12 ms of import)
    assert {m.partition(".")[0] for m in modules} & {"yaml", "_yaml"} == set()
    assert "toolkit.io.yaml_plain" in modules


def test_one_run_quality_with_a_rubric_file_still_validates_it_with_the_model(
    tmp_path: Path,
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("version: 9.0.0\nwindow: 20\n", encoding="utf-8")
    report = _one_run(["quality", str(RUN), "--rubric", str(rubric)], tmp_path)
    assert report["code"] == 0
    assert "toolkit.rubrics.simulation.spec.SimulationRubric" in report["models"]


def test_discussion_with_the_default_rubric_imports_no_pydantic(tmp_path: Path) -> None:
    # The default rubric's plain values score the games and a well-formed transcript is
    # checked without the transcript's models (pydantic, its import and ~19 model
    # classes: ~0.1 s of CPU, issue 38); the models come back for a rubric file or a
    # transcript the plain check does not vouch for (the next test).
    report = _one_run(["discussion", str(GAMES)], tmp_path)
    assert report["code"] == 0
    modules = set(report["modules"])
    assert {m.partition(".")[0] for m in modules} & {"pydantic", "pydantic_core"} == set()
    assert "toolkit.load.discussion" in modules and "toolkit.rubrics.discussion" in modules
    models = {"toolkit.load._discussion_models", "toolkit.load.discussion_db"}
    assert modules & {*models, "toolkit.rubrics.discussion.spec", "toolkit.rubrics._spec"} == set()
    assert report["models"] == []


def test_discussion_with_a_rubric_file_or_an_odd_transcript_still_uses_the_models(
    tmp_path: Path,
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("version: 9.0.0\nmin_passed: 4\n", encoding="utf-8")
    report = _one_run(["discussion", str(GAMES), "--rubric", str(rubric)], tmp_path)
    assert report["code"] == 0
    assert "toolkit.rubrics.discussion.spec.DiscussionSpec" in report["models"]
    assert "toolkit.load._discussion_models.Transcript" not in report["models"]
    game = json.loads((GAMES / "game-pass.json").read_text(encoding="utf-8"))
    game["messages"][0]["turn"] = "1"  # a number as text: the models read it as 1
    odd = tmp_path / "discussion-odd.json"
    odd.write_text(json.dumps(game), encoding="utf-8")
    report = _one_run(["discussion", str(odd)], tmp_path)
    assert report["code"] == 0
    assert "toolkit.load._discussion_models.Transcript" in report["models"]
    assert "toolkit.rubrics.discussion.spec.DiscussionSpec" not in report["models"]


def test_discussion_reads_the_packaged_engagement_scale_without_pyyaml(tmp_path: Path) -> None:
    # engagement.yaml's JSON twin (test_engagement_instrument.py keeps them equal)
    report = _one_run(["discussion", str(GAMES)], tmp_path)
    assert report["code"] == 0
    assert {m.partition(".")[0] for m in report["modules"]} & {"yaml", "_yaml"} == set()


def test_a_badly_typed_batch_record_still_gets_the_models_one_line_refusal(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    record = run / "tick_summaries" / "batch_0.json"
    record.write_text(
        record.read_text(encoding="utf-8").replace('"first_tick": 1', '"first_tick": "soon"'),
        encoding="utf-8",
    )
    report = _one_run(["quality", str(run), "--format", "json"], tmp_path)
    assert report["code"] == 0  # a run with a bad record is still scored, with an issue
    assert "toolkit.load._run_models" in report["modules"]
    assert "toolkit.load._run_models.CompressedRecord" in report["models"]


def test_discussion_without_a_ratings_store_imports_none_of_the_stores_modules(
    tmp_path: Path,
) -> None:
    report = _one_run(["discussion", str(GAMES)], tmp_path)
    assert report["code"] == 0
    store = [m for m in report["modules"] if m.startswith("toolkit.ratings.store")]
    assert store == []  # the folder holds no ratings store: its header says so


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "html"])
def test_one_run_quality_computes_no_per_tick_series(
    fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only charts draw a card's series, and no output of `toolkit quality` is a chart.
    # (score_universe imports the series' module only when asked for them: patched there)
    from toolkit.cli import main
    from toolkit.rubrics.simulation import series

    def no_series(*args: object, **kwargs: object) -> None:
        raise AssertionError("the per-tick series were computed")

    monkeypatch.setattr(series, "series_chunks", no_series)
    assert main(["quality", str(RUN), "--format", fmt]) == 0
    assert "Ashfall" in capsys.readouterr().out


def test_discussion_of_transcripts_imports_no_database_reader(tmp_path: Path) -> None:
    # the SQLite/export/PostgreSQL readers build four pydantic models of their own; a
    # folder of JSON transcripts needs none of them (issue 38)
    report = _one_run(["discussion", str(GAMES)], tmp_path)
    assert report["code"] == 0
    assert "toolkit.load.discussion_db" not in report["modules"]
    assert [m for m in report["models"] if m.startswith("toolkit.load.discussion_db.")] == []


def test_discussion_with_a_database_baseline_still_reads_it(tmp_path: Path) -> None:
    baseline = GAMES / "baseline" / "games.db"
    report = _one_run(["discussion", str(GAMES), "--baseline", str(baseline)], tmp_path)
    assert report["code"] == 0
    assert "toolkit.load.discussion_db._DGame" in report["models"]


@pytest.mark.parametrize(
    ("fmt", "views"),
    [
        ([], {"toolkit.views.text"}),
        (["--format", "json"], {"toolkit.views.text"}),
        (["--format", "html"], {"toolkit.views.text", "toolkit.views.html"}),
        (
            ["--format", "json", "--compat", "token-world"],
            {"toolkit.views.text", "toolkit.views.compat"},
        ),
    ],
)
def test_one_run_quality_imports_only_the_view_of_its_format(
    fmt: list[str], views: set[str], tmp_path: Path
) -> None:
    report = _one_run(["quality", str(RUN), *fmt], tmp_path)
    assert report["code"] == 0
    every = {"toolkit.views.text", "toolkit.views.html", "toolkit.views.compat"}
    assert every & set(report["modules"]) == views
    # html's named entities (~2 ms) only for a page: toolkit._html imports it when it draws
    assert ("html" in report["modules"]) == ("toolkit.views.html" in views)


def test_discussion_never_compiles_tokenizes_regexes(tmp_path: Path) -> None:
    # pydantic reads a default factory's signature; for a built-in (``list``) that parses
    # its text signature with tokenize, whose patterns cost ~12 ms to compile (issue 38)
    code = (
        "import contextlib, io, sys, tokenize\n"
        "from toolkit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(sys.argv[1:])\n"
        "print(code, tokenize._compile.cache_info().misses)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "discussion", str(GAMES)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.stdout.split() == ["0", "0"], done.stderr[-2000:]


def test_the_remote_source_is_still_importable_from_toolkit_io_source() -> None:
    from toolkit.io import source, source_remote

    assert source.RemoteSource is source_remote.RemoteSource
    assert source.CONCURRENT_GETS == source_remote.CONCURRENT_GETS
    assert "RemoteSource" in source.__all__


# ---------------------------------------------------------------------------
# One run (issue 38, s50-imports): modules and module-level work only rarer paths need
# ---------------------------------------------------------------------------

#: Modules neither one-run command imports: the notebook HTML leaf (a result draws itself
#: only in a notebook), the chart helpers and their palette, the PostgreSQL reader of
#: discussions (only --since or a postgres:// URL), the Parquet cache (only --cache), a
#: discussion's comparison and success check (only --baseline).
ONE_RUN_SKIPS = frozenset(
    {
        "toolkit._html",
        "toolkit.views.palette",
        "toolkit.views.charts",
        "toolkit.load.discussion_postgres",
        "toolkit.load._cache",
        "toolkit.rubrics.discussion.comparison",
        "toolkit.rubrics.discussion.success",
    }
)


@pytest.mark.parametrize(
    "args", [pytest.param(args, id=name) for name, args, _ in ONE_RUN_COMMANDS]
)
def test_one_run_imports_none_of_the_modules_of_rarer_paths(
    args: list[str], tmp_path: Path
) -> None:
    report = _one_run(args, tmp_path)
    assert report["code"] == 0
    assert set(report["modules"]) & ONE_RUN_SKIPS == set()


def test_discussion_without_ratings_imports_no_ratings_reader_and_no_sqlite(
    tmp_path: Path,
) -> None:
    report = _one_run(["discussion", str(GAMES)], tmp_path)
    assert report["code"] == 0
    modules = set(report["modules"])
    assert "toolkit.load.ratings" not in modules  # only --ratings (or a store) reads ratings
    assert "toolkit.ratings.agreement" not in modules  # no ratings: no agreement to compute
    assert {"sqlite3", "_sqlite3"} & modules == set()  # JSON transcripts: no SQLite file
    # a folder is no URL: the io package's Sources (two dataclasses) are not imported
    assert {
        "toolkit.io.source",
        "toolkit.io.source_local",
        "toolkit.io.source_base",
    } & modules == set()
    # and with --ratings the reader is there and the ratings count
    with_ratings = _one_run(
        ["discussion", str(GAMES), "--ratings", str(GAMES / "ratings.csv"), "--format", "json"],
        tmp_path,
    )
    assert with_ratings["code"] == 0
    assert "toolkit.load.ratings" in with_ratings["modules"]
    assert "toolkit.ratings.agreement" in with_ratings["modules"]


def test_the_modules_one_run_skips_come_back_with_the_options_that_need_them(
    tmp_path: Path,
) -> None:
    cached = _one_run(["quality", str(RUN), "--cache", str(tmp_path / "cache")], tmp_path)
    assert cached["code"] == 0
    assert "toolkit.load._cache" in cached["modules"]
    assert (tmp_path / "cache").is_dir()  # the cache was written through it
    baseline = GAMES / "baseline" / "games.db"
    compared = _one_run(["discussion", str(GAMES), "--baseline", str(baseline)], tmp_path)
    assert compared["code"] == 0
    assert {
        "toolkit.rubrics.discussion.comparison",
        "toolkit.rubrics.discussion.success",
    } <= set(compared["modules"])
    since = _one_run(["discussion", str(GAMES), "--since", "2020-01-01"], tmp_path)
    assert since["code"] == 0
    assert "toolkit.load.discussion_postgres" in since["modules"]


def test_import_toolkit_leaves_the_html_leaf_until_a_result_is_drawn(tmp_path: Path) -> None:
    # (its swatch table and dataclass: ~1.5 ms of every toolkit import, issue 38)
    code = IMPORT_ONLY.replace(
        "import toolkit\n",
        "import toolkit\nassert 'toolkit._html' not in sys.modules\n"
        f"card = toolkit.score_universe(toolkit.load_universe({str(RUN)!r}))[0]\n"
        "assert 'toolkit._html' not in sys.modules\n"
        "html = card._repr_html_()\n"
        'assert html.startswith("<div class=\'tk-scorecard tk-html"), html[:80]\n'
        "assert 'toolkit._html' in sys.modules\n",
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "modules.json")],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


#: Runs the CLI with re's compiler wrapped; writes every pattern compiled in the process.
COMPILES_WRAPPER = """
import contextlib, io, json, sys
import re._compiler as compiler
compiled = []
real = compiler.compile
def record(pattern, flags=0):
    compiled.append(repr(pattern))
    return real(pattern, flags)
compiler.compile = record
from toolkit.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[2:])
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": code, "compiled": compiled}, out)
"""


def test_one_run_quality_compiles_no_pattern_a_well_formed_run_never_uses(
    tmp_path: Path,
) -> None:
    # Each was compiled at import (~0.1-0.9 ms of CPU each, ~2.5 ms in all): a slug given
    # instead of a path, tick ids read by Python, a folder of oddly named tick files, a
    # cache manifest, a file name made safe, a URL's password hidden, a tick file holding
    # -0, a lone surrogate escape, an invisible character in a printed name.
    from toolkit.io import atomic, edge, source
    from toolkit.load import _cache, _run_files, _run_listing, _tick_screen, _ticks, universe

    rare = {
        universe._SLUG,
        _run_files._TICK_ID,
        _ticks._TICK_ID,
        _run_listing._TICK_FILE,
        _cache._TICKS_FILE,
        atomic._UNSAFE,
        source._PG_URI,
        source._PASSWORD_WORD,
        _tick_screen._MINUS_ZERO,
        edge._LONE_SURROGATE,
        edge.INVISIBLE,
    }
    assert all(isinstance(p, (str, bytes)) for p in rare)  # texts, compiled by re on use
    out = tmp_path / "compiled.json"
    done = subprocess.run(
        [sys.executable, "-c", COMPILES_WRAPPER, str(out), "quality", str(RUN)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.exists(), done.stderr[-3000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["code"] == 0
    assert report["compiled"]  # the wrapper saw the patterns the run does use
    assert set(report["compiled"]) & {repr(p) for p in rare} == set()


def test_a_postgresql_url_is_still_read_as_a_database_and_a_path_as_a_path() -> None:
    from toolkit.errors import InputError
    from toolkit.load.discussion import load_discussions

    with pytest.raises(InputError) as caught:  # port 9: refused (or no driver installed)
        load_discussions(["postgresql://nobody@127.0.0.1:9/games"])
    assert "no such file or folder" not in str(caught.value)  # a database, not a path
    with pytest.raises(InputError, match="no such file or folder"):
        load_discussions(["postgresql:/nobody@127.0.0.1:9/games"])  # no ://: a file name


# ---------------------------------------------------------------------------
# One run (issue 38, s51-quality): msgspec only for the files the C accelerator leaves
# ---------------------------------------------------------------------------

#: The pure screen: msgspec (~3 ms to import) and its Structs and decoders (~2.5 ms).
MSGSPEC_SCREEN = frozenset({"msgspec", "toolkit.load._tick_screen"})


@pytest.mark.parametrize(
    "args", [pytest.param(args, id=name) for name, args, _ in ONE_RUN_COMMANDS[:2]]
)
def test_one_run_quality_imports_no_msgspec_when_the_accelerator_takes_every_file(
    args: list[str], tmp_path: Path
) -> None:
    from toolkit.load import _ticks

    if not _ticks.ACCEL:
        pytest.skip("the C accelerator is not built (or TOOLKIT_ACCEL=0): the pure path")
    report = _one_run(args, tmp_path)
    assert report["code"] == 0
    assert set(report["modules"]) & MSGSPEC_SCREEN == set()


def test_with_the_accelerator_off_the_pure_screen_still_reads_the_run(tmp_path: Path) -> None:
    report = _one_run(["quality", str(RUN)], tmp_path, env={**_env(), "TOOLKIT_ACCEL": "0"})
    assert report["code"] == 0
    assert set(report["modules"]) >= MSGSPEC_SCREEN
