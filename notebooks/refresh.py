"""Re-execute curated notebooks in place and store them with their outputs.

Usage: python notebooks/refresh.py [NOTEBOOK ...]   (default: every notebook here)

Each notebook runs in this interpreter's kernel with the notebooks folder as its working
directory, with ``TOOLKIT_NOTEBOOK_RENDERER=stored``: every chart is stored as a static
mimebundle (its Vega-Lite spec and a PNG drawn by vl-convert) and our widgets add a static
HTML picture of what they show, so a stored notebook reads on GitHub and nbviewer.
Widget state (which would embed the offline Vega bundle once per chart, about a megabyte
each) is dropped from the stored file; where a widget output has a static picture, its
widget view is dropped too (without its state it would only show an error), and
interactive charts and widgets come back when the notebook is run. Everything stored is
deterministic: no random ids, no memory addresses, no execution timestamps.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
#: What a widget output shows when its view cannot be drawn (stored without state).
STATIC = ("text/html", "image/png", "image/svg+xml")
#: A progress bar's text (tqdm's ``desc:  0%|    | 0/960 [00:00<?, ?file/s]``): stored
#: without its state it shows the bar as it began, stuck at 0%, so it is not kept.
PROGRESS = re.compile(r"\d+%\|.*\| *\d+/\d+ \[")


def tidy(nb: nbformat.NotebookNode) -> None:
    """Make an executed notebook deterministic and readable without a kernel: no widget
    state, no execution timestamps, no memory addresses; a widget output that carries a
    static picture keeps only that (its view would only show an error without state),
    the others get a stable model id."""
    nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        for number, output in enumerate(cell.get("outputs", [])):
            data = output.get("data", {})
            text = data.get("text/plain")
            if isinstance(text, str):
                data["text/plain"] = ADDRESS.sub("", text)
            view = data.get(WIDGET_VIEW)
            if view is None:
                continue
            if any(kind in data for kind in STATIC):
                del data[WIDGET_VIEW]  # the static picture is what a reader sees
            else:  # the state is gone, so a stable id keeps diffs quiet
                view["model_id"] = f"cell{index}-output{number}"
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if not _progress_bar(o)]


def _progress_bar(output: nbformat.NotebookNode) -> bool:
    """Whether ``output`` is a progress bar's widget with no picture of its own."""
    data = output.get("data", {})
    text = data.get("text/plain")
    return (
        WIDGET_VIEW in data
        and not any(kind in data for kind in STATIC)
        and isinstance(text, str)
        and PROGRESS.search(text) is not None
    )


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    os.environ["TOOLKIT_NOTEBOOK_RENDERER"] = "stored"  # the kernel inherits it
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute()
    tidy(nb)
    nbformat.write(nb, path)
    print(f"refreshed {path.relative_to(HERE.parent)}")


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv[1:]] or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        refresh(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
