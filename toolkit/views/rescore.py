"""The re-score and the threshold sweep as text (80 columns unless the terminal is
narrower), Markdown, JSON and an Altair chart (:mod:`toolkit.rubrics.rescore`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.io.edge import visible, visible_lines
from toolkit.rubrics.rescore import RescoreResult, SweepResult
from toolkit.views.markdown import cell, code_span
from toolkit.views.text import fit_table, wrap_item

if TYPE_CHECKING:
    import altair as alt

#: The text width when the output is not a terminal (a pipe, a file).
WIDTH = 80
#: A fleet shows its per-run table whole up to this many runs; above, the changed ones.
SHOW_ALL_RUNS = 30
#: The longest "what differs" line shown in text (the JSON has them whole).
DIFF_CHARS = 120


def _f(value: Any, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _unit(result: RescoreResult) -> str:
    return {
        "outcome": "iteration",
        "simulation": "run",
        "persona": "agent",
        "discussion": "game",
    }.get(result.family, "subject")


def _verdict_word(result: RescoreResult) -> str:
    return "band" if result.family == "outcome" else "verdict"


def _short(line: str, limit: int = DIFF_CHARS) -> str:
    """A "what differs" line, or, past ``limit``, its parameter and where to see it."""
    if len(line) <= limit:
        return line
    key = line.split(": ", 1)[0]
    return f"{key}: changed (too long to show here: --format json has both values)"


def _head(result: RescoreResult, width: int | None) -> list[str]:
    lines = [f"Rescore of {result.source} ({result.family})"]
    lines += wrap_item(f"A: {result.a} (epoch {result.epoch_a or '-'})", width, bullet="  ")
    lines += wrap_item(f"B: {result.b} (epoch {result.epoch_b or '-'})", width, bullet="  ")
    if result.judge_calls is not None:
        lines.append(f"  judge calls made for B: {result.judge_calls}")
    return lines


def _overall_line(result: RescoreResult) -> str:
    o = result.overall()
    unit = _unit(result)
    parts = [f"{o['subjects']} {unit}(s)"]
    if o["mean_delta"] is not None:
        parts.append(
            f"{o['changed']} changed, mean change {_f(o['mean_delta'], True)}, "
            f"largest {_f(o['max_abs_delta'])}"
        )
    parts.append(f"{o['verdict_flips']} {_verdict_word(result)} flip(s)")
    parts.append(f"{o['dimension_flips']} dimension status flip(s)")
    return "Overall: " + ", ".join(parts)


def _shown_runs(result: RescoreResult) -> tuple[pl.DataFrame, int]:
    runs = result.runs
    if runs.height <= SHOW_ALL_RUNS:
        return runs, 0
    moved = result.dimensions.filter(pl.col("flipped") | (pl.col("delta").abs() > 1e-9))
    keep = runs.filter(
        pl.col("flipped")
        | (pl.col("delta").abs() > 1e-9).fill_null(False)
        | pl.col("subject").is_in(moved["subject"].implode())
    )
    return keep, runs.height - keep.height


def _run_rows(result: RescoreResult, runs: pl.DataFrame) -> list[list[str]]:
    word = _verdict_word(result)
    has_value = (
        runs["value_a"].null_count() < runs.height or runs["value_b"].null_count() < runs.height
    )
    head = [
        _unit(result),
        *(["A", "B", "change"] if has_value else []),
        f"A {word}",
        f"B {word}",
        "",
    ]
    rows = [head]
    for r in runs.iter_rows(named=True):
        values = [_f(r["value_a"]), _f(r["value_b"]), _f(r["delta"], True)] if has_value else []
        rows.append(
            [
                visible(str(r["subject"])),
                *values,
                str(r["verdict_a"] or "-"),
                str(r["verdict_b"] or "-"),
                "flip" if r["flipped"] else "",
            ]
        )
    return rows


def _dimension_rows(result: RescoreResult) -> list[list[str]]:
    summary = result.dimension_summary()
    weighted = summary["mean_weight_delta"].null_count() < summary.height
    head = ["dimension", "n", "changed", "mean change", "largest", "flips"]
    rows = [head + (["weight change"] if weighted else [])]
    for r in summary.iter_rows(named=True):
        row = [
            r["dimension"],
            str(r["subjects"]),
            str(r["changed"]),
            _f(r["mean_delta"], True),
            _f(r["max_abs_delta"]),
            str(r["flips"]),
        ]
        rows.append(row + ([_f(r["mean_weight_delta"], True)] if weighted else []))
    return rows


def _status_rows(result: RescoreResult) -> list[list[str]]:
    flips = result.dimensions.filter(pl.col("flipped"))
    rows = [[_unit(result), "dimension", "A", "B", "A status", "B status"]]
    for r in flips.iter_rows(named=True):
        rows.append(
            [
                visible(str(r["subject"])),
                r["dimension"],
                _f(r["value_a"]),
                _f(r["value_b"]),
                str(r["status_a"]),
                str(r["status_b"]),
            ]
        )
    return rows


def _stored_rows(result: RescoreResult) -> list[list[str]]:
    runs = result.runs.filter(
        pl.col("value_stored").is_not_null() | pl.col("verdict_stored").is_not_null()
    )
    valued = runs["value_stored"].null_count() < runs.height
    numbers = ["stored", "A now", "B now", "from inputs", "from rubric"] if valued else []
    rows = [[_unit(result), *numbers, "inputs", f"{_verdict_word(result)}: stored → A → B"]]
    for r in runs.iter_rows(named=True):
        values = (
            [
                _f(r["value_stored"]),
                _f(r["value_a"]),
                _f(r["value_b"]),
                _f(r["from_inputs"], True),
                _f(r["from_rubric"], True),
            ]
            if valued
            else []
        )
        verdicts = " → ".join(
            str(r[k] or "-") for k in ("verdict_stored", "verdict_a", "verdict_b")
        )
        inputs = "changed" if r["inputs_changed"] else "same"
        rows.append([visible(str(r["subject"])), *values, inputs, verdicts])
    return rows


def _stored_summary(result: RescoreResult) -> str:
    o = result.overall()
    return (
        f"Since the stored scores: {o['stored']} {_unit(result)}(s), inputs changed in "
        f"{o['inputs_changed']}; mean change from the inputs {_f(o['mean_from_inputs'], True)}, "
        f"from the rubric {_f(o['mean_from_rubric'], True)}; {o['flips_from_inputs']} "
        f"{_verdict_word(result)} flip(s) from the inputs"
    )


def render_rescore_text(result: RescoreResult, width: int | None = None) -> str:
    """The re-score as text: head, what differs, overall, per run, per dimension, the
    status flips, the split since the stored scores, notes."""
    w = min(width or WIDTH, WIDTH)
    out = _head(result, w)
    if result.differences:
        out.append(f"What differs ({len(result.differences)}):")
        for line in result.differences:
            out.extend(wrap_item(_short(line), w))
    else:
        out.append("What differs: nothing (one epoch)")
    out.extend(wrap_item(_overall_line(result), w, bullet=""))
    runs, hidden = _shown_runs(result)
    out += ["", f"Per {_unit(result)}"]
    rows = _run_rows(result, runs)
    right = {1, 2, 3} if rows[0][1] == "A" else set()
    out += fit_table(rows, right=right, width=w)
    if hidden:
        out.append(f"({hidden} {_unit(result)}(s) where nothing moved are not shown)")
    out += ["", "Per dimension"]
    out += fit_table(_dimension_rows(result), right={1, 2, 3, 4, 5, 6}, width=w)
    status = _status_rows(result)
    if len(status) > 1:
        out += ["", "Dimension status flips"]
        out += fit_table(status, right={2, 3}, width=w)
    if result.stored:
        out += ["", *wrap_item(_stored_summary(result), w, bullet="")]
        stored = _stored_rows(result)
        right = {1, 2, 3, 4, 5} if stored[0][1] == "stored" else set()
        out += fit_table(stored, right=right, width=w)
        notes = result.runs.drop_nulls("note").group_by("note", maintain_order=True).len()
        for note, n in notes.iter_rows():
            out.extend(wrap_item(f"{n} {_unit(result)}(s): {note}", w))
    if result.notes:
        out += ["", "Notes"]
        for note in result.notes:
            out.extend(wrap_item(note, w))
    return visible_lines("\n".join(out))


def _md_table(rows: Sequence[Sequence[str]]) -> list[str]:
    head, *body = rows
    out = ["| " + " | ".join(cell(c) for c in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in body]
    return out


def render_rescore_markdown(result: RescoreResult) -> str:
    """The re-score as GitHub Markdown (tables of every run, dimension and split)."""
    out = [
        f"## Rescore of {code_span(result.source)} ({cell(result.family)})",
        "",
        f"A: {cell(result.a)} (epoch {code_span(result.epoch_a)}) · B: {cell(result.b)} "
        f"(epoch {code_span(result.epoch_b)})",
        "",
    ]
    if result.differences:
        out += [f"- {cell(_short(line, 400))}" for line in result.differences] + [""]
    out += [cell(_overall_line(result)), "", *_md_table(_run_rows(result, result.runs)), ""]
    out += [*_md_table(_dimension_rows(result)), ""]
    if result.stored:
        out += [cell(_stored_summary(result)), "", *_md_table(_stored_rows(result)), ""]
    out += [f"- {cell(n)}" for n in result.notes]
    return "\n".join(out).rstrip() + "\n"


def render_rescore_json(result: RescoreResult) -> str:
    """The re-score as JSON (:meth:`RescoreResult.to_dict`)."""
    return json.dumps(result.to_dict(), indent=2, allow_nan=False)


# ---------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------


def _num(value: float) -> str:
    return f"{value:g}"


def _outcome(result: SweepResult) -> bool:
    return getattr(result, "family", "simulation") == "outcome"


def _swept_part(result: SweepResult) -> str:
    """The part whose statuses a sweep counts: a simulation dimension, a discussion
    metric (its spec names ``metrics`` first, the metric second)."""
    return result.spec.threshold if _units(result) == "games" else result.spec.dimension


def _units(result: SweepResult) -> str:
    """What a sweep counts: iterations, games or runs."""
    family = getattr(result, "family", "simulation")
    return {"outcome": "iterations", "discussion": "games"}.get(family, "runs")


def _sweep_rows(result: SweepResult) -> list[list[str]]:
    short = {"INSUFFICIENT DATA": "INSUFF.", "PENDING_RATING": "PENDING"}
    status = [] if _outcome(result) else ["status flips"]
    runs = _units(result)
    rows = [["value", runs, "flips", *status, *(short.get(v, v) for v in result.verdicts)]]
    for r in result.table.iter_rows(named=True):
        mark = " *" if abs(r["value"] - result.base_value) < 1e-9 else ""
        if not r["valid"]:
            dashes = ["-"] * (2 + len(status) + len(result.verdicts))
            rows.append([_num(r["value"]) + mark, *dashes])
            continue
        rows.append(
            [
                _num(r["value"]) + mark,
                str(r["runs"]),
                str(r["flips"]),
                *([str(r["status_flips"])] if status else []),
                *(str(r[v]) for v in result.verdicts),
            ]
        )
    return rows


def render_sweep_text(result: SweepResult, width: int | None = None) -> str:
    """The sweep as text: one line per value (``*`` the rubric's own value)."""
    w = min(width or WIDTH, WIDTH)
    flips = "bands that change" if _outcome(result) else "verdicts that flip"
    out = wrap_item(
        f"Sweep of {result.spec.name} over {result.source}: {flips} "
        f"against {result.base} ({result.spec.name} = "
        f"{_num(result.base_value)}, marked *)",
        w,
        bullet="",
    )
    rows = _sweep_rows(result)
    out += fit_table(rows, right=set(range(1, len(rows[0]))), width=w)
    invalid = result.table.filter(~pl.col("valid"))
    for value, reason in invalid.select("value", "reason").iter_rows():
        out.extend(wrap_item(f"{_num(value)}: not a valid rubric ({reason})", w))
    return visible_lines("\n".join(out))


def render_sweep_markdown(result: SweepResult) -> str:
    """The sweep as a Markdown table."""
    head = [f"## Sweep of {code_span(result.spec.name)} "
            f"({cell(result.base)}: {_num(result.base_value)})", ""]  # fmt: skip
    return "\n".join([*head, *_md_table(_sweep_rows(result))]) + "\n"


def render_sweep_json(result: SweepResult) -> str:
    """The sweep as JSON (:meth:`SweepResult.to_dict`)."""
    return json.dumps(result.to_dict(), indent=2, allow_nan=False)


def sweep_chart(result: SweepResult) -> alt.LayerChart | alt.FacetChart:
    """Verdict flips (and the swept dimension's status flips) at each value, with a rule
    at the rubric's own value."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    frame = (
        result.table.filter(pl.col("valid"))
        .unpivot(
            index="value",
            on=["flips"] if _outcome(result) else ["flips", "status_flips"],
            variable_name="what",
            value_name="count",
        )
        .with_columns(
            pl.col("what").replace(
                {
                    "flips": "band flips" if _outcome(result) else "verdict flips",
                    "status_flips": f"{_swept_part(result)} flips",
                }
            )
        )
    )
    lines = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("value:Q", title=result.spec.name),
            y=alt.Y(
                "count:Q", title="iterations" if _outcome(result) else f"{_units(result)} that flip"
            ),
            color=alt.Color("what:N", title=None),
            tooltip=["value:Q", "what:N", alt.Tooltip("count:Q", title="runs")],
        )
    )
    base = (
        alt.Chart(pl.DataFrame({"value": [result.base_value]}))
        .mark_rule(color="#444", strokeDash=[4, 3])
        .encode(x="value:Q")
    )
    return alt.layer(base, lines).properties(
        title=f"{result.spec.name}: flips against {result.base}", width=480, height=240
    )


def render_sweep_chart_html(result: SweepResult) -> str:
    """:func:`sweep_chart` as a standalone HTML page."""
    html: str = sweep_chart(result).to_html()
    return html
