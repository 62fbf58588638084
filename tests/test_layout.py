"""The layout's rules (docs/architecture.md), measured from the code as issue 34 set them.

The direction of the flow between packages is checked by import-linter's contracts in
pyproject.toml (``make lint``); these tests pin what a contract cannot say.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "toolkit"

#: The one module that reads a scheme: where a run lives is asked there and nowhere else.
SOURCE_MODULE = PACKAGE / "io" / "source.py"
#: Names that ask "is this path local or a URL?".
SCHEME_QUESTIONS = {"is_remote", "scheme_of", "local_path", "open_remote"}
#: The faces may import the package's front door (``toolkit/__init__``); nothing else may.
FACES = (PACKAGE / "__init__.py", PACKAGE / "cli")
#: Budgets of issue 34: a file past 800 lines or a function past 80 usually holds two ideas.
MAX_FILES_OVER_800 = 6
MAX_FUNCTIONS_OVER_80 = 22


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _names_used(tree: ast.Module) -> set[str]:
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            used.update(alias.name for alias in node.names)
    return used


def test_only_the_source_module_asks_whether_a_path_is_a_url() -> None:
    askers = {
        str(path.relative_to(PACKAGE)): sorted(_names_used(tree) & SCHEME_QUESTIONS)
        for path, tree in _modules()
        if path != SOURCE_MODULE and _names_used(tree) & SCHEME_QUESTIONS
    }
    assert askers == {}


def test_nothing_below_the_faces_imports_the_front_door() -> None:
    offenders = []
    for path, tree in _modules():
        if path == FACES[0] or FACES[1] in path.parents:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == "toolkit" for a in node.names):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "toolkit" and not node.level:
                for alias in node.names:  # a submodule is not the front door
                    sub = PACKAGE / alias.name
                    if not (sub.with_suffix(".py").exists() or (sub / "__init__.py").exists()):
                        offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {alias.name}")
    assert offenders == []


def _spans() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    files, functions = [], []
    for path, tree in _modules():
        name = str(path.relative_to(PACKAGE))
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > 800:
            files.append((lines, name))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 80:
                    functions.append((length, f"{name}:{node.name}"))
    return sorted(files, reverse=True), sorted(functions, reverse=True)


def test_few_files_past_800_lines() -> None:
    files, _ = _spans()
    assert len(files) <= MAX_FILES_OVER_800, files


def test_few_functions_past_80_lines() -> None:
    _, functions = _spans()
    assert len(functions) <= MAX_FUNCTIONS_OVER_80, functions


def _private_names_imported(path: Path) -> list[str]:
    """``from toolkit.x import _name`` where ``_name`` is no module: a private helper
    used outside its module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolkit"):
            base = PACKAGE.parent.joinpath(*(node.module or "").split("."))
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__"):
                    continue
                if (base / f"{name}.py").exists() or (base / name).is_dir():
                    continue  # a private module, imported by name: fine
                out.append(f"{path.relative_to(PACKAGE.parent)}: {node.module}.{name}")
    return out


@pytest.mark.parametrize(
    "package",
    [
        "io",
        "load",
        "judge",
        "ratings",
        "rubrics",
        "views",
        "fleet",
        "rating_server",
        "reports",
        "cli",
    ],
)
def test_no_module_borrows_another_modules_private_helper(package: str) -> None:
    found = [
        hit
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for hit in _private_names_imported(path)
    ]
    assert found == []
