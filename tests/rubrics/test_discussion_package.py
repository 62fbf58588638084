"""The discussion rubric's package face: its lazy table, what importing a part costs."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import toolkit
import toolkit.rubrics.discussion as discussion


def _static_imports(package_file: str) -> dict[str, str]:
    """Name -> module of the TYPE_CHECKING imports of a module."""
    tree = ast.parse(Path(package_file).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    assert stmt.module is not None
                    for alias in stmt.names:
                        found[alias.asname or alias.name] = stmt.module
    return found


def test_the_static_imports_name_the_same_modules_as_the_lazy_table() -> None:
    table: dict[str, str] = discussion._LAZY  # type: ignore[attr-defined]
    assert _static_imports(discussion.__file__) == table
    assert sorted(discussion.__all__) == sorted(table)


def test_each_public_name_is_the_object_its_module_defines() -> None:
    table: dict[str, str] = discussion._LAZY  # type: ignore[attr-defined]
    for name, module in table.items():
        assert getattr(discussion, name) is getattr(importlib.import_module(module), name)
    assert set(discussion.__all__) <= set(dir(discussion))


def test_no_public_name_is_also_a_module_of_the_package() -> None:
    here = Path(discussion.__file__).parent
    modules = {p.stem for p in here.glob("*.py")}
    assert modules & set(discussion.__all__) == set()


def test_the_front_door_names_the_package_s_objects() -> None:
    assert toolkit.score_discussion is discussion.score_discussion
    assert toolkit.compare_discussions is discussion.compare
    assert toolkit.judge_discussion is discussion.judge_discussion
    assert toolkit.DiscussionSpec is discussion.DiscussionSpec


COST = """
import json, sys
import importlib
for name in sys.argv[2:]:
    module, _, attribute = name.partition(":")
    getattr(importlib.import_module(module), attribute)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(sorted(sys.modules), out)
"""


def _imported(tmp_path: Path, *names: str) -> set[str]:
    out = tmp_path / "modules.json"
    here = str(Path(toolkit.__file__).resolve().parents[1])
    subprocess.run(
        [sys.executable, "-c", COST, str(out), *names],
        check=True,
        env={"PYTHONPATH": here, "PATH": ""},
    )
    return set(json.loads(out.read_text(encoding="utf-8")))


def test_reading_the_spec_imports_no_scoring(tmp_path: Path) -> None:
    modules = _imported(
        tmp_path,
        "toolkit.rubrics.discussion:DEFAULT_ENGAGEMENT_SCALE",
        "toolkit.rubrics.discussion:DEFAULT_DISCUSSION_SPEC",
    )
    assert "polars" not in modules
    assert "toolkit.rubrics.discussion.score" not in modules


def test_asking_for_the_judge_imports_no_calibration(tmp_path: Path) -> None:
    modules = _imported(tmp_path, "toolkit.rubrics.discussion:judge_discussion")
    assert "toolkit.rubrics.discussion.calibration" not in modules
    assert "numpy" not in modules


def test_scoring_without_a_judge_imports_no_judge(tmp_path: Path) -> None:
    modules = _imported(tmp_path, "toolkit.rubrics.discussion:score_discussion")
    assert "toolkit.judge" not in modules
    assert "toolkit.rubrics.discussion.judge" not in modules
