"""Lazy public names for a package (PEP 562), as Scientific Python's SPEC 1 describes.

A package lists its public names in one table, name -> the module that defines it
(``"module:attribute"`` when the package renames it), and takes its module-level
``__getattr__`` and ``__dir__`` from :func:`attach`. A name's module is imported the first
time the name is used; after that the name is an ordinary global of the package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def attach(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for the public names of ``table``.

    A name that is not in ``table`` raises the AttributeError Python raises for any
    module (with its "Did you mean" hint).
    """

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            message = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(message, name=name, obj=sys.modules[package])
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return __getattr__, __dir__
