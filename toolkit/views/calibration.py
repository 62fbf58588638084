"""The text and Markdown of a :class:`~toolkit.rubrics.calibrate.Calibration`.

The terminal table fits 80 columns. An item id is never clipped: one too long for its
column comes whole on a line of its own above its numbers (wrapped after a ``/`` when
wider than the table); a header too long for a line is split (the judge and the humans,
then the source with long paths shortened in the middle, the file names kept). Under each
of the top disagreements come the judge's reasoning, each rater's note and the evidence,
wrapped between words and cut after a few lines with a visible mark (:data:`CUT`; the
JSON and the HTML page have them whole). The Markdown is the same sections in code
blocks, then each top disagreement as a small table (who, score, words) with the evidence
quoted under it, for a pull-request comment.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.summary import plural
from toolkit.views.calibration_alt import alt_test_markdown
from toolkit.views.markdown import cell
from toolkit.views.text import wrap_item

if TYPE_CHECKING:
    from toolkit.rubrics.alt_test import AltTest
    from toolkit.rubrics.calibrate import Calibration

__all__ = ["render_calibration_markdown", "render_calibration_table"]

WIDTH = 80
#: How many lines a reasoning, a note or the evidence may take under a disagreement.
MAX_LINES = {"judge": 3, "note": 2, "evidence": 3}
#: Ends a text cut to fit (the whole text is in the JSON and the HTML page).
CUT = " [… cut]"


def _f(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "undefined"
    return f"{value:+.2f}" if sign else f"{value:.3f}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


#: The widths of the item and group columns of the disagreements table.
_ITEM_W, _GROUP_W = 16, 10


def _disagreement_lines(row: dict[str, Any], groups: list[str], width: int) -> list[str]:
    """One disagreement's lines in the table: item, group, judge, humans, diff, scores.

    An item id or a group too long for its column is never clipped (two ids cut alike
    would read as one item): the id comes whole on a line of its own (wrapped after a
    ``/`` or ``-`` when wider than ``width``, the rest indented) with the group in
    brackets, and the numbers follow on the next line under their headings. Scores that
    do not fit wrap after a comma, under the scores column.
    """
    item = _printable(str(row["item"]))
    who = _printable(" ".join(str(row[g]) for g in groups if row[g] is not None))
    if who == item:  # a game's id is its group: said once
        who = ""
    numbers = f"{row['judge']:>5g} {row['human_mean']:>6.2f} {row['diff']:>+5.2f}  "
    out: list[str] = []
    if len(item) <= _ITEM_W and len(who) <= _GROUP_W:
        first = f"{item:<{_ITEM_W}} {who:<{_GROUP_W}} {numbers}"
    else:
        out = _id_lines(item, who, width)
        first = " " * (_ITEM_W + 1 + _GROUP_W + 1) + numbers
    scores = textwrap.wrap(
        _printable(str(row["scores"])), max(width - len(first), 12), break_on_hyphens=False
    ) or [""]
    out.append(first + scores[0])
    out += [" " * len(first) + more for more in scores[1:]]
    return out


def _id_lines(item: str, who: str, width: int) -> list[str]:
    """A whole item id (and its group in brackets) on lines of at most ``width``."""
    group = f"({who})" if who else ""
    if len(item) + 2 + len(group) <= width:
        return [f"{item}  {group}".rstrip()]
    lines: list[str] = []
    rest = item
    while len(rest) > width - (2 if lines else 0):
        room = width - (2 if lines else 0)
        cut = max(rest.rfind("/", 0, room), rest.rfind("-", 0, room))
        cut = cut + 1 if cut > 0 else room
        lines.append(("  " if lines else "") + rest[:cut])
        rest = rest[cut:]
    lines.append(("  " if lines else "") + rest)
    if group:
        if len(lines[-1]) + 2 + len(group) <= width:
            lines[-1] += f"  {group}"
        else:
            lines += ["  " + part for part in textwrap.wrap(group, width - 2)]
    return lines


def _shorten_path(word: str, width: int) -> str:
    """``word`` whole when it fits, else a path with its middle folders as ``…``
    (``sample_runs/…/judge/cassette.json``): the start and the file name kept."""
    if len(word) <= width:
        return word
    head, sep, _ = word.partition(":")
    prefix = head + sep if sep and "/" not in head else ""
    parts = word[len(prefix) :].split("/")
    if len(parts) > 2:
        tail = [parts[-1]]
        for part in reversed(parts[1:-1]):
            if len(prefix) + len(parts[0]) + 3 + len("/".join([part, *tail])) > width:
                break
            tail.insert(0, part)
        short = f"{prefix}{parts[0]}/…/{'/'.join(tail)}"
        if len(short) <= width:
            return short
    keep = width - 1
    return word[: keep // 2] + "…" + word[len(word) - (keep - keep // 2) :]


def _names(names: list[str], width: int) -> str:
    """``ana, ben, chloe``, or as many as fit in ``width`` and ``+N more``."""
    whole = ", ".join(names)
    if len(whole) <= width:
        return whole
    shown: list[str] = []
    for n, name in enumerate(names):
        more = f", +{len(names) - n - 1} more" if n < len(names) - 1 else ""
        if len(", ".join([*shown, name])) + len(more) > width:
            break
        shown.append(name)
    return ", ".join(shown) + f"{', ' if shown else ''}+{len(names) - len(shown)} more"


def _printable(text: str) -> str:
    """``text`` with every control character (an escape sequence in a judge's reply)
    as U+FFFD: shown, never sent to the terminal."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def wrap_words(label: str, words: str, width: int, max_lines: int) -> list[str]:
    """``label: words`` wrapped to ``width`` between words, the text indented under
    itself, at most ``max_lines`` lines; a cut text ends with :data:`CUT`.

    Args:
        label: what the words are (``judge``, a rater's id, ``evidence``), padded to 10.
        words: the text (line breaks in it become spaces).
        width: the widest line.
        max_lines: the most lines; the last one ends with :data:`CUT` when text is left.

    Line breaks in ``words`` become spaces, and a control character (an escape sequence
    in a judge's reply) is written as U+FFFD.
    """
    bullet = f"{_clip(_printable(label), 9) + ':':<11}"
    flat = _printable(" ".join(words.split()))
    lines = textwrap.wrap(
        flat,
        width,
        initial_indent=bullet,
        subsequent_indent=" " * len(bullet),
        break_on_hyphens=False,
    ) or [bullet.rstrip()]
    if len(lines) <= max_lines:
        return lines
    kept = lines[:max_lines]
    last = kept[-1]
    room = width - len(CUT)
    if len(last) > room:
        last = last[:room].rsplit(" ", 1)[0] if " " in last[len(bullet) : room] else last[:room]
    kept[-1] = last + CUT
    return kept


def _words(row: dict[str, Any], judge: str) -> list[str]:
    """The reasoning, the notes and the evidence under one disagreement (indented)."""
    width = WIDTH - 6  # the section's indent and the item's
    out: list[str] = []
    if row.get("reasoning"):
        out += wrap_words(judge, row["reasoning"], width, MAX_LINES["judge"])
    for note in row.get("notes") or []:
        out += wrap_words(note["rater"], note["note"], width, MAX_LINES["note"])
    if row.get("evidence"):
        out += wrap_words("evidence", row["evidence"], width, MAX_LINES["evidence"])
    where = _where(row)
    if where:
        out += wrap_words("at", where, width, 2)
    return [f"  {line}" for line in out]


def _where(row: dict[str, Any]) -> str:
    """``source#anchor``, or either alone, or "" when neither is known."""
    source, anchor = row.get("source"), row.get("anchor")
    if source and anchor:
        return f"{source}#{anchor}"
    return str(source or anchor or "")


def _lines(result: Calibration, top: int, words: bool = True) -> list[tuple[str, list[str]]]:
    """The sections shared by the table and the Markdown: (heading, lines); ``words``:
    the reasoning, notes and evidence under each disagreement."""
    r = result
    band = "undefined" if r.band_low is None else f"{r.band_low:.3f} .. {r.band_high:.3f}"
    agreement = [
        f"alpha among the humans            {_f(r.alpha_humans)}",
        f"alpha with the judge added        {_f(r.alpha_with_judge)}",
        f"humans' leave-one-out band        {band}",
    ]
    for row in r.band.iter_rows(named=True):
        where = {True: "inside", False: "BELOW the band", None: ""}[row["inside"]]
        agreement.append(
            _clip(
                f"judge in place of {row['left_out']:<15} {_f(row['alpha_replaced'])}  {where}",
                WIDTH - 2,
            )
        )
    agreement.append(f"Spearman, judge vs human mean     {_f(r.spearman)}")
    each = ", ".join(f"{h} {_f(k)}" for h, k in r.kappa.select("human", "kappa").iter_rows())
    agreement.append(
        _clip(f"weighted kappa (quadratic), mean  {_f(r.kappa_mean)}  ({each})", WIDTH - 2)
    )
    pct = round(r.rubric.confidence * 100)
    bias = []
    for row in r.bias.iter_rows(named=True):
        name = "all items" if row["group"] == "all" else f"{row['group']}={row['value']}"
        interval = "" if row["low"] is None else f"[{row['low']:+.2f}, {row['high']:+.2f}]"
        items = "item " if row["items"] == 1 else "items"
        line = f"{name:<28} {row['items']:>4} {items}  {row['bias']:+.2f}  {interval}".rstrip()
        bias.append(_clip(line, WIDTH - 2))
    c = r.confusion
    confusion = [
        "                 humans pass  humans fail",
        f"judge pass       {c['both_pass']:>11}  {c['judge_only']:>11}",
        f"judge fail       {c['humans_only']:>11}  {c['both_fail']:>11}",
        f"the judge's verdict agrees with the humans' on {c['agreement']:.0%} of the items",
    ]
    rows = []
    for row in r.disagreements.head(top).iter_rows(named=True):
        rows += _disagreement_lines(row, r.groups, WIDTH - 2)
        if words:
            rows += _words(row, r.judge)
    listed = [f"{'item':<16} {'group':<10} {'judge':>5} {'humans':>6} {'diff':>5}  scores", *rows]
    sections = [
        ("Agreement", agreement),
        (f"Bias: judge - human mean, {pct}% bootstrap interval (seed {r.seed})", bias),
        (f"Confusion at threshold {r.rubric.threshold:g} (pass: score >= threshold)", confusion),
    ]
    if top > 0:  # --top 0: the numbers only
        shown = min(top, r.disagreements.height)
        heading = f"Top {plural(shown, 'disagreement')}, by |judge - human mean|"
        sections.append((heading, listed))
    return sections


def _head(
    result: Calibration,
    path: str,
    width: int | None = WIDTH,
    sources: Sequence[tuple[str, str]] | None = None,
) -> list[str]:
    """Who is held against whom and on what, then the counts. At ``width``, a first line
    too long for it (or given two sources or more) is split: the judge and the humans (as
    many names as fit, ``+N more``), then one indented line per source (``sources``: what
    and where, e.g. ``("judge", "recorded:c.json")``; else ``path``), long paths
    shortened in the middle (the file names kept); ``width`` None: one line, whole."""
    r = result
    vs = f"judge {r.judge!r} vs {plural(len(r.humans), 'human')}"
    first = f"{path}: {vs} ({', '.join(r.humans)})"
    if width is None or (len(first) <= width and len(sources or ()) < 2):
        lines = [first]
    else:
        lines = [_clip(f"{vs} ({_names(list(r.humans), width - len(vs) - 3)})", width)]
        for what, where in sources or [("source", path)]:
            lines += _source_lines(what, where, width)
    lines.append(
        f"{plural(r.items, 'item')} scored by both"
        + (f", {r.unpaired} scored by one side only (left out)" if r.unpaired else "")
        + f"; rubric {r.rubric.rubric} {r.rubric.version}, {r.rubric.level} alpha"
    )
    # the judge's measurement epoch and the scores' digest (toolkit.epoch)
    lines.append(
        f"judge epoch {r.judge_epoch or 'unknown (the scores do not say)'}; "
        f"scores digest {r.input_digest or 'unknown'}"
    )
    if r.too_few_items:  # the warning before any number, wrapped to the width
        lines += wrap_item(f"WARNING: {r.too_few_items}", width, bullet="", indent=2)
    return lines


def _source_lines(what: str, where: str, width: int) -> list[str]:
    """``  what:  a, b`` in at most two lines of ``width``: each path (the parts between
    ``, ``) shortened in the middle to fit, and ``+N more`` for those left over."""
    label = f"  {_clip(_printable(what), 8) + ':':<10}"
    room = width - len(label)
    paths = [_shorten_path(p, room - 1) for p in _printable(where).split(", ")]
    lines: list[str] = []
    current = ""
    for n, p in enumerate(paths):
        joined = f"{current}, {p}" if current else p
        if not current or len(joined) + 1 <= room:  # room for a comma after it
            current = joined
            continue
        if not lines:  # on to the second line
            lines.append(current + ",")
            current = p
            continue
        shown = current.split(", ")  # the second line is full: say how many are left
        left = len(paths) - n
        while shown and len(", ".join([*shown, f"+{left} more"])) > room:
            shown.pop()
            left += 1
        current = ", ".join([*shown, f"+{left} more"])
        break
    lines.append(current)
    return [label + lines[0], *[" " * len(label) + line for line in lines[1:]]]


def _verdict(min_alpha: float | None, failures: list[str]) -> list[str]:
    if min_alpha is None:
        return []
    if not failures:
        return [f"gate min-alpha {min_alpha:g}: passed (the judge sits inside the human band)"]
    return [f"gate min-alpha {min_alpha:g}: FAILED ({len(failures)} reason(s) on stderr)"]


def render_calibration_table(
    result: Calibration,
    path: str,
    top: int,
    min_alpha: float | None,
    failures: list[str],
    *,
    sources: Sequence[tuple[str, str]] | None = None,
    beside_band: tuple[str, list[str]] | None = None,
) -> str:
    """The terminal text, at most 80 columns.

    Args:
        result: the calibration.
        path: what was calibrated, in one line (the scores file, or the judge and the
            inputs).
        top: how many disagreements to list.
        min_alpha: the gate's minimum, or None without a gate.
        failures: why the gate failed.
        sources: what and where (``[("judge", "recorded:c.json"), ("chats", "a.jsonl,
            b.jsonl")]``), one line each when there are two or more or when ``path``
            does not fit the first line.
        beside_band: one more section (heading, lines) after the agreement section:
            the alternative-annotator test's.
    """
    out = _head(result, path, WIDTH, sources)
    sections = _lines(result, top)
    if beside_band is not None:
        sections.insert(1, beside_band)
    for heading, lines in sections:
        out += ["", heading, *[f"  {line}" for line in lines]]
    verdict = _verdict(min_alpha, failures)
    return "\n".join([*out, *(["", *verdict] if verdict else [])])


def render_calibration_markdown(
    result: Calibration,
    path: str,
    top: int,
    min_alpha: float | None,
    failures: list[str],
    alt: AltTest | None = None,
) -> str:
    """A pull-request comment: the same sections in code blocks under headings (with
    ``alt``, the alternative-annotator test after the agreement section)."""
    head = [f"{cell(line)}  " for line in _head(result, path, None)]
    out = [f"## toolkit calibrate: {cell(path)}", "", *head]
    for n, (heading, lines) in enumerate(_lines(result, top, words=False)):
        out += ["", f"### {heading}", "", "```", *lines, "```"]
        if n == 0 and alt is not None:
            out += alt_test_markdown(alt)
    out += _markdown_disagreements(result, top)
    for line in _verdict(min_alpha, failures):
        out += ["", f"**{line}**"]
    out += [f"- {reason}" for reason in failures]
    return "\n".join(out)


def _markdown_disagreements(result: Calibration, top: int) -> list[str]:
    """Each top disagreement that has words: a table of who scored what and why, and
    the evidence quoted under it (cells escaped: data never becomes Markdown or HTML)."""
    out: list[str] = []
    judge = "judge" if result.judge == "judge" else f"{cell(result.judge)} (judge)"
    for n, row in enumerate(result.disagreements.head(top).iter_rows(named=True), start=1):
        notes = {x["rater"]: x["note"] for x in row["notes"] or []}
        if not (row["reasoning"] or notes or row["evidence"] or _where(row)):
            continue
        groups = ", ".join(str(row[g]) for g in result.groups if row[g] is not None)
        out += [
            "",
            f"#### {n}. {cell(row['item'])}"
            + (f" ({cell(groups)})" if groups else "")
            + f": judge {row['judge']:g}, humans {row['human_mean']:.2f}, "
            f"diff {row['diff']:+.2f}",
            "",
            "| who | score | reasoning or note |",
            "|---|---:|---|",
            f"| {judge} | {row['judge']:g} | {cell(row['reasoning'] or '')} |",
        ]
        for rating in row["ratings"] or []:
            out.append(
                f"| {cell(rating['rater'])} | {rating['score']:g} "
                f"| {cell(notes.get(rating['rater'], ''))} |"
            )
        if row["evidence"]:
            where = f" (at {cell(_where(row))})" if _where(row) else ""
            out += ["", f"> **Evidence**{where}: {cell(row['evidence'])}"]
        elif _where(row):
            out += ["", f"> at {cell(_where(row))}"]
    if out:
        out = ["", "### The disagreements, side by side", *out]
    return out
