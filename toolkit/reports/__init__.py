"""Reports: any curated notebook, run for any input, as one standalone offline HTML file.

``render_report("simulation", ["runs/ashfall"])`` injects the inputs as the template's
parameters (papermill), executes it (nbclient) and exports it (nbconvert) with the charts'
Vega JavaScript embedded once, code hidden, and the shared header and footer.
"""

from __future__ import annotations

from toolkit.reports._family import ReportBlock, report_footer, report_header
from toolkit.reports._registry import (
    TEMPLATES,
    ReportTemplate,
    Sample,
    get_template,
    notebooks_dir,
)
from toolkit.reports._render import (
    ReportError,
    execute,
    export_html,
    parse_param,
    prepare,
    render_report,
)

__all__ = [
    "TEMPLATES",
    "ReportBlock",
    "ReportError",
    "ReportTemplate",
    "Sample",
    "execute",
    "export_html",
    "get_template",
    "notebooks_dir",
    "parse_param",
    "prepare",
    "render_report",
    "report_footer",
    "report_header",
]
