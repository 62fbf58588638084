"""YAML parsing for loaders: the data, the line of every key, and the text of ids.

``yaml.safe_load`` turns ``commit: 0123456`` into an octal integer and ``commit: 1e10``
into a float; identifiers must stay the text that was written. :func:`parse_yaml` keeps
the scalar text of the keys named in ``verbatim`` and records, for every key and list
item, the line it starts on, so a problem can be reported as ``path:line``.

A mapping that repeats a key keeps the last value, as YAML 1.1 loaders do (the rule of
:mod:`toolkit.io.duplicates`); each repeat is recorded with its line and, when the
caller names the source, issued as a :class:`~toolkit.errors.DuplicateKeyWarning`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import yaml

from toolkit.io.duplicates import DuplicateKey
from toolkit.io.duplicates import warn as warn_duplicates
from toolkit.io.edge import yaml_problem

Path_ = tuple[str | int, ...]

_NULL_TAG = "tag:yaml.org,2002:null"
_STR_TAG = "tag:yaml.org,2002:str"
#: Tags whose constructors return a scalar's value (called directly by ``_construct``).
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "timestamp", "binary")
)


#: libyaml's C parser when PyYAML was built with it (the usual wheel), else pure Python.
_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[misc]
    """A safe loader that keeps the written text of selected keys' scalar values."""

    verbatim: Collection[str] = frozenset()
    duplicates: list[DuplicateKey]


def _construct(loader: _Loader, node: yaml.Node) -> Any:
    """``loader.construct_object(node, deep=True)``, without its bookkeeping for the most
    common nodes: a scalar tagged string, null, bool, int, float, timestamp or binary is
    built by that tag's constructor straight away (a string is its own text, what
    ``construct_yaml_str`` returns). A scalar cannot be part of a recursive structure,
    and its value is immutable, so an alias to it gets an equal value."""
    if type(node) is yaml.ScalarNode:
        if node.tag == _STR_TAG:
            return node.value
        if node.tag in _SCALAR_TAGS:  # not !!seq, !!set, ...: their constructors yield
            return loader.yaml_constructors[node.tag](loader, node)
    return loader.construct_object(node, deep=True)


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = _construct(loader, key_node)
        if not isinstance(key, str | int | float | bool) and key is not None:
            raise yaml.constructor.ConstructorError(
                None, None, "found an unhashable mapping key", key_node.start_mark
            )
        if key in out:
            loader.duplicates.append(DuplicateKey(str(key), key_node.start_mark.line + 1))
        if (
            isinstance(key, str)
            and key in loader.verbatim
            and isinstance(value_node, yaml.ScalarNode)
            and value_node.tag != _NULL_TAG
        ):
            out[key] = value_node.value
        else:
            out[key] = _construct(loader, value_node)
    return out


def _construct_timestamp(loader: _Loader, node: yaml.ScalarNode) -> Any:
    """A timestamp-looking scalar that is not a real date (2026-13-45) stays text, as
    does one tagged ``!!timestamp`` that its pattern does not match (PyYAML raises
    AttributeError on it: ``!!timestamp x``, a UTC offset with seconds)."""
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except (ValueError, AttributeError):
        return node.value


def _checked(name: str, build: Any) -> Any:
    """PyYAML's constructor of ``!!name`` scalars, its failures on a value it does not
    take (``!!int ''`` raises IndexError, ``!!bool maybe`` KeyError) one problem naming
    the tag, the value and its line."""

    def construct(loader: _Loader, node: yaml.ScalarNode) -> Any:
        try:
            return build(loader, node)
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"!!{name} {node.value!r} is not a {name}", node.start_mark
            ) from exc

    return construct


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
for _name, _build in (
    ("bool", yaml.SafeLoader.construct_yaml_bool),
    ("int", yaml.SafeLoader.construct_yaml_int),
    ("float", yaml.SafeLoader.construct_yaml_float),
):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_name}", _checked(_name, _build))


@dataclass(frozen=True)
class ParsedYaml:
    """A parsed YAML document: ``data`` and the 1-based line of each key path.

    The lines are indexed from the document's node the first time they are asked for
    (most documents are read without a problem to report, and never ask)."""

    data: Any
    node: yaml.Node | None = field(default=None, repr=False, compare=False)
    duplicates: tuple[DuplicateKey, ...] = ()

    @cached_property
    def lines(self) -> Mapping[Path_, int]:
        """The 1-based line of each key path and list item (``()``: the document)."""
        lines: dict[Path_, int] = {}
        _index(self.node, (), lines)
        return lines

    def line_of(self, path: Sequence[str | int], default: int | None = None) -> int | None:
        """The line of the deepest known prefix of ``path`` (``default`` when none)."""
        key = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), default)


class YamlProblem(Exception):
    """The text is not valid YAML; ``line`` is 1-based when known."""

    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class YamlRefused(YamlProblem):
    """Valid YAML, refused by the reading edge (too deep, an alias bomb)."""


def _index(node: yaml.Node | None, prefix: Path_, lines: dict[Path_, int]) -> None:
    if node is None:
        return
    lines.setdefault(prefix, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                path = (*prefix, key_node.value)
                lines[path] = key_node.start_mark.line + 1
                _index(value_node, path, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, (*prefix, i), lines)


def parse_yaml(text: str, verbatim: Collection[str] = (), source: str | None = None) -> ParsedYaml:
    """Parse one YAML document; ``source`` (a path or ``repo@ref:path``) names it in the
    duplicate-key warnings (none are issued when it is ``None``: see ``duplicates``).

    The text first passes the reading edge's YAML check
    (:func:`toolkit.io.edge.yaml_problem`): nesting depth and alias expansion are
    bounded before anything is composed.

    Raises:
        YamlProblem: the text is not valid YAML (the reason and line of the first problem),
            or is nested too deeply, or its aliases expand past the budget.
    """
    refused = yaml_problem(text)
    if refused is not None:
        raise YamlRefused(*refused)
    loader = _Loader(text)
    loader.verbatim = frozenset(verbatim)
    loader.duplicates = []
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = " ".join(str(exc.problem or exc.context or "syntax error").split())
        if mark is not None:
            reason += f" (column {mark.column + 1})"
        raise YamlProblem(reason, None if mark is None else mark.line + 1) from exc
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise YamlProblem(" ".join(str(exc).split()) or type(exc).__name__, None) from exc
    finally:
        loader.dispose()
    if source is not None:
        warn_duplicates(source, loader.duplicates)
    return ParsedYaml(data, node, tuple(loader.duplicates))
