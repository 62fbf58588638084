"""The README's notebook snippet runs as written where `make lab` puts the user."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_notebook_snippet_runs_in_the_folder_make_lab_opens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lab = re.search(r"^lab:.*\n\t.*jupyter lab (\S+)", (ROOT / "Makefile").read_text(), re.M)
    assert lab is not None
    section = readme.split("## In a notebook", 1)[1]
    snippet = re.search(r"```python\n(.*?)```", section, re.S)
    assert snippet is not None
    monkeypatch.chdir(ROOT / lab.group(1))
    namespace: dict[str, object] = {}
    exec(compile(snippet.group(1), "README.md", "exec"), namespace)
    assert type(namespace["card"]).__name__ == "Scorecard"
