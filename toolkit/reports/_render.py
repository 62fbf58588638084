"""Render a notebook template into one standalone HTML report.

Parameters are injected the papermill way (a cell tagged ``injected-parameters`` after the
one tagged ``parameters``), the notebook runs with nbclient in a kernel that renders charts
as report HTML (``TOOLKIT_NOTEBOOK_RENDERER=report``), and nbconvert's HTML exporter turns
it into a page that needs nothing from the network.
"""

from __future__ import annotations

import ast
import html
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from toolkit._version import __version__
from toolkit.errors import InputError, ToolkitError
from toolkit.io import edge
from toolkit.io.atomic import check_target, write_text_atomic
from toolkit.io.source import disk_path
from toolkit.io.yamlkeys import YamlProblem, YamlRefused, parse_yaml
from toolkit.reports._family import INPUTS_ENV
from toolkit.reports._registry import ReportTemplate, get_template
from toolkit.views.notebook import RENDERER_ENV, SPEC_CLASS, cached_text

#: nbformat is untyped: a notebook (or cell) node.
NotebookNode = Any

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
HEADER_TAG = "report-header"
#: Cells tagged so are for the notebook only (how to change its parameters, demonstrations
#: driven from code): ``toolkit report`` neither runs nor shows them.
NOTEBOOK_ONLY_TAG = "notebook-only"
#: Exceptions a notebook raises on purpose for bad input: their message is surfaced alone.
INPUT_ERRORS = frozenset(
    {"InputError", "RubricError", "ToolkitError", "CassetteMiss", "NothingLoadable"}
)


class ReportError(ToolkitError):
    """A report that could not be rendered; the message is the notebook's own error."""


@dataclass(frozen=True)
class Prepared:
    """A notebook ready to run: where it came from, its parameters, its template if any."""

    source: Path
    parameters: dict[str, Any]
    template: ReportTemplate | None
    inputs: tuple[str, ...]


def _absolute(value: str) -> str:
    """A relative path (or glob) read from the current folder, made absolute; a URL
    (``s3://bucket/run``) is passed on as it is, for the notebook's loader to read."""
    local = disk_path(value)
    if local is None or local.is_absolute():
        return value
    return str(Path.cwd() / local)


def _absolute_value(value: Any) -> Any:
    if isinstance(value, str):
        return _absolute(value)
    if isinstance(value, list):
        return [_absolute_value(v) for v in value]
    return value


def parse_param(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with VALUE read as YAML (``10``, ``true``, ``null``, ``[a, b]``; else
    text).

    VALUE passes the reading edge's YAML rules (nesting depth, alias budget, recursive
    aliases) before anything is built, as a YAML file would; text that is not valid YAML,
    or a date that does not exist (``2026-02-30``), stays text.

    Raises:
        InputError: no ``=`` or an empty key; a value nested too deeply or an alias bomb.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise InputError(None, "expected KEY=VALUE with KEY a parameter name", field="--param",
                         value=_shown_param(text))  # fmt: skip
    if not raw.strip():
        return key, ""
    try:
        value = parse_yaml(raw).data
    except YamlRefused as exc:
        raise InputError(None, exc.reason, field="--param", value=key) from None
    except YamlProblem:
        value = raw
    return key, value


def _shown_param(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _parameters_source(path: Path) -> str:
    """The source of the notebook's cell tagged ``parameters``.

    An nbformat-4 notebook is read as the JSON it is, through the reading edge (nbformat
    itself imports jsonschema, which costs seconds before a typo could be refused); an
    older notebook goes through ``nbformat.read``, which converts it.
    """
    data = edge.parse_json(edge.read_bytes(path), path)
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise InputError(path, "not a Jupyter notebook (no list of cells)")
    cells: list[Any] = data["cells"]
    if data.get("nbformat") != 4:
        import nbformat  # jsonschema through nbformat: seconds, only for an old notebook

        read: Callable[..., NotebookNode] = nbformat.read  # untyped
        try:
            cells = [{"metadata": c.metadata, "source": c.source} for c in read(path, 4).cells]
        except Exception as exc:  # nbformat's reader and converters raise many kinds
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise InputError(
                path, f"not a notebook nbformat can read ({reason})",
                field="nbformat", value=data.get("nbformat"),
            ) from None  # fmt: skip
    for index, cell in enumerate(cells):
        meta = cell.get("metadata") if isinstance(cell, dict) else None
        tags = meta.get("tags") if isinstance(meta, dict) else None
        if isinstance(tags, list) and "parameters" in tags:
            text = cell.get("source", "")
            if isinstance(text, list) and all(isinstance(line, str) for line in text):
                return "".join(text)
            if isinstance(text, str):
                return text
            raise InputError(
                path, "the parameters cell's source must be text or a list of lines",
                field=f"cells.{index}.source", value=edge.shown(text),
            )  # fmt: skip
    raise InputError(path, "the notebook has no cell tagged 'parameters'")


def _notebook_parameters(path: Path) -> dict[str, Any]:
    """The parameters a notebook declares (the names its cell tagged ``parameters``
    assigns at top level, in order), with their default values where those are literals.

    Read with :mod:`ast`, without a kernel, so a misspelt ``--param`` is refused at once;
    multi-line values (a list over several lines) are read whole.
    """
    source = _parameters_source(path)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise InputError(path, f"the parameters cell is not valid Python ({exc.msg})",
                         line=exc.lineno) from None  # fmt: skip
    declared: dict[str, Any] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    declared[target.id] = ast.literal_eval(value) if value else None
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    declared[target.id] = None  # an expression: set in the kernel
    return declared


def prepare(
    template: str,
    inputs: Sequence[str],
    params: Mapping[str, Any] | None = None,
) -> Prepared:
    """Resolve a template name (or notebook path) and bind inputs and ``--param`` values.

    Inputs, and ``--param`` values of the template's path parameters, are paths relative to
    the current folder; they are made absolute because the notebook runs in its own folder.

    Raises:
        InputError: unknown template, missing notebook, wrong number of inputs, or a
            parameter the notebook does not declare.
    """
    spec: ReportTemplate | None
    if template.endswith(".ipynb") or os.sep in template:
        source = Path(template).resolve()
        spec = None
        if not source.is_file():
            raise InputError(template, "no such notebook")
    else:
        spec = get_template(template)
        source = spec.path
        if not source.is_file():
            raise InputError(source, f"template {template!r}: its notebook is missing")
    declared = _notebook_parameters(source)
    shown = tuple(inputs)
    absolute = [_absolute(i) for i in inputs]
    parameters: dict[str, Any] = {}
    if spec is not None:
        for key, value in spec.report_params.items():
            if key not in declared:
                raise InputError(source, f"template {spec.name!r} sets {key!r}, which the "
                                 "notebook does not declare")  # fmt: skip
            parameters[key] = value
        if absolute:
            parameters[spec.input_parameter] = spec.bind_inputs(absolute)
    elif absolute:
        if not declared:
            raise InputError(source, "the parameters cell declares no parameter for the input")
        first = next(iter(declared))
        parameters[first] = absolute[0] if len(absolute) == 1 else absolute
    for key, value in (params or {}).items():
        if key not in declared:
            known = ", ".join(declared) or "none"
            raise InputError(source, f"not a parameter of this notebook (it has: {known})",
                             field="--param", value=key)  # fmt: skip
        if spec is not None and key in spec.path_parameters:
            value = _absolute_value(value)
        parameters[key] = value
    return Prepared(source, parameters, spec, shown)


def _header_cell(prepared: Prepared) -> NotebookNode:
    """A header for a notebook that has none of its own (a notebook given by path).

    The notebook's name and the inputs come from the user (a folder's name can carry
    anything), so the cell is one line of HTML with every such value escaped: Markdown
    leaves an HTML block alone, so neither a tag nor a backtick, a link or a blank line in
    an input becomes live HTML or Markdown.
    """
    import nbformat  # jsonschema through nbformat: seconds of CPU, only when a report is made

    def text(value: str) -> str:
        return html.escape(" ".join(value.split()), quote=True)

    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    shown = ", ".join(prepared.inputs) or "(default parameters)"
    line = (
        '<div class="toolkit-report-header"><b>Report of '
        f"<code>{text(prepared.source.name)}</code></b> · input <code>{text(shown)}</code>"
        f" · rubric: see the notebook · toolkit {text(__version__)} · rendered {when}</div>"
    )
    new_cell: Callable[[str], NotebookNode] = nbformat.v4.new_markdown_cell  # untyped
    cell: NotebookNode = new_cell(line)
    cell.metadata["tags"] = [HEADER_TAG]
    return cell


#: ``progress(done, total, what)``: told as a report runs (cells done of all, and what now).
Progress = Callable[[int, int, str], None]


def execute(
    prepared: Prepared, timeout: int = 600, progress: Progress | None = None
) -> NotebookNode:
    """Run the notebook with its parameters injected; returns the executed notebook.

    ``progress`` is told when the kernel starts and as each code cell starts (cells done,
    code cells in all, the cell's first line).

    The kernel runs in the notebook's folder with ``TOOLKIT_NOTEBOOK_RENDERER=report``
    (charts as report HTML) and ``TQDM_DISABLE=1`` (no progress widgets).

    Raises:
        ReportError: a cell failed; the message is that cell's one-line error (an
            ``InputError`` from a loader comes through as it is).
    """
    # the notebook machinery (nbclient, papermill, jupyter_client: seconds of CPU) only
    # when a notebook runs: `toolkit report --help` and a refused input stay quick
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    nb: NotebookNode = load_notebook_node(str(prepared.source))  # with papermill's metadata
    nb.cells = [c for c in nb.cells if NOTEBOOK_ONLY_TAG not in c.metadata.get("tags", [])]
    if prepared.parameters:
        nb = parameterize_notebook(
            nb, prepared.parameters, kernel_name="python3", language="python"
        )
    if not any(HEADER_TAG in c.metadata.get("tags", []) for c in nb.cells):
        nb.cells.insert(0, _header_cell(prepared))
    env = dict(os.environ, **{RENDERER_ENV: "report", "TQDM_DISABLE": "1"})
    env[INPUTS_ENV] = ", ".join(prepared.inputs)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(prepared.source.parent)}},
    )
    if progress is not None:
        _report_progress(client, nb, progress)
    try:
        client.execute(env=env, stderr=subprocess.DEVNULL)  # no kernel start-up chatter
    except CellExecutionError as exc:
        reason = " ".join(str(exc.evalue).split()) or exc.ename
        if exc.ename not in INPUT_ERRORS:
            reason = f"{exc.ename}: {reason}"
        raise ReportError(f"{prepared.source.name}: {reason}") from None
    except NoSuchKernel as exc:
        raise ReportError(f"{prepared.source.name}: no Jupyter kernel {exc.name!r}") from None
    except (CellTimeoutError, DeadKernelError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportError(f"{prepared.source.name}: {first}") from None
    return nb


def _static_widgets(nb: NotebookNode) -> bool:
    """Replace widget outputs (they need a live kernel) with a note; True if any chart."""
    nb.metadata.pop("widgets", None)
    charts = False
    note = (
        '<div class="toolkit-widget-note">An interactive control is here when the notebook '
        "runs in Jupyter; the report shows the same numbers elsewhere.</div>"
    )
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                output["data"] = {"text/html": note, "text/plain": "(interactive control)"}
            elif SPEC_CLASS in str(data.get("text/html", "")):
                charts = True
    return charts


def _vega_bundle() -> str:
    """vega-embed with the Vega-Lite version Altair writes its specs for.

    Built once per (vl-convert, Altair) version pair and kept in the toolkit's cache folder
    (written atomically; an unwritable cache only costs the rebuild). The key is read from
    the packages' metadata, so a cached bundle costs no import of Altair (about 0.4 s).
    """
    import vl_convert  # a compiled Vega engine (about 0.3 s), only when a page is exported

    try:
        altair_version = version("altair")
    except PackageNotFoundError:
        altair_version = "unknown"
    vlc_version = getattr(vl_convert, "__version__", "unknown")

    def build() -> str:
        from altair.utils._importers import vl_version_for_vl_convert  # altair: 0.4 s, cold

        bundle: Callable[..., str] = vl_convert.javascript_bundle
        return bundle(None, vl_version=vl_version_for_vl_convert())

    return cached_text(f"vega-bundle-{vlc_version}-altair-{altair_version}.js", build)


def export_html(nb: NotebookNode, *, title: str, show_code: bool = False) -> str:
    """The executed notebook as one self-contained HTML page (nbconvert's HTML exporter).

    Code cells are hidden unless ``show_code``; the Vega JavaScript is embedded once when
    the page has a chart; nothing is loaded from the network (no require.js, MathJax,
    mermaid or widget manager from a CDN).
    """
    # the exporter and the Vega engine (nbconvert, vl_convert: seconds), only on export
    import vl_convert
    from nbconvert import HTMLExporter

    charts = _static_widgets(nb)
    nb.metadata["title"] = title
    make_exporter: Callable[..., Any] = HTMLExporter
    exporter = make_exporter(
        template_name="toolkit_report",
        extra_template_basedirs=[str(TEMPLATES_DIR)],
        exclude_input=not show_code,
        exclude_input_prompt=not show_code,
        exclude_output_prompt=True,
        embed_images=True,
    )
    resources = {
        "toolkit_report": {
            "version": __version__,
            "vega_bundle": _vega_bundle() if charts else "",
            "vl_convert": getattr(vl_convert, "__version__", ""),
        }
    }
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return str(body)


def default_output(prepared: Prepared) -> Path:
    """``<template>-<first input's name>.html`` in the current folder."""
    stem = prepared.template.name if prepared.template else prepared.source.stem
    if prepared.inputs:
        first = Path(prepared.inputs[0].rstrip("/*"))
        name = first.stem if first.suffix else first.name
        stem = f"{stem}-{name or 'input'}"
    return Path.cwd() / f"{stem}.html"


def _report_progress(client: Any, nb: NotebookNode, progress: Progress) -> None:
    """Hook ``progress`` to the client: the kernel's start, then each code cell's."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    total = len(code)
    order = {id(c): i for i, c in enumerate(code)}

    def started(cell: Any, cell_index: int, **_: Any) -> None:
        if cell.cell_type != "code":
            return
        lines = [ln.strip() for ln in str(cell.source).splitlines() if ln.strip()]
        first = next((ln for ln in lines if not ln.startswith("#")), lines[0] if lines else "")
        progress(order.get(id(cell), 0), total, first)

    client.on_notebook_start = lambda **_: progress(0, total, "starting the kernel")
    client.on_cell_start = started


def render_report(
    template: str,
    inputs: Sequence[str] = (),
    *,
    output: str | Path | None = None,
    params: Mapping[str, Any] | None = None,
    show_code: bool = False,
    timeout: int = 600,
    progress: Progress | None = None,
) -> Path:
    """Execute a template for some inputs and write its standalone HTML report.

    Args:
        template: a template name (:data:`toolkit.reports.TEMPLATES`) or the path of a
            notebook with a cell tagged ``parameters``.
        inputs: the input paths, bound to the template's input parameter (for a notebook
            given by path: its first parameter).
        output: the HTML file (default ``<template>-<input>.html`` here). Written
            atomically: on failure no file, nor a half-written one, is left.
        params: more parameter values (``--param KEY=VALUE``).
        show_code: keep the code cells.
        timeout: seconds a cell may run.
        progress: told as the notebook runs (see :func:`execute`), then once more
            (``total, total, "writing the HTML"``) before the export.

    Returns:
        The path of the written report.

    Raises:
        InputError: bad template, inputs or parameters.
        ReportError: the notebook failed; the message is its one-line error.
    """
    prepared = prepare(template, inputs, params)
    target = check_target(Path(output) if output is not None else default_output(prepared))
    nb = execute(prepared, timeout=timeout, progress=progress)
    if progress is not None:
        cells = sum(1 for c in nb.cells if c.cell_type == "code")
        progress(cells, cells, "writing the HTML")
    title = prepared.template.title if prepared.template else prepared.source.stem
    shown = ", ".join(Path(i).name or i for i in prepared.inputs)
    page = export_html(nb, title=f"{title}: {shown}" if shown else title, show_code=show_code)
    return write_text_atomic(target, page)  # the usual mode (0644 under umask 022): shared
