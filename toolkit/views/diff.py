"""Two simulation scorecards side by side, with the graph changes behind them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from toolkit.io.edge import visible, visible_lines
from toolkit.scorecard import Scorecard
from toolkit.views.text import format_value, wrap_item


class SnapshotTick(Protocol):
    """A snapshot as the diff names it: the tick it was taken before."""

    @property
    def tick(self) -> int: ...


class GraphChangeRecord(Protocol):
    """What the diff reads of the change between two graph snapshots (a
    :class:`toolkit.load.snapshots.GraphChange` is one; a view never reads the database):
    both ticks, the names added and removed, the property changes (each shown as its
    ``str``) and the JSON form."""

    @property
    def before(self) -> SnapshotTick: ...
    @property
    def after(self) -> SnapshotTick: ...
    @property
    def nodes_added(self) -> list[str]: ...
    @property
    def nodes_removed(self) -> list[str]: ...
    @property
    def edges_added(self) -> list[str]: ...
    @property
    def edges_removed(self) -> list[str]: ...
    @property
    def edges_removed_with_nodes(self) -> list[str]: ...
    @property
    def property_changes(self) -> Sequence[object]: ...
    def to_dict(self) -> dict[str, Any]: ...


#: Names listed per kind of graph change in the text view (JSON lists them all).
SHOWN_NAMES = 4


def _cell(row: Mapping[str, Any] | None) -> str:
    if row is None:
        return "-"
    return f"{row['status']:<5}{format_value(row['value']):>8}"


def _names(
    label: str, names: list[str], width: int | None = None, limit: int | None = SHOWN_NAMES
) -> list[str]:
    """``    label: a, b, c (+N more)``, wrapped to ``width`` between names (never inside
    one); ``limit`` names at most (None: all)."""
    if not names:
        return []
    cut = len(names) if limit is None else limit
    shown = ", ".join(names[:cut])
    more = f" (+{len(names) - cut} more)" if len(names) > cut else ""
    return wrap_item(f"{label}: {shown}{more}", width, bullet="    ", indent=6)


def _key(letter: str, subject: str, width: int) -> list[str]:
    """``  A = subject``, or, too long for ``width``, ``  A =`` with the name whole on the
    next line."""
    line = f"  {letter} = {subject}"
    return [line] if len(line) <= width else [f"  {letter} =", subject]


def _change_lines(
    title: str,
    change: GraphChangeRecord | None,
    reason: str,
    width: int | None = None,
) -> list[str]:
    """One run's graph change: the counts, then :data:`SHOWN_NAMES` names of each list,
    wrapped to ``width`` between names."""
    if change is None:
        return wrap_item(f"{title}: {reason}", width, bullet="  ", indent=4)
    c = change
    props = c.property_changes
    head = (
        f"{title}: ticks {c.before.tick} -> {c.after.tick}: nodes +{len(c.nodes_added)}"
        f" -{len(c.nodes_removed)}, edges +{len(c.edges_added)} -{len(c.edges_removed)},"
        f" properties {len(props)} changed"
    )
    lines = wrap_item(head, width, bullet="  ", indent=4)
    for label, names in (
        ("nodes added", c.nodes_added),
        ("nodes removed", c.nodes_removed),
        ("edges added", c.edges_added),
        ("edges removed", c.edges_removed),
        ("of which with a removed node", c.edges_removed_with_nodes),
    ):  # between runs, property changes are counted (the JSON lists them)
        lines += _names(label, names, width)
    return lines


def render_diff_text(
    a: Scorecard,
    b: Scorecard,
    changes: Mapping[str, GraphChangeRecord | None],
    reasons: Mapping[str, str],
    *,
    width: int | None = None,
) -> str:
    """Both scorecards as one table (status and value per run), the dimensions whose
    status differs, then each run's graph change over its window and the change from
    A's last snapshot to B's.

    Args:
        a, b: the two runs' scorecards.
        changes: ``"a"``, ``"b"`` (each run's first to last snapshot in its window) and
            ``"a_to_b"``; ``None`` where there is no such pair of snapshots.
        reasons: why a change is ``None``, by the same keys.
        width: wrap the title and the name lists to this many columns, between words.
    """
    rows_a = {r["dimension"]: r for r in a.dimensions.iter_rows(named=True)}
    rows_b = {r["dimension"]: r for r in b.dimensions.iter_rows(named=True)}
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    names = {k: (rows_a.get(k) or rows_b[k])["name"] for k in keys}
    name_w = max(len(n) for n in [*names.values(), "dimension"])
    subject_a, subject_b = visible(a.subject), visible(b.subject)  # widths as printed
    col = max(13, len(subject_a), len(subject_b))
    how = f"(last {a.meta.get('window')} ticks; rubric {a.rubric} {a.rubric_version})"
    label_a, label_b = subject_a, subject_b
    if width is not None and 2 + name_w + 2 * (2 + col) > width:
        # names too long for the table: a key above it, the columns and changes "A", "B"
        label_a, label_b, col = "A", "B", 13
        lines = [f"A vs B  {how}", *_key("A", subject_a, width), *_key("B", subject_b, width)]
    else:
        lines = wrap_item(f"{subject_a} vs {subject_b}  {how}", width, bullet="", indent=2)
    lines.append(f"  {'dimension':<{name_w}}  {label_a:<{col}}  {label_b:<{col}}")
    changed: list[str] = []
    for k in keys:
        ra, rb = rows_a.get(k), rows_b.get(k)
        lines.append(f"  {names[k]:<{name_w}}  {_cell(ra):<{col}}  {_cell(rb):<{col}}")
        sa, sb = (ra or {}).get("status", "-"), (rb or {}).get("status", "-")
        if sa != sb:
            changed.append(f"  {names[k]}: {sa} -> {sb}")
    lines.append(f"  {'verdict':<{name_w}}  {a.verdict:<{col}}  {b.verdict:<{col}}")
    lines.append("Status changes:" + ("" if changed else " none"))
    lines += changed
    lines.append("Graph (graph_snapshots in universe.db):")
    lines += _change_lines(label_a, changes.get("a"), reasons.get("a", ""), width)
    lines += _change_lines(label_b, changes.get("b"), reasons.get("b", ""), width)
    lines += _change_lines(
        f"{label_a} -> {label_b}", changes.get("a_to_b"), reasons.get("a_to_b", ""), width
    )
    return visible_lines("\n".join(line.rstrip() for line in lines))


def render_tick_diff_text(slug: str, change: GraphChangeRecord, *, width: int | None = None) -> str:
    """Two ticks of one run (``toolkit quality RUN --diff A:B``, token-world's ``diff``):
    the net change between their snapshots, every name listed."""
    c = change
    title = (
        f"{slug} · ticks {c.before.tick} -> {c.after.tick} (the net change between their "
        "snapshots in universe.db)"
    )
    lines = wrap_item(title, width, bullet="", indent=2)
    props = c.property_changes
    lines.append(
        f"  nodes +{len(c.nodes_added)} -{len(c.nodes_removed)}, edges +{len(c.edges_added)}"
        f" -{len(c.edges_removed)}, properties {len(props)} changed"
    )
    for label, names in (
        ("nodes added", c.nodes_added),
        ("nodes removed", c.nodes_removed),
        ("edges added", c.edges_added),
        ("edges removed", c.edges_removed),
        ("of which with a removed node", c.edges_removed_with_nodes),
    ):
        lines += (
            wrap_item(f"{label}: {', '.join(names)}", width, bullet="  ", indent=4) if names else []
        )
    if props:
        lines.append("  properties:")
        for p in props:  # one per line, as token-world lists them
            lines += wrap_item(str(p), width, bullet="    ", indent=6)
    return visible_lines("\n".join(line.rstrip() for line in lines))


def render_diff_json(
    a: Scorecard,
    b: Scorecard,
    changes: Mapping[str, GraphChangeRecord | None],
    reasons: Mapping[str, str],
) -> str:
    """``{a: scorecard, b: scorecard, status_changes: [...], graph: {a, b, a_to_b}}``;
    a graph entry without snapshots is ``{reason}``."""
    rows_a = dict(a.dimensions.select("dimension", "status").iter_rows())
    rows_b = dict(b.dimensions.select("dimension", "status").iter_rows())
    status_changes = [
        {"key": k, "a": rows_a.get(k), "b": rows_b.get(k)}
        for k in [*rows_a, *(k for k in rows_b if k not in rows_a)]
        if rows_a.get(k) != rows_b.get(k)
    ]
    graph = {
        key: (c.to_dict() if (c := changes.get(key)) is not None else {"reason": reasons[key]})
        for key in ("a", "b", "a_to_b")
    }
    return json.dumps(
        {"a": a.to_dict(), "b": b.to_dict(), "status_changes": status_changes, "graph": graph},
        indent=2,
        default=str,
    )
