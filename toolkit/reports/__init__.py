"""Reports: any curated notebook, run for any input, as one standalone offline HTML file.

``render_report("simulation", ["runs/ashfall"])`` injects the inputs as the template's
parameters (papermill), executes it (nbclient) and exports it (nbconvert) with the charts'
Vega JavaScript embedded once, code hidden, and the shared header and footer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

#: Public name -> the module that defines it (imported on first use, as in ``toolkit``).
_LAZY: dict[str, str] = {
    "TEMPLATES": "toolkit.reports._registry",
    "ReportBlock": "toolkit.reports._family",
    "ReportError": "toolkit.reports._render",
    "ReportTemplate": "toolkit.reports._registry",
    "Sample": "toolkit.reports._registry",
    "execute": "toolkit.reports._render",
    "export_html": "toolkit.reports._render",
    "get_template": "toolkit.reports._registry",
    "notebooks_dir": "toolkit.reports._registry",
    "parse_param": "toolkit.reports._render",
    "prepare": "toolkit.reports._render",
    "render_report": "toolkit.reports._render",
    "report_footer": "toolkit.reports._family",
    "report_header": "toolkit.reports._family",
}

__all__ = [*_LAZY]

if TYPE_CHECKING:
    from toolkit.reports._family import ReportBlock as ReportBlock
    from toolkit.reports._family import report_footer as report_footer
    from toolkit.reports._family import report_header as report_header
    from toolkit.reports._registry import TEMPLATES as TEMPLATES
    from toolkit.reports._registry import ReportTemplate as ReportTemplate
    from toolkit.reports._registry import Sample as Sample
    from toolkit.reports._registry import get_template as get_template
    from toolkit.reports._registry import notebooks_dir as notebooks_dir
    from toolkit.reports._render import ReportError as ReportError
    from toolkit.reports._render import execute as execute
    from toolkit.reports._render import export_html as export_html
    from toolkit.reports._render import parse_param as parse_param
    from toolkit.reports._render import prepare as prepare
    from toolkit.reports._render import render_report as render_report
else:
    __getattr__, __dir__ = attach(__name__, _LAZY)
