"""The report pipeline's parts: parameters, errors, the chart renderer, header and footer,
and the HTML export (without a kernel where one is not needed)."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import altair as alt
import nbformat
import polars as pl
import pytest

from toolkit import InputError, report_footer, report_header
from toolkit.reports import TEMPLATES, ReportError, export_html, parse_param, prepare, render_report
from toolkit.views.notebook import SPEC_CLASS, report_chart_html, setup_notebook

ROOT = Path(__file__).resolve().parents[2]


def tiny_chart() -> alt.Chart:
    return alt.Chart(pl.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x", y="y")


def parameterised_notebook(path: Path, body: str = "print(f'value is {value}')") -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("value = 1\nother = 'x'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# A custom report"), params,
                nbformat.v4.new_code_cell(body)]  # fmt: skip
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)
    return path


def test_param_values_are_read_as_yaml() -> None:
    assert parse_param("window=100") == ("window", 100)
    assert parse_param("live=true") == ("live", True)
    assert parse_param("REPO=null") == ("REPO", None)
    assert parse_param("files=[a.json, b.csv]") == ("files", ["a.json", "b.csv"])
    assert parse_param("name=a=b") == ("name", "a=b")
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_param("no-equals-sign")


def test_inputs_and_path_params_are_made_absolute_and_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    prepared = prepare(
        "outcome",
        ["sample_runs/iteration_logs/tally-loop"],
        {"TRANSCRIPTS": ["sample_runs/iteration_logs/transcripts"], "ITERATION": 2},
    )
    assert prepared.parameters == {
        "LOG_DIR": str(ROOT / "sample_runs/iteration_logs/tally-loop"),
        "TRANSCRIPTS": [str(ROOT / "sample_runs/iteration_logs/transcripts")],
        "ITERATION": 2,
    }
    experiment = prepare("experiment", ["a.json", "b.csv"]).parameters["files"]
    assert experiment == [str(ROOT / "a.json"), str(ROOT / "b.csv")]
    assert prepare("fleet", ["sample_runs/fleet"]).parameters["runs"] == str(
        ROOT / "sample_runs/fleet/*"
    )


@pytest.mark.parametrize(
    ("template", "inputs", "params", "message"),
    [
        ("nonsense", ["x"], {}, "unknown template 'nonsense'"),
        ("simulation", ["a", "b"], {}, "takes one input, got 2"),
        ("simulation", ["a"], {"windw": 5}, "not a parameter of this notebook"),
    ],
)
def test_bad_template_inputs_or_params_fail_before_any_kernel(
    template: str, inputs: list[str], params: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        prepare(template, inputs, params)


def test_a_notebook_without_parameters_cell_is_refused(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    nbformat.write(nb, tmp_path / "plain.ipynb")
    with pytest.raises(InputError, match="no cell tagged 'parameters'"):
        prepare(str(tmp_path / "plain.ipynb"), ["input"])


@pytest.mark.parametrize(
    ("notebook", "message"),
    [
        ('{"cells": "none"}', "not a Jupyter notebook (no list of cells)"),
        ('{"nbformat": 4, "cells": [{"metadata": {"tags": ["parameters"]}, "source": [1, 2]}]}',
         "cells.0.source='[1, 2]': the parameters cell's source must be text or a list of lines"),
        ('{"nbformat": 3, "cells": [{"metadata": {}}]}',
         "nbformat=3: not a notebook nbformat can read"),
        ('{"cells": [', "not valid JSON"),
    ],
    ids=["no cells", "source of numbers", "unreadable old format", "truncated"],
)  # fmt: skip
def test_a_malformed_notebook_is_one_line_never_a_traceback(
    tmp_path: Path, notebook: str, message: str
) -> None:
    path = tmp_path / "bad.ipynb"
    path.write_text(notebook, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        prepare(str(path), ["input"])
    line = str(caught.value)
    assert message in line and str(path) in line and "\n" not in line


def test_bad_input_surfaces_the_notebooks_one_line_error_and_leaves_no_file(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    with pytest.raises(ReportError) as caught:
        render_report("simulation", [str(tmp_path / "missing-run")], output=out)
    message = str(caught.value)
    assert message == f"simulation_postmortem.ipynb: {tmp_path / 'missing-run'}: no such run folder"
    assert "\n" not in message and "Traceback" not in message
    assert list(out.parent.iterdir()) == []  # no report, no temporary file


def test_a_notebook_given_by_path_gets_its_input_a_header_and_can_show_code(
    tmp_path: Path,
) -> None:
    source = parameterised_notebook(tmp_path / "custom.ipynb", "print(f'got {value} and {other}')")
    hidden = render_report(str(source), ["42"], output=tmp_path / "hidden.html",
                           params={"other": "y"})  # fmt: skip
    page = hidden.read_text(encoding="utf-8")
    assert f"got {Path.cwd() / '42'} and y" in page  # the input, made a path, bound to `value`
    assert "Report of <code>custom.ipynb</code>" in page
    assert "print(f" not in page and "# Parameters" not in page
    shown = render_report(str(source), ["42"], output=tmp_path / "shown.html", show_code=True)
    code = shown.read_text(encoding="utf-8")
    assert "print" in code and "# Parameters" in code  # papermill's injected cell, shown


def test_report_renderer_embeds_the_spec_and_no_script_url() -> None:
    setup_notebook("report")
    try:
        bundle = tiny_chart()._repr_mimebundle_()
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        fragment = data["text/html"]
    finally:
        setup_notebook("jupyter")
    spec = re.search(rf'class="{SPEC_CLASS}">(.*?)</script>', fragment, re.S)
    assert spec is not None
    assert json.loads(spec.group(1))["mark"]["type"] == "point"
    assert "src=" not in fragment and "vegaEmbed(" in fragment


def test_spec_json_cannot_close_its_script_element() -> None:
    fragment = report_chart_html({"title": "</script><script>alert(1)</script>"})
    assert fragment.count("</script>") == 2  # the spec's and the call's own


def test_export_embeds_the_vega_bundle_once_and_only_with_charts() -> None:
    nb = nbformat.v4.new_notebook()
    chart = nbformat.v4.new_output(
        "display_data", data={"text/html": report_chart_html({"mark": "point"}),
                              "text/plain": "<chart>"},
    )  # fmt: skip
    widget = nbformat.v4.new_output(
        "display_data",
        data={"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/plain": "VBox"},
    )
    nb.cells = [nbformat.v4.new_code_cell("a", outputs=[chart]),
                nbformat.v4.new_code_cell("b", outputs=[chart, widget])]  # fmt: skip
    page = export_html(nb, title="t")
    assert page.count("window.vegaEmbed=") == 1
    assert page.count(f'class="{SPEC_CLASS}"') == 2
    assert "interactive control" in page and "widget-view+json" not in page
    assert not re.search(r"<script[^>]*\ssrc=", page)
    plain = nbformat.v4.new_notebook()
    plain.cells = [nbformat.v4.new_markdown_cell("no charts")]
    assert "window.vegaEmbed=" not in export_html(plain, title="t")


def test_header_names_input_versions_and_time() -> None:
    block = report_header("simulation", "runs/ashfall", now=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    assert "runs/ashfall" in block.html
    assert "simulation 1.2.0" in block.html
    assert "2026-01-02 03:04 UTC" in block.html
    assert repr(block).startswith("Simulation post-mortem report")


def test_footer_links_the_rubric_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLKIT_NOTEBOOK_RENDERER", raising=False)
    monkeypatch.delenv("TOOLKIT_DOCS_URL", raising=False)
    assert 'href="../docs/rubrics/outcome.md"' in report_footer("outcome").html
    monkeypatch.setenv("TOOLKIT_NOTEBOOK_RENDERER", "report")
    assert f'href="{(ROOT / "docs/rubrics/outcome.md").as_uri()}"' in report_footer("outcome").html
    monkeypatch.setenv("TOOLKIT_DOCS_URL", "https://example.org/toolkit/")
    footer = report_footer("persona").html
    assert 'href="https://example.org/toolkit/docs/rubrics/persona.md"' in footer
    assert "persona rubric 1.1" in footer


def test_every_template_notebook_carries_the_family_header_and_footer() -> None:
    for template in TEMPLATES.values():
        nb = nbformat.read(template.path, as_version=4)
        tags = [c.metadata.get("tags", []) for c in nb.cells]
        header = next(i for i, t in enumerate(tags) if "report-header" in t)
        params = next(i for i, t in enumerate(tags) if "parameters" in t)
        assert header == params + 1, template.name
        assert f'tk.report_header("{template.name}", {template.input_parameter})' in (
            nb.cells[header].source
        )
        assert "report-footer" in tags[-1], template.name
        assert (ROOT / template.doc).is_file()


def test_parameters_are_read_from_the_cell_without_a_kernel_even_multiline(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from toolkit.reports import prepare

    prepared = prepare("experiment", ["a.csv"], {"alpha": 0.01})
    assert set(prepared.parameters) == {"files", "alpha"}
    out, err = capfd.readouterr()
    assert "Unable to parse" not in out + err  # the multi-line `files = [...]` is read whole
    with pytest.raises(InputError, match="it has: files, reference, alpha, rename"):
        prepare("experiment", ["a.csv"], {"typo": 1})


def test_the_vega_bundle_is_built_once_and_read_back_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolkit.reports import _render

    monkeypatch.setenv("TOOLKIT_CACHE_DIR", str(tmp_path / "cache"))
    built = _render._vega_bundle()
    (cached,) = (tmp_path / "cache").glob("vega-bundle-*.js")
    assert cached.read_text(encoding="utf-8") == built and "vegaEmbed" in built
    cached.write_text("// kept", encoding="utf-8")
    assert _render._vega_bundle() == "// kept"  # read back, not rebuilt


def test_a_cached_vega_bundle_is_read_without_importing_altair(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {**os.environ, "TOOLKIT_CACHE_DIR": str(tmp_path / "cache")}
    code = (
        "import sys; from toolkit.reports import _render; text = _render._vega_bundle(); "
        "print('altair' in sys.modules, 'vegaEmbed' in text)"
    )

    def fresh() -> str:
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    assert fresh() == ["True", "True"]  # built: Altair names the Vega-Lite version
    assert fresh() == ["False", "True"]  # read back: no Altair import


def test_every_toolkit_error_is_shown_by_its_message_alone() -> None:
    """A report's one-line error never names an internal class (``NothingLoadable: ...``):
    every ToolkitError a notebook can raise is surfaced by its message."""
    import importlib
    import pkgutil

    import toolkit
    from toolkit.errors import ToolkitError
    from toolkit.reports._render import INPUT_ERRORS

    for module in pkgutil.walk_packages(toolkit.__path__, "toolkit."):
        importlib.import_module(module.name)

    def walk(cls: type) -> list[type]:
        return [s for sub in cls.__subclasses__() for s in (sub, *walk(sub))]

    raised_in_notebooks = {c.__name__ for c in walk(ToolkitError)} - {"ReportError"}
    assert raised_in_notebooks - INPUT_ERRORS == set()


def test_progress_is_told_each_cell_in_order_then_the_export(tmp_path: Path) -> None:
    """`toolkit report` was silent for 20-80 s; the renderer now tells a progress callback
    when the kernel starts, as each code cell starts, and before writing the HTML."""
    source = parameterised_notebook(tmp_path / "custom.ipynb", "# a comment first\nx = value")
    told: list[tuple[int, int, str]] = []
    render_report(str(source), ["7"], output=tmp_path / "r.html",
                  progress=lambda done, total, what: told.append((done, total, what)))  # fmt: skip
    # the code cells: the header cell, the parameters, papermill's injected ones, the body
    total = told[0][1]
    assert told[0] == (0, total, "starting the kernel")
    assert [d for d, _, _ in told[1:-1]] == list(range(total))
    assert told[-2][2] == "x = value"  # the first line that is not a comment
    assert told[-1] == (total, total, "writing the HTML")


def test_the_cli_status_line_shows_on_a_terminal_only(tmp_path: Path) -> None:
    import io

    from toolkit.cli.report import _TerminalProgress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert _TerminalProgress.on(io.StringIO()) is None  # a CI log gets nothing
    screen = Tty()
    line = _TerminalProgress.on(screen)
    assert line is not None
    line.width = 40
    line(2, 13, "tk\x1b[31m.load_universe(run)")
    line.clear()
    said = screen.getvalue()
    # one line, rewritten in place, cut to the terminal's width less one
    assert said.startswith("\r\x1b[2Ktoolkit report: cell 3 of 13 · tk [31m.\r")
    assert "\x1b[31m" not in said  # the cell's own control characters never reach it
    assert said.endswith("\r\x1b[2K")
