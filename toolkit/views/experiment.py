"""Treatment-vs-control reports: a Table-1 style table as text, HTML, LaTeX and JSON, and
per-metric distribution charts.

Rows are experiment x metric; columns ``T mean (sd) | C mean (sd) | Δ | p`` with the
paper's conventions: numbers rounded half away from zero to two decimals, p to three
decimals or ``<0.001``, and ``*`` after p when p < alpha. With a directional check, three
more columns show the reference's Δ and p and whether the conclusions agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.experiment import (
    DEFAULT_RUBRIC,
    TESTS,
    ExperimentRubric,
    format_number,
    format_p,
)
from toolkit.views.html import text, wrap
from toolkit.views.palette import swatch
from toolkit.views.text import fit_table, wrap_item

if TYPE_CHECKING:
    import altair as alt

#: Columns of :func:`table1_frame` (all strings, ready to print).
TABLE1_COLUMNS = ("experiment", "metric", "n", "treatment", "control", "delta", "pct", "p")
CHECK_COLUMNS = ("ref_delta", "ref_p", "check")

CHECK_MARKS = {True: "agrees", False: "DIFFERS", None: "?"}

_GROUP_COLOURS = {"treatment": "#c2185b", "control": "#1565c0"}

#: Metric keys the source systems write where a reader expects a name: TinyTroupe's
#: results name the ideas count ``ideas_qty`` beside display names ("Persona Adherence"),
#: and the persona rubric's tidy export names it ``ideas_quantity``; pages show one name.
#: JSON keeps the key as the file wrote it.
METRIC_LABELS: dict[str, str] = {"ideas_qty": "Ideas quantity", "ideas_quantity": "Ideas quantity"}


def metric_label(metric: str) -> str:
    """The name a page shows for ``metric`` (:data:`METRIC_LABELS`, else as written)."""
    return METRIC_LABELS.get(metric, metric)


def _mean_sd(mean: float | None, sd: float | None, decimals: int) -> str:
    if mean is None:
        return "-"
    return f"{format_number(mean, decimals)} ({format_number(sd, decimals)})"


def _percent(value: float | None) -> str:
    if value is not None and math.isinf(value):
        return "∞" if value > 0 else "-∞"  # from a control mean of 0, as TinyTroupe's
    text = format_number(value, 1)
    return text if text == "-" else f"{text}%"


#: JSON has no infinity: a percent change from a control mean of 0 (and the t of two
#: constant groups with different means) is written as this string (with a leading ``-``
#: when negative), which Python's ``float()`` and JavaScript's ``Number()`` both read back
#: as infinity.
JSON_INFINITY = "Infinity"


def _json_percent(value: Any) -> Any:
    if isinstance(value, float) and math.isinf(value):
        return JSON_INFINITY if value > 0 else f"-{JSON_INFINITY}"
    return _json_number(value)


def effect_note(row: Mapping[str, Any], decimals: int = 2) -> str | None:
    """The effect sizes a rank or chi-square test adds (TinyTroupe reports them too):
    ``P(T > C) 0.67; median Δ 2.00`` for Mann-Whitney, ``Cramér's V 0.25`` for
    chi-square; ``None`` for a row without them."""
    parts = []
    if row.get("prob_superiority") is not None:
        parts.append(f"P(T > C) {row['prob_superiority']:.{decimals}f}")
    if row.get("median_delta") is not None:
        parts.append(f"median Δ {format_number(row['median_delta'], decimals)}")
    if row.get("cramers_v") is not None:
        parts.append(f"Cramér's V {row['cramers_v']:.{decimals}f}")
    return "; ".join(parts) or None


def table1_frame(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The report as a frame of display strings, one row per experiment x metric.

    Args:
        stats: :func:`toolkit.experiment_stats` output.
        rubric: display rules (decimals, p floor).
        direction: optional :func:`toolkit.compare_to_reference` output.

    Returns:
        String columns experiment, metric, n (``"200/200"``: treatment/control non-null
        scores), treatment and control (``"5.81 (1.66)"``: mean (sd)), delta, pct (the
        difference in percent of the control mean, ``"-13.6%"``), p
        (``"<0.001*"``: ``*`` when significant), note (why a number is absent); with
        ``direction`` also ref_delta, ref_p and check (``agrees``, ``DIFFERS``, ``?``
        when undecidable, ``-`` without counterpart), and the check's detail in note.
    """
    d = rubric.decimals
    checks: dict[tuple[str, str], dict[str, Any]] = {}
    if direction is not None:
        for row in direction.iter_rows(named=True):
            checks[(row["experiment"], row["metric"])] = row
    rows: list[dict[str, str]] = []
    for r in stats.iter_rows(named=True):
        p = format_p(r["p_value"], rubric.p_floor, d + 1)
        if r["significant"]:
            p += "*"
        nulls = r["t_nulls"] + r["c_nulls"]
        note = r["absent_reason"] or ""
        if nulls:
            dropped = f"null scores dropped: {r['t_nulls']} treatment, {r['c_nulls']} control"
            note = f"{note}; {dropped}" if note else dropped
        row = {
            "experiment": r["experiment"],
            "metric": metric_label(r["metric"]),
            "n": f"{r['t_n']}/{r['c_n']}",
            "treatment": _mean_sd(r["t_mean"], r["t_sd"], d),
            "control": _mean_sd(r["c_mean"], r["c_sd"], d),
            "delta": format_number(r["delta"], d),
            "pct": _percent(r.get("percent_change")),
            "p": p,
        }
        if direction is not None:
            check = checks.get((r["experiment"], r["metric"]))
            if check is None or check["ref_delta"] is None:
                row.update(ref_delta="-", ref_p="-", check="-")
            else:
                row.update(
                    ref_delta=format_number(check["ref_delta"], d),
                    ref_p=check["ref_p"] or "-",
                    check=CHECK_MARKS[check["agrees"]],
                )
            if check is not None and check["agrees"] is not True and check["ref_delta"] is not None:
                note = f"{note}; {check['detail']}" if note else check["detail"]
        effect = effect_note(r, d)
        if effect:
            note = f"{effect}; {note}" if note else effect
        row["note"] = note
        rows.append(row)
    columns = [*TABLE1_COLUMNS, *(CHECK_COLUMNS if direction is not None else ()), "note"]
    return pl.DataFrame(rows, schema=dict.fromkeys(columns, pl.String()))


_HEADERS = {
    "experiment": "experiment",
    "metric": "metric",
    "n": "n (T/C)",
    "treatment": "T mean (sd)",
    "control": "C mean (sd)",
    "delta": "Δ",
    "pct": "Δ%",
    "p": "p",
    "ref_delta": "ref Δ",
    "ref_p": "ref p",
    "check": "check",
    "note": "note",
}
_RIGHT = {"n", "treatment", "control", "delta", "pct", "p", "ref_delta", "ref_p"}


def _test_name(stats: pl.DataFrame) -> str:
    """The name of the test the stats frame holds (Welch's t when it does not say)."""
    key = stats["test"][0] if stats.height and "test" in stats.columns else None
    return TESTS.get(key or "welch", TESTS["welch"])


def _caption(stats: pl.DataFrame, rubric: ExperimentRubric) -> str:
    alpha = stats["alpha"][0] if stats.height else rubric.alpha
    return (
        f"* p < {alpha:g} ({_test_name(stats)}; Δ = treatment − control; "
        f"rubric {rubric.rubric} {rubric.version})"
    )


def assumption_lines(
    assumptions: pl.DataFrame, rubric: ExperimentRubric = DEFAULT_RUBRIC
) -> list[str]:
    """The assumption checks as text: one line per row where a check looks violated
    (its p-values and the hint in plain words), then a count of the rows where none does.

    Args:
        assumptions: :func:`toolkit.rubrics.experiment.assumption_checks` output.
        rubric: display rules (p floor, decimals).
    """
    if assumptions.height == 0:
        return []

    def p(value: float | None) -> str:
        return format_p(value, rubric.p_floor, rubric.decimals + 1)

    lines = ["Assumption checks (Shapiro-Wilk per group, Levene across groups):"]
    quiet = 0
    for r in assumptions.iter_rows(named=True):
        if not r["hint"]:
            quiet += 1
            continue
        lines.append(
            f"  {r['experiment']} / {metric_label(r['metric'])}: normal p T "
            f"{p(r['t_shapiro_p'])}, "
            f"C {p(r['c_shapiro_p'])}; Levene p {p(r['levene_p'])}: {r['hint']}"
        )
    if quiet:
        lines.append(f"  {quiet} other row(s): no assumption looks violated (or too few scores)")
    return lines


def render_experiment_text(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
    warnings: Sequence[str] = (),
    assumptions: pl.DataFrame | None = None,
    *,
    width: int | None = None,
) -> str:
    """The Table-1 report as aligned plain text (a header, one line per row, a caption),
    then notes, the directional check and the assumption checks when given.

    With ``width`` (a terminal's), nothing runs past it and no number or word is cut: a
    table too wide is printed per experiment (the experiment named above its rows) and,
    if still too wide, in blocks of columns that repeat the metric; prose lines wrap
    between words.

    Example::

        experiment  metric             n (T/C)  T mean (sd)  C mean (sd)     Δ        p
        exp_1       persona_adherence  200/200  5.81 (1.66)  6.72 (1.50)  -0.92  <0.001*
        * p < 0.05 (Welch's two-sided t-test; Δ = treatment − control; rubric ...)
    """
    frame = table1_frame(stats, rubric, direction)
    columns = [c for c in frame.columns if c != "note"]
    right = {i for i, c in enumerate(columns) if c in _RIGHT}
    cells = [[_HEADERS[c] for c in columns]] + [
        [row[c] for c in columns] for row in frame.iter_rows(named=True)
    ]
    lines = fit_table(cells, right=right)
    if width is not None and max(len(line) for line in lines) > width:
        lines = []  # one table per experiment, under its name, keyed by the metric
        for (experiment,), part in frame.group_by("experiment", maintain_order=True):
            sub = [[_HEADERS[c] for c in columns[1:]]] + [
                [row[c] for c in columns[1:]] for row in part.iter_rows(named=True)
            ]
            lines += [*([""] if lines else []), f"{experiment}:"]
            lines += fit_table(sub, right={i - 1 for i in right}, width=width, keys=1)
    lines.extend(wrap_item(_caption(stats, rubric), width, bullet="", indent=2))
    notes = [
        f"{row['experiment']} / {row['metric']}: {row['note']}"
        for row in frame.iter_rows(named=True)
        if row["note"]
    ]
    if notes:
        lines.append("Notes:")
        for note in notes:
            lines.extend(wrap_item(note, width, bullet="  ", indent=4))
    if direction is not None:
        decided = direction.filter(pl.col("agrees").is_not_null())
        agree = decided.filter(pl.col("agrees")).height
        lines.append(f"Directional check: {agree}/{decided.height} rows agree with the reference")
    if assumptions is not None:
        for line in assumption_lines(assumptions, rubric):
            if line.startswith("  "):
                lines.extend(wrap_item(line[2:], width, bullet="  ", indent=4))
            else:
                lines.extend(wrap_item(line, width, bullet="", indent=2))
    if warnings:
        lines.append("Warnings:")
        for w in warnings:
            lines.extend(wrap_item(w, width))
    return "\n".join(lines)


def render_anova_text(
    anova: pl.DataFrame, rubric: ExperimentRubric = DEFAULT_RUBRIC, *, width: int | None = None
) -> str:
    """One-way ANOVA per family x metric as aligned text: each group's n and mean, F
    (df between, df within), eta squared and p (``*`` when significant), then notes;
    fitted to ``width`` as :func:`render_experiment_text` is.
    """
    d = rubric.decimals
    header = ["family", "metric", "groups: n mean", "F (df)", "eta2", "p"]
    cells = [header]
    notes: list[str] = []
    for r in anova.iter_rows(named=True):
        groups = " · ".join(
            f"{g} {n} {format_number(m, d)}"
            for g, n, m in zip(r["groups"], r["n"], r["means"], strict=True)
        )
        f = "-"
        if r["f_stat"] is not None:
            f = f"{format_number(r['f_stat'], d)} ({r['df_between']:g}, {r['df_within']:g})"
        p = format_p(r["p_value"], rubric.p_floor, d + 1) + ("*" if r["significant"] else "")
        cells.append(
            [
                r["family"],
                metric_label(r["metric"]),
                groups,
                f,
                format_number(r["eta_squared"], d),
                p,
            ]
        )
        if r["absent_reason"]:
            notes.append(f"  {r['family']} / {metric_label(r['metric'])}: {r['absent_reason']}")
    lines = fit_table(cells, right={3, 4, 5})
    if width is not None and max(len(line) for line in lines) > width:
        # too wide: the groups leave the table for lines of their own, wrapped
        lines = fit_table([r[:2] + r[3:] for r in cells], right={2, 3, 4}, width=width, keys=2)
        lines.append("Groups (n, mean):")
        for row in cells[1:]:
            lines.extend(wrap_item(f"{row[0]} / {row[1]}: {row[2]}", width, bullet="  ", indent=4))
    alpha = anova["alpha"][0] if anova.height else rubric.alpha
    caption = (
        f"* p < {alpha:g} (one-way ANOVA over the control and every treatment of a family; "
        f"rubric {rubric.rubric} {rubric.version})"
    )
    lines.extend(wrap_item(caption, width, bullet="", indent=2))
    if notes:
        lines.append("Notes:")
        for note in notes:
            lines.extend(wrap_item(note.strip(), width, bullet="  ", indent=4))
    return "\n".join(lines)


def render_anova_json(anova: pl.DataFrame, rubric: ExperimentRubric = DEFAULT_RUBRIC) -> str:
    """The ANOVA rows as JSON: ``{"rubric", "rubric_version", "test", "families":
    {<family>: {<metric>: {every column}}}}``."""
    families: dict[str, Any] = {}
    for r in anova.iter_rows(named=True):
        cell = {k: _json_number(v) for k, v in r.items() if k not in ("family", "metric")}
        families.setdefault(r["family"], {})[r["metric"]] = cell
    doc = {
        "rubric": rubric.rubric,
        "rubric_version": rubric.version,
        "test": "one-way ANOVA",
        "families": families,
    }
    return json.dumps(doc, indent=2)


_STYLE = (
    "<style>"
    ".tk-html table.tk-table tr.absent td{color:#616161}"
    f".tk-html table.tk-table td.differs{{color:{swatch('FAIL').on_white};font-weight:600}}"
    "</style>"
)


def render_experiment_html(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
) -> str:
    """The Table-1 report as an HTML fragment (text left, numbers right; absent rows
    greyed, disagreements red and written ``DIFFERS``)."""
    frame = table1_frame(stats, rubric, direction)
    num = " class='num'"
    head = "".join(
        f"<th{num if c in _RIGHT else ''}>{text(_HEADERS[c])}</th>" for c in frame.columns
    )
    body = []
    for row in frame.iter_rows(named=True):
        absent = " class='absent'" if row["p"] == "-" else ""
        cells = []
        for c in frame.columns:
            classes = ["num"] if c in _RIGHT else []
            if c == "check" and row[c] == CHECK_MARKS[False]:
                classes.append("differs")
            cls = f" class='{' '.join(classes)}'" if classes else ""
            cells.append(f"<td{cls}>{text(row[c])}</td>")
        body.append(f"<tr{absent}>{''.join(cells)}</tr>")
    return wrap(
        f"{_STYLE}<table class='tk-table tk-exp'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
        f"<p class='tk-muted'>{text(_caption(stats, rubric))}</p>"
    )


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex_p(p: str) -> str:
    star = p.endswith("*")
    core = p.rstrip("*")
    core = core.replace("<", "$<$")
    return core + ("$^{*}$" if star else "")


def render_experiment_latex(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
    caption: str | None = None,
    label: str = "tab:experiments",
) -> str:
    """The Table-1 report as a LaTeX ``table`` (booktabs rules), ready for a paper.

    One ``\\midrule`` between experiments; minus signs typeset in math mode; ``*`` as a
    superscript; an absent number is ``--``.
    """
    frame = table1_frame(stats, rubric, direction)
    columns = [c for c in frame.columns if c not in ("note", "n", "pct")]
    spec = "ll" + "r" * (len(columns) - 2)
    header = " & ".join(
        {
            "experiment": "Experiment",
            "metric": "Metric",
            "treatment": "T mean (sd)",
            "control": "C mean (sd)",
            "delta": r"$\Delta$",
            "p": "$p$",
            "ref_delta": r"ref.\ $\Delta$",
            "ref_p": r"ref.\ $p$",
            "check": "check",
        }[c]
        for c in columns
    )

    def cell(col: str, value: str) -> str:
        if value == "-":
            return "--"
        if col in ("p", "ref_p"):
            return _latex_p(value)
        if col in ("treatment", "control", "delta", "ref_delta"):
            return value.replace("-", "$-$").replace("($-$)", "(--)")
        return latex_escape(value)

    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        header + r" \\",
        r"\midrule",
    ]
    previous: str | None = None
    for row in frame.iter_rows(named=True):
        if previous is not None and row["experiment"] != previous:
            lines.append(r"\midrule")
        shown = dict(row)
        if row["experiment"] == previous:
            shown["experiment"] = ""
        previous = row["experiment"]
        lines.append(" & ".join(cell(c, shown[c]) if shown[c] else "" for c in columns) + r" \\")
    alpha = stats["alpha"][0] if stats.height else rubric.alpha
    text = caption or (
        r"Treatment vs control: mean (sd) per group, $\Delta$ = treatment $-$ control, "
        rf"{latex_escape(_test_name(stats))}; $^{{*}}$ $p < {alpha:g}$."
    )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{text}}}",
        rf"\label{{{latex_escape(label)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines)


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def experiment_report_dict(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
    warnings: Sequence[str] = (),
    assumptions: pl.DataFrame | None = None,
) -> dict[str, Any]:
    """The report as a JSON-ready dict, in the reference-table shape.

    ``{"rubric", "rubric_version", "alpha", "experiments": {<experiment>: {"metrics":
    {<metric>: {every stats column, "p_display", "direction" when checked and
    "assumptions" (the :func:`~toolkit.rubrics.experiment.assumption_checks` columns) when
    given}}}}, "warnings"}``; so a saved report can be the ``--reference`` of a later run.
    """
    checked: dict[tuple[str, str], dict[str, Any]] = {}
    if assumptions is not None:
        for row in assumptions.iter_rows(named=True):
            checked[(row["experiment"], row["metric"])] = {
                k: _json_number(v) for k, v in row.items() if k not in ("experiment", "metric")
            }
    checks: dict[tuple[str, str], dict[str, Any]] = {}
    if direction is not None:
        for row in direction.iter_rows(named=True):
            checks[(row["experiment"], row["metric"])] = row
    experiments: dict[str, Any] = {}
    for r in stats.iter_rows(named=True):
        cell = {k: _json_number(v) for k, v in r.items() if k not in ("experiment", "metric")}
        cell["percent_change"] = _json_percent(r["percent_change"])
        for key in ("t_stat", "statistic"):  # ±∞: two constant groups apart
            cell[key] = _json_percent(r[key])
        cell["p_display"] = format_p(r["p_value"], rubric.p_floor, rubric.decimals + 1)
        check = checks.get((r["experiment"], r["metric"]))
        if check is not None:
            cell["direction"] = {
                k: _json_number(v)
                for k, v in check.items()
                if k not in ("experiment", "metric", "delta", "significant")
            }
        if (r["experiment"], r["metric"]) in checked:
            cell["assumptions"] = checked[(r["experiment"], r["metric"])]
        experiments.setdefault(r["experiment"], {"metrics": {}})["metrics"][r["metric"]] = cell
    out: dict[str, Any] = {
        "rubric": rubric.rubric,
        "rubric_version": rubric.version,
        "alpha": stats["alpha"][0] if stats.height else rubric.alpha,
        "test": f"{_test_name(stats)}, delta = treatment - control",
        "experiments": experiments,
        "warnings": list(warnings),
    }
    if direction is not None:
        decided = direction.filter(pl.col("agrees").is_not_null())
        out["directional_check"] = {
            "agree": decided.filter(pl.col("agrees")).height,
            "decided": decided.height,
            "rows": direction.height,
        }
    return out


def render_experiment_json(
    stats: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    direction: pl.DataFrame | None = None,
    warnings: Sequence[str] = (),
    assumptions: pl.DataFrame | None = None,
) -> str:
    """:func:`experiment_report_dict` as indented JSON."""
    return json.dumps(
        experiment_report_dict(stats, rubric, direction, warnings, assumptions), indent=2
    )


# ---------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------


def distribution_chart(
    scores: pl.DataFrame,
    intervals: pl.DataFrame,
    experiment: str,
    width: int = 520,
) -> alt.VConcatChart:
    """Per metric, both groups' score distributions with their means and intervals.

    Each metric is one panel: a circle per distinct score, sized by how many units got
    it (treatment and control on separate rows), and over it the group mean (black
    diamond) with its 1 - alpha interval (black bar). The control's interval is shaded
    across the whole panel: the band the treatment is read against (a treatment mean
    outside it is at least a visible change; whether it is significant is the test's).

    Args:
        scores: the long scores frame (experiment, group, metric, unit, score).
        intervals: :func:`toolkit.group_intervals` output (experiment, metric, group, n,
            mean, sd, ci_low, ci_high).
        experiment: which experiment to draw.
        width: panel width in pixels.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    counts = (
        scores.filter((pl.col("experiment") == experiment) & pl.col("score").is_not_null())
        .group_by("metric", "group", "score", maintain_order=True)
        .agg(count=pl.len())
        .with_columns(pl.col("group").cast(pl.String))
    )
    means = intervals.filter(pl.col("experiment") == experiment)
    colour = alt.Color(
        "group:N",
        scale=alt.Scale(domain=list(_GROUP_COLOURS), range=list(_GROUP_COLOURS.values())),
        legend=alt.Legend(title="group"),
    )
    y = alt.Y("group:N", sort=list(_GROUP_COLOURS), title=None)
    panels = []
    for metric in means["metric"].unique(maintain_order=True).to_list():
        dots = (
            alt.Chart(counts.filter(pl.col("metric") == metric))
            .mark_circle(opacity=0.55)
            .encode(
                x=alt.X("score:Q", title=metric_label(metric), scale=alt.Scale(zero=False)),
                y=y,
                size=alt.Size("count:Q", legend=None, scale=alt.Scale(range=[20, 600])),
                color=colour,
                tooltip=["group:N", "score:Q", alt.Tooltip("count:Q", title="units")],
            )
        )
        summary = alt.Chart(means.filter(pl.col("metric") == metric))
        band = (
            summary.transform_filter(alt.datum.group == "control")
            .mark_rect(color=_GROUP_COLOURS["control"], opacity=0.12)
            .encode(x="ci_low:Q", x2="ci_high:Q")
        )
        bars = summary.mark_rule(strokeWidth=2, color="black").encode(
            x="ci_low:Q", x2="ci_high:Q", y=y
        )
        diamonds = summary.mark_point(shape="diamond", filled=True, color="black", size=90).encode(
            x="mean:Q",
            y=y,
            tooltip=[
                "group:N",
                alt.Tooltip("n:Q"),
                alt.Tooltip("mean:Q", format=".2f"),
                alt.Tooltip("sd:Q", format=".2f"),
                alt.Tooltip("ci_low:Q", format=".2f", title="interval low"),
                alt.Tooltip("ci_high:Q", format=".2f", title="interval high"),
            ],
        )
        panels.append(alt.layer(band, dots, bars, diamonds).properties(width=width, height=70))
    return alt.vconcat(*panels).properties(
        title=alt.TitleParams(
            text=f"{experiment}: scores per group",
            subtitle=(
                "circle size = units with that score; diamond = mean, bar = interval; "
                "shaded = the control's interval"
            ),
        )
    )
