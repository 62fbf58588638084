"""The header and footer every report template shows, so the reports look like one family."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from toolkit._version import __version__
from toolkit.reports._registry import ROOT, get_template
from toolkit.views.notebook import report_mode

#: A web address the footer links rubric pages under (e.g. the repository's docs on a
#: forge); without it a report links the doc file of the checkout that rendered it.
DOCS_URL_ENV = "TOOLKIT_DOCS_URL"
#: Set by ``toolkit report`` in its kernel: the inputs as they were typed, for the header.
INPUTS_ENV = "TOOLKIT_REPORT_INPUTS"

_STYLE = (
    "border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:8px 0;"
    "font-family:system-ui,sans-serif;font-size:13px;background:#f6f8fa;color:#1f2328"
)


@dataclass(frozen=True)
class ReportBlock:
    """HTML shown as a notebook output (``_repr_html_``) with a one-line text form."""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def _shown_inputs(inputs: str | Path | Sequence[str | Path] | None) -> list[str]:
    if inputs is None:
        return []
    if isinstance(inputs, str | Path):
        return [str(inputs)]
    return [str(i) for i in inputs]


def report_header(
    template: str,
    inputs: str | Path | Sequence[str | Path] | None,
    *,
    now: datetime | None = None,
) -> ReportBlock:
    """The header of a report: what it is, its input, the toolkit and rubric versions, and
    when it was rendered.

    Args:
        template: the template's name (``toolkit report`` knows it by it).
        inputs: the input path(s) the notebook was run with (in a ``toolkit report``
            kernel, the inputs as typed on the command line are shown instead).
        now: the time of rendering (default: now, UTC).
    """
    spec = get_template(template)
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    typed = os.environ.get(INPUTS_ENV) if report_mode() else None
    shown = [typed] if typed else _shown_inputs(inputs)
    items = [
        ("input", ", ".join(shown) or "(none)"),
        ("rubric", f"{spec.rubric} {spec.rubric_version}"),
        ("toolkit", __version__),
        ("rendered", when),
    ]
    cells = "".join(
        # an inline block: an item moves to the next line whole ("rendered ... UTC" was
        # split from its "UTC" in JupyterLab), wrapping inside only when wider than a line
        f'<span class="toolkit-report-{key}" style="margin-right:18px;display:inline-block">'
        f"<b>{key}</b> <code>{html.escape(value)}</code></span>"
        for key, value in items
    )
    body = (
        f'<div class="toolkit-report-header" style="{_STYLE}">'
        f'<div style="font-weight:600;margin-bottom:4px">{html.escape(spec.title)} report</div>'
        f"{cells}</div>"
    )
    text = f"{spec.title} report · " + " · ".join(f"{k} {v}" for k, v in items)
    return ReportBlock(body, text)


def doc_link(doc: str) -> str:
    """Where a report links a doc page (relative to the checkout) to.

    ``$TOOLKIT_DOCS_URL`` + the page when set; in a report without it, the file of the
    checkout that rendered it; in a notebook, the page relative to ``notebooks/``.
    """
    base = os.environ.get(DOCS_URL_ENV)
    if base:
        return f"{base.rstrip('/')}/{doc}"
    if report_mode():
        return (ROOT / doc).as_uri()
    return f"../{doc}"


def report_footer(template: str) -> ReportBlock:
    """The footer of a report: how to read its numbers and a link to the rubric's page."""
    spec = get_template(template)
    link = doc_link(spec.doc)
    body = (
        f'<div class="toolkit-report-footer" style="{_STYLE}">'
        f"<b>What the numbers mean.</b> {html.escape(spec.meaning)} "
        f'Every threshold and where each number comes from: <a href="{html.escape(link)}">'
        f"the {html.escape(spec.rubric)} rubric {html.escape(spec.rubric_version)}</a>."
        "</div>"
    )
    text = f"What the numbers mean: {spec.meaning} See {spec.doc}."
    return ReportBlock(body, text)
