"""Re-execute curated notebooks in place and store them with their outputs.

Usage: python notebooks/refresh.py [NOTEBOOK ...]   (default: every notebook here)

Each notebook runs in this interpreter's kernel with the notebooks folder as its working
directory. Widget state (which would embed the offline Vega bundle once per chart, about
a megabyte each) is dropped from the stored file: the outputs keep their text fallback
and every chart reappears when the notebook is run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute()
    nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        for number, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:  # the state is gone, so a stable id keeps diffs quiet
                view["model_id"] = f"cell{index}-output{number}"
                text = output["data"].get("text/plain")
                if isinstance(text, str):
                    output["data"]["text/plain"] = ADDRESS.sub("", text)
    nbformat.write(nb, path)
    print(f"refreshed {path.relative_to(HERE.parent)}")


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv[1:]] or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        refresh(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
