"""Views of a comparison (:class:`toolkit.rubrics.compare.CompareResult`): text that fits
80 columns, JSON, Markdown for a pull-request comment, an Altair forest plot and a
standalone offline HTML page (the plot inlined as SVG)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.io.edge import visible
from toolkit.rubrics.compare.result import interval_adjustment
from toolkit.summary import plural
from toolkit.views.html import badge, table, text, wrap
from toolkit.views.palette import swatch
from toolkit.views.text import name_lines, paint, text_columns, wrap_item

if TYPE_CHECKING:
    import altair as alt

    from toolkit.rubrics.compare import CompareResult

#: The status colour each outcome borrows from the palette.
OUTCOME_STATUS: dict[str, str] = {
    "better": "OK",
    "worse": "FAIL",
    "changed": "WARN",
    "within noise": "N/A",
    "no difference": "N/A",
    "n/a": "N/A",
}
TEST_NAMES = {
    "wilcoxon": "Wilcoxon signed-rank",
    "t": "paired t",
    "mann-whitney": "Mann-Whitney U",
    "welch": "Welch's t",
    "mcnemar": "McNemar exact",
    "fisher": "Fisher exact",
}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
#: Units named in a list before "… N more".
SHOWN_UNITS = 6


def num(value: float | None, width: int = 7, sign: bool = False) -> str:
    """``value`` in at most ``width`` characters: three significant digits, fewer when
    needed; ``-`` when absent."""
    if value is None:
        return "-"
    if abs(value) < 1e-12:  # zero, or a float's rounding left-over (2e-17)
        return "0"
    flag = "+" if sign else ""
    for digits in (3, 2, 1):
        out = f"{value:{flag}.{digits}g}"
        if len(out) <= width:
            return out
    return f"{value:{flag}.0e}"


def p_text(p: float | None) -> str:
    """A p-value as shown: ``<0.001`` under a thousandth, else three decimals."""
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _units(units: tuple[str, ...]) -> str:
    shown = ", ".join(units[:SHOWN_UNITS])
    more = len(units) - SHOWN_UNITS
    return shown + (f", … {more} more" if more > 0 else "")


def headline(result: CompareResult) -> list[str]:
    """The first lines: what is compared with what, and how."""
    a, b = result.labels
    how = (
        f"paired by {result.pair_by}: {plural(result.pairs, 'pair')}"
        if result.mode == "paired"
        else "UNPAIRED (no unit in both arms)"
    )
    test = TEST_NAMES.get(result.test, result.test)
    if result.mode == "unpaired":
        test = "Mann-Whitney U" if result.test == "wilcoxon" else "Welch's t"
    return [
        f"compare · {result.family} · B={b} vs A={a}",
        f"{how} ({plural(result.runs_a, 'run')} in A, {result.runs_b} in B)",
        f"{test}; {CORRECTION_NAMES[result.correction]}-corrected, alpha {result.alpha:g}",
        interval_line(result),
    ]


def level_text(level: float) -> str:
    """A level as a percentage: ``95%``, ``99.4%`` (three significant digits)."""
    return f"{level * 100:.3g}%"


def interval_line(result: CompareResult) -> str:
    """What B - A's interval is: its level, and how it is adjusted like ``p adj``."""
    shown = f"B - A: {level_text(result.interval_level)} bootstrap CI (seed {result.seed})"
    if result.interval_level == result.level and result.correction == "holm":
        return f"{shown}, unadjusted (one dimension tested)"
    if result.interval_level == result.level:  # BH selected every dimension tested
        return f"{shown}: {interval_adjustment(result.correction)}, here the unadjusted level"
    return f"{shown}: {level_text(result.level)} {interval_adjustment(result.correction)}"


def ci_header(result: CompareResult) -> str:
    """The interval column's header: its level, ``adj.`` when adjusted."""
    adjusted = " adj." if result.interval_level != result.level else ""
    return f"{level_text(result.interval_level)} CI{adjusted}"


#: What "pass" means in the dimensions table and in the flips (one definition each).
PASS_IN_TABLE = (
    "pass/fail rows: mean A and mean B are the share of runs passing, averaged over units"
)
PASS_IN_FLIPS = "flips and McNemar's p count units: a unit passes when most of its runs pass"


def pass_legend(result: CompareResult) -> list[str]:
    """The two definitions of "pass", when a pass/fail dimension is there."""
    if result.dimensions.filter(pl.col("kind") == "pass/fail").is_empty():
        return []
    return [f"{PASS_IN_TABLE}; {PASS_IN_FLIPS}."]


def verdict_line(result: CompareResult) -> str:
    """One sentence: where B is better, worse, within noise."""
    dims = result.dimensions
    parts = []
    for outcome in ("better", "worse", "changed", "within noise"):
        names = dims.filter(pl.col("outcome") == outcome)["dimension"].to_list()
        if names:
            parts.append(f"{outcome} on {', '.join(names)}")
    rest = dims.filter(pl.col("outcome").is_in(["no difference", "n/a"])).height
    if not parts:
        return f"B: no significant difference on any of {dims.height} dimensions."
    tail = f"; no significant difference on {rest} other(s)" if rest else ""
    return "B: " + "; ".join(parts) + tail + "."


def render_compare_text(
    result: CompareResult, *, width: int | None = None, colour: bool = False
) -> str:
    """The comparison as text: the header, one line per dimension (means, B - A, its
    interval, the corrected p, the outcome), flips and pass^k of pass/fail outcomes,
    the noise floor, the unpaired units and notes. With ``width`` (a terminal) the table
    narrows its dimension column and long lines wrap; without, nothing is cut."""
    name_w = _name_width(result, width)
    title, *heads = headline(result)
    a, b = result.labels
    if width is not None and text_columns(title) > width:  # long names: each on its own line
        lines = [f"compare · {result.family} · B vs A:"]
        lines += [*name_lines("  B=", b, width), *name_lines("  A=", a, width)]
    else:
        lines = wrap_item(visible(title), width, bullet="")  # a U+202E in a name: escaped
    lines += [line for head in heads for line in wrap_item(head, width, bullet="")]
    lines += ["", *_dimension_lines(result, name_w, colour)]
    lines += [line for leg in pass_legend(result) for line in wrap_item(leg, width, bullet="")]
    lines += ["", *wrap_item(verdict_line(result), width, bullet="", indent=0)]
    lines += _flip_lines(result)
    lines += _pass_k_lines(result, width)
    lines += strata_lines(result, width)
    lines += _noise_lines(result, name_w, width)
    lines += _unpaired_lines(result, width)
    if result.notes:
        lines += ["", "notes:"]
        for note in result.notes:
            lines += wrap_item(note, width)
    lines.append(f"(rubric compare {result.version})")
    return "\n".join(lines)


def _name_width(result: CompareResult, width: int | None) -> int:
    """The dimension column's width: the longest name, narrowed (to 10 at least) so the
    table fits ``width`` columns."""
    names = result.dimensions["dimension"].to_list()
    fixed = 1 + 6 + 1 + 6 + 1 + 7 + 1 + 16 + 1 + 6 + 1 + 13  # the columns after the name
    name_w = max([len("dimension"), *(len(n) for n in names)])
    if width is not None:
        name_w = max(10, min(name_w, width - fixed))
    return name_w


def _clipped(name: str, name_w: int) -> str:
    """``name`` cut to ``name_w`` characters, its last one ``…`` when cut."""
    return name[: name_w - 1] + "…" if len(name) > name_w else name


def _dimension_lines(result: CompareResult, name_w: int, colour: bool) -> list[str]:
    """The table's header, then one line per dimension: means, B - A, its interval, the
    corrected p and the outcome (painted when ``colour``)."""
    pct = ci_header(result)
    lines = [
        f"{'dimension':<{name_w}} {'mean A':>6} {'mean B':>6} {'B - A':>7} "
        f"{pct:<16} {'p adj':>6} outcome"
    ]
    for r in result.dimensions.iter_rows(named=True):
        name = _clipped(r["dimension"], name_w)
        ci = (
            f"[{num(r['ci_low'], 6, True)}, {num(r['ci_high'], 6, True)}]"
            if r["ci_low"] is not None
            else "-"
        )
        outcome = paint(r["outcome"], OUTCOME_STATUS.get(r["outcome"], "N/A"), colour)
        lines.append(
            f"{name:<{name_w}} {num(r['mean_a'], 6):>6} {num(r['mean_b'], 6):>6} "
            f"{num(r['diff'], sign=True):>7} {ci:<16} {p_text(r['p_adj']):>6} {outcome}"
        )
    return lines


def _flip_lines(result: CompareResult) -> list[str]:
    """Each pass/fail dimension's flips between A and B, with McNemar's p."""
    lines: list[str] = []
    for f in result.flips.iter_rows(named=True):
        lines += [
            "",
            f"{f['dimension']} (pass/fail, in units: a unit passes when most of its runs pass):",
            f"  both pass {f['both_pass']}, pass -> fail {f['pass_to_fail']}, "
            f"fail -> pass {f['fail_to_pass']}, both fail {f['both_fail']}; "
            f"McNemar p = {p_text(f['p'])}",
        ]
    return lines


def _pass_k_lines(result: CompareResult, width: int | None) -> list[str]:
    """pass^k of each pass/fail dimension, a line per arm (the units counted named where
    fewer than the arm's most)."""
    lines: list[str] = []
    for dim in dict.fromkeys(result.pass_k["dimension"].to_list()):
        rows = result.pass_k.filter(pl.col("dimension") == dim)
        lines.append(f"  pass^k of {dim} (tau-bench):")
        for arm in ("A", "B"):
            arm_rows = rows.filter(pl.col("arm") == arm)
            if arm_rows.is_empty():
                continue
            top = max(arm_rows["units"].to_list(), default=0)
            cells = "  ".join(
                f"k={k} {pass_k_cell(v, lo, hi)}"
                + ("" if units == top else f" ({plural(units, 'unit')})")
                for k, units, v, lo, hi in arm_rows.select(
                    "k", "units", "pass_k", "ci_low", "ci_high"
                ).rows()
            )
            lines += wrap_item(cells, width, bullet=f"    {arm}: ", indent=7)
    return lines


def _ahead_text(row: dict[str, Any], labels: tuple[str, str]) -> str:
    """Who is ahead on one stratum, in words."""
    if row["ahead"] == "even":
        return "even"
    return f"{row['ahead']} ({labels[0 if row['ahead'] == 'A' else 1]}) ahead"


def strata_lines(result: CompareResult, width: int | None) -> list[str]:
    """Which arm is ahead over all tasks and per difficulty and language (eval-harness
    runs): pass rates, B - A with its interval, pass^k at the k every task reaches, and
    the mean score; nothing when the units carry no such property."""
    strata = result.strata
    if strata is None or strata.is_empty():
        return []
    lines = ["", "by task property (pass rate of paired tasks; no test: few tasks each):"]
    head = f"  {'':<16} {'tasks':>5} {'A':>5} {'B':>5} {'B - A':>6} {'95% CI':<14} pass^k A/B"
    head = head.replace("95% CI", f"{result.level * 100:g}% CI")
    lines.append(head)
    for r in strata.iter_rows(named=True):
        name = r["value"] if r["by"] == "all" else f"{r['by'][:4]}={r['value']}"
        ci = f"[{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]" if r["ci_low"] is not None else "-"
        lines.append(
            f"  {_clipped(name, 16):<16} {r['tasks']:>5} {r['pass_a']:>5.2f} {r['pass_b']:>5.2f} "
            f"{r['diff']:>+6.2f} {ci:<14} k={r['k']} {r['pass_k_a']:.2f}/{r['pass_k_b']:.2f} "
            f"{'even' if r['ahead'] == 'even' else r['ahead'] + ' ahead'}"
        )
    overall = strata.row(0, named=True)
    lines += wrap_item(
        f"overall: {_ahead_text(overall, result.labels)} on the verifier's pass rate "
        f"({overall['pass_b']:.2f} vs {overall['pass_a']:.2f} over {overall['tasks']} tasks); "
        "see the passed row above for its test",
        width, bullet="  ", indent=2,
    )  # fmt: skip
    return lines


def pass_k_cell(value: float | None, low: float | None, high: float | None) -> str:
    """A pass^k value with its interval: ``0.67 [0.42, 0.92]`` (``-`` when none)."""
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def _noise_lines(result: CompareResult, name_w: int, width: int | None) -> list[str]:
    """The noise floor of each dimension (from A's repeated runs of one unit) and what its
    columns mean; nothing without repeated runs."""
    if not result.noise.height:
        return []
    lines = [
        "",
        "noise floor (A's repeated runs of one unit):",
        f"  {'dimension':<{name_w}} {'units':>5} {'run sd':>7} {'2 runs':>7} {'floor':>7}",
    ]
    for r in result.noise.iter_rows(named=True):
        name = _clipped(r["dimension"], name_w)
        lines.append(
            f"  {name:<{name_w}} {r['units']:>5} {num(r['within_sd']):>7} "
            f"{num(r['run_spread']):>7} {num(r['floor']):>7}"
        )
    lines += wrap_item(
        "2 runs: two single runs of one unit land this far apart or less 95% of the "
        "time; floor: the same for this comparison's mean difference (below it: "
        "within noise)",
        width,
        bullet="  ",
        indent=2,
    )
    return lines


def _unpaired_lines(result: CompareResult, width: int | None) -> list[str]:
    """The units only one side has (nothing when every unit is paired)."""
    if not (result.only_a or result.only_b):
        return []
    lines = [""]
    if result.only_a:
        lines += wrap_item(
            f"{len(result.only_a)} only in A: {_units(result.only_a)}", width,
            bullet="unpaired: ", indent=2,
        )  # fmt: skip
    if result.only_b:
        lines += wrap_item(
            f"{len(result.only_b)} only in B: {_units(result.only_b)}", width,
            bullet="unpaired: ", indent=2,
        )  # fmt: skip
    return lines


def render_compare_json(result: CompareResult) -> str:
    """The comparison as JSON (:meth:`CompareResult.to_dict`), NaN written as null."""

    def clean(value: Any) -> Any:
        if isinstance(value, float) and value != value:
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(result.to_dict()), indent=2)


_MD_MARK = {"better": "✅ better", "worse": "❌ worse", "changed": "⚠️ changed"}


def md(value: object) -> str:
    """``value`` as text inside a Markdown table cell (``|`` escaped)."""
    return str(value).replace("|", "\\|")


def render_compare_markdown(result: CompareResult) -> str:
    """The comparison as Markdown for a pull-request comment: the header, a table per
    dimension, the verdict sentence, flips, unpaired units and notes."""
    pct = ci_header(result)
    out = [
        f"### `toolkit compare` · {md(result.family)}: B = `{md(result.labels[1])}` vs "
        f"A = `{md(result.labels[0])}`",
        "",
        " · ".join(headline(result)[1:]),
        "",
        f"| dimension | mean A | mean B | B − A | {pct} | p (adj.) | outcome |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for r in result.dimensions.iter_rows(named=True):
        ci = (
            f"{num(r['ci_low'], 8, True)} … {num(r['ci_high'], 8, True)}"
            if r["ci_low"] is not None
            else "–"
        )
        outcome = _MD_MARK.get(r["outcome"], r["outcome"])
        out.append(
            f"| {md(r['dimension'])} | {num(r['mean_a'])} | {num(r['mean_b'])} | "
            f"{num(r['diff'], sign=True)} | {ci} | {p_text(r['p_adj'])} | {outcome} |"
        )
    out += [f"\n_{md(leg)}_" for leg in pass_legend(result)]
    out += ["", f"**{verdict_line(result)}**"]
    for f in result.flips.iter_rows(named=True):
        out.append(
            f"\n{md(f['dimension'])} (units by majority of runs): {f['pass_to_fail']} pass → "
            f"fail, {f['fail_to_pass']} fail → pass (McNemar p = {p_text(f['p'])})."
        )
    out += _strata_markdown(result)
    if result.only_a or result.only_b:
        out.append(f"\nUnpaired: {len(result.only_a)} only in A, {len(result.only_b)} only in B.")
    for note in result.notes:
        out.append(f"\n> {md(note)}")
    return "\n".join(out)


def _strata_markdown(result: CompareResult) -> list[str]:
    """pass^k per arm and the table by task property, for a pull-request comment."""
    out: list[str] = []
    for dim in dict.fromkeys(result.pass_k["dimension"].to_list()):
        rows_k = result.pass_k.filter(pl.col("dimension") == dim)
        for arm in ("A", "B"):
            cells = ", ".join(
                f"k={k} {pass_k_cell(v, lo, hi)}"
                for k, v, lo, hi in rows_k.filter(pl.col("arm") == arm)
                .select("k", "pass_k", "ci_low", "ci_high")
                .rows()
            )
            if cells:
                out.append(f"\npass^k of {md(dim)}, {arm}: {md(cells)}")
    strata = result.strata
    if strata is None or strata.is_empty():
        return out
    out += ["", "| tasks by | tasks | pass A | pass B | B − A | 95% CI | pass^k A / B | ahead |",
            "|---|---:|---:|---:|---:|---|---|---|"]  # fmt: skip
    for r in strata.iter_rows(named=True):
        name = r["value"] if r["by"] == "all" else f"{r['by']} = {r['value']}"
        ci = f"{r['ci_low']:+.2f} … {r['ci_high']:+.2f}" if r["ci_low"] is not None else "–"
        out.append(
            f"| {md(name)} | {r['tasks']} | {r['pass_a']:.2f} | {r['pass_b']:.2f} | "
            f"{r['diff']:+.2f} | {ci} | k={r['k']}: {r['pass_k_a']:.2f} / {r['pass_k_b']:.2f} | "
            f"{md(_ahead_text(r, result.labels))} |"
        )
    return out


def forest_frame(result: CompareResult) -> pl.DataFrame:
    """One row per dimension with a difference: B - A and its interval, also scaled by
    the interval's half-width of the largest so that all dimensions share an axis when
    their units differ (``scaled_*``), and the outcome."""
    frame = result.dimensions.filter(pl.col("diff").is_not_null()).select(
        "dimension", "diff", "ci_low", "ci_high", "outcome", "p_adj", "noise_floor"
    )
    scale = pl.max_horizontal(pl.col("ci_low").abs(), pl.col("ci_high").abs(), pl.col("diff").abs())
    frame = frame.with_columns(pl.when(scale > 0).then(scale).otherwise(1.0).alias("scale"))
    return frame.with_columns(
        (pl.col(c) / pl.col("scale")).alias(f"scaled_{c}") for c in ("diff", "ci_low", "ci_high")
    )


def compare_chart(result: CompareResult) -> alt.LayerChart | alt.FacetChart:
    """The forest plot: one row per dimension, B - A with its interval (each dimension
    scaled to its own largest magnitude, so units may differ; the tooltip shows the raw
    numbers), the zero line, colour by outcome."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    frame = forest_frame(result)
    outcomes = list(OUTCOME_STATUS)
    colours = [swatch(OUTCOME_STATUS[o]).fill for o in outcomes]
    base = alt.Chart(frame).encode(
        y=alt.Y("dimension:N", sort=frame["dimension"].to_list(), title=None),
        tooltip=[
            "dimension:N",
            alt.Tooltip("diff:Q", format="+.4g", title="B - A"),
            alt.Tooltip("ci_low:Q", format="+.4g", title=f"{ci_header(result)} low"),
            alt.Tooltip("ci_high:Q", format="+.4g", title=f"{ci_header(result)} high"),
            alt.Tooltip("p_adj:Q", format=".3g", title="p (adjusted)"),
            "outcome:N",
        ],
    )
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X(
            "scaled_ci_low:Q",
            title="B - A (each row scaled to its largest magnitude)",
            scale=alt.Scale(domain=[-1.05, 1.05]),
        ),
        x2="scaled_ci_high:Q",
        color=alt.Color(
            "outcome:N", scale=alt.Scale(domain=outcomes, range=colours), title="outcome"
        ),
    )
    point = base.mark_point(filled=True, size=70).encode(
        x="scaled_diff:Q", color=alt.Color("outcome:N", scale=alt.Scale(domain=outcomes,
                                                                          range=colours)),
    )  # fmt: skip
    zero = (
        alt.Chart(pl.DataFrame({"x": [0.0]}))
        .mark_rule(color="#444", strokeDash=[4, 3])
        .encode(x="x:Q")
    )
    return alt.layer(zero, interval, point).properties(
        width=420,
        height=max(60, 26 * frame.height),
        title=f"{result.family}: {result.labels[1]} - {result.labels[0]}",
    )


def render_compare_html(result: CompareResult, *, headline_first: bool = True) -> str:
    """The comparison as an HTML fragment: the forest plot (inline SVG, drawn by
    vl-convert: no script, works offline), the table and the notes (without the first
    headline line when ``headline_first`` is false: a page's title says it)."""
    import vl_convert  # vl_convert: off the light paths (HEAVY, tests/test_startup_imports.py)

    chart = compare_chart(result).to_dict() if result.dimensions.height else None
    svg = vl_convert.vegalite_to_svg(chart) if chart is not None else ""
    lines = headline(result) if headline_first else headline(result)[1:]
    head = "".join(f"<p>{text(line)}</p>" for line in lines)
    rows = [
        [
            text(r["dimension"]),
            text(num(r["mean_a"])),
            text(num(r["mean_b"])),
            text(num(r["diff"], sign=True)),
            text(
                f"{num(r['ci_low'], 8, True)} … {num(r['ci_high'], 8, True)}"
                if r["ci_low"] is not None
                else "-"
            ),
            text(p_text(r["p_adj"])),
            text(num(r["effect"], sign=True)),
            text(num(r["noise_floor"])),
            badge(OUTCOME_STATUS.get(r["outcome"], "N/A")).replace(
                text(OUTCOME_STATUS.get(r["outcome"], "N/A")) + "</span>",
                text(r["outcome"]) + "</span>",
            ),
        ]
        for r in result.dimensions.iter_rows(named=True)
    ]
    pct = ci_header(result)
    body = table(
        ["dimension", "mean A", "mean B", "B − A", pct, "p (adj.)", "effect", "noise floor",
         "outcome"],
        rows,
        numeric=frozenset({1, 2, 3, 5, 6, 7}),
    )  # fmt: skip
    extra = [f"<p class='tk-muted'>{text(leg)}</p>" for leg in pass_legend(result)]
    extra.append(f"<p><strong>{text(verdict_line(result))}</strong></p>")
    for f in result.flips.iter_rows(named=True):
        extra.append(
            f"<p>{text(f['dimension'])} (units by majority of runs): {f['both_pass']} both "
            f"pass, {f['pass_to_fail']} pass → fail, {f['fail_to_pass']} fail → pass, "
            f"{f['both_fail']} both fail "
            f"(McNemar p = {text(p_text(f['p']))})</p>"
        )
    for dim in dict.fromkeys(result.pass_k["dimension"].to_list()):
        rows_k = result.pass_k.filter(pl.col("dimension") == dim)
        cells = "; ".join(
            f"{arm}: "
            + ", ".join(
                f"k={k} {pass_k_cell(v, lo, hi)}"
                for k, v, lo, hi in rows_k.filter(pl.col("arm") == arm)
                .select("k", "pass_k", "ci_low", "ci_high")
                .rows()
            )
            for arm in ("A", "B")
            if rows_k.filter(pl.col("arm") == arm).height
        )
        extra.append(f"<p>pass^k of {text(dim)} (tau-bench): {text(cells)}</p>")
    extra += _strata_html(result)
    if result.only_a or result.only_b:
        extra.append(
            f"<p>Unpaired: {len(result.only_a)} only in A ({text(_units(result.only_a))}), "
            f"{len(result.only_b)} only in B ({text(_units(result.only_b))})</p>"
        )
    if result.notes:
        items = "".join(f"<li>{text(n)}</li>" for n in result.notes)
        extra.append(f"<ul class='tk-muted'>{items}</ul>")
    return wrap(
        f"{head}<figure class='tk-forest'>{svg}</figure>{body}{''.join(extra)}",
        "tk-compare",
    )


def _strata_html(result: CompareResult) -> list[str]:
    """The comparison by task property as an HTML table (nothing without one)."""
    strata = result.strata
    if strata is None or strata.is_empty():
        return []
    rows = [
        [
            text(r["value"] if r["by"] == "all" else f"{r['by']} = {r['value']}"),
            text(str(r["tasks"])),
            text(f"{r['pass_a']:.2f}"),
            text(f"{r['pass_b']:.2f}"),
            text(f"{r['diff']:+.2f}"),
            text(f"{r['ci_low']:+.2f} … {r['ci_high']:+.2f}" if r["ci_low"] is not None else "-"),
            text(f"k={r['k']}: {r['pass_k_a']:.2f} / {r['pass_k_b']:.2f}"),
            text("even" if r["ahead"] == "even" else f"{r['ahead']} ahead"),
        ]
        for r in strata.iter_rows(named=True)
    ]
    head = ["tasks by", "tasks", "pass A", "pass B", "B − A", f"{result.level * 100:g}% CI",
            "pass^k A / B", "ahead"]  # fmt: skip
    return [
        "<p>By task property (pass rate of the paired tasks; no test: few tasks each):</p>",
        table(head, rows, numeric=frozenset({1, 2, 3, 4})),
    ]


def render_compare_page(result: CompareResult) -> str:
    """A complete standalone HTML document holding :func:`render_compare_html`."""

    title = f"compare · {result.family}: {result.labels[1]} vs {result.labels[0]}"
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{text(title)}</title></head><body>"
        f"<h1 style='font-family:system-ui,sans-serif;font-size:1.3em'>{text(title)}</h1>"
        f"{render_compare_html(result, headline_first=False)}</body></html>"
    )


def render_plan_text(plan: pl.DataFrame, *, label: str, power: float, alpha: float,
                     test: str, width: int | None = None) -> str:  # fmt: skip
    """``--plan``: pairs per arm for each dimension, with where the spread came from."""
    lines = [
        f"plan · pilot {label}",
        f"pairs per arm for {power * 100:g}% power, two-sided alpha {alpha:g}, "
        f"{TEST_NAMES.get(test, test)}",
        "",
    ]
    names = plan["dimension"].to_list()
    name_w = max([len("dimension"), *(len(n) for n in names)])
    lines.append(f"{'dimension':<{name_w}} {'mde':>8} {'sd diff':>8} {'pairs':>8}  from")
    for r in plan.iter_rows(named=True):
        pairs = str(r["pairs"]) if r["pairs"] is not None else "-"
        source = r["note"] or r["source"]
        lines += wrap_item(
            source, width,
            bullet=f"{r['dimension']:<{name_w}} {num(r['mde'], 8):>8} "
            f"{num(r['sd_diff'], 8):>8} {pairs:>8}  ",
            indent=name_w + 29,
        )  # fmt: skip
    return "\n".join(lines)


def render_pass_k_text(result: Any, *, width: int | None = None) -> str:
    """``toolkit compare --pass-k``: pass^1 .. pass^n of one set of trials, each with its
    bootstrap interval over tasks, then the tasks that never or not always passed."""
    tasks = result.tasks
    pct = f"{result.level * 100:g}% CI"
    lines = [
        f"pass^k · {result.label} · {plural(tasks.height, 'task')}, "
        f"{plural(int(tasks['trials'].sum()), 'trial')} (tau-bench)",
        "",
        f"{'k':>3} {'tasks':>5} {'pass^k':>7}  {pct}",
    ]
    for r in result.table.iter_rows(named=True):
        value = "-" if r["pass_k"] is None else f"{r['pass_k']:.3f}"
        ci = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]" if r["ci_low"] is not None else "-"
        lines.append(f"{r['k']:>3} {r['tasks']:>5} {value:>7}  {ci}")
    never = tasks.filter(pl.col("passes") == 0)["task"].to_list()
    flaky = tasks.filter((pl.col("passes") > 0) & (pl.col("passes") < pl.col("trials")))
    lines.append("")
    if flaky.height:
        shown = tuple(f"{t} {c}/{n}" for t, n, c in flaky.select("task", "trials", "passes").rows())
        lines += wrap_item(_units(shown), width, bullet="not always: ", indent=2)
    if never:
        lines += wrap_item(_units(tuple(never)), width, bullet="never: ", indent=2)
    for note in result.notes:
        lines += wrap_item(note, width)
    lines.append(
        f"(rubric compare {result.version}; {result.resamples} resamples, seed {result.seed})"
    )
    return "\n".join(lines)


def render_pass_k_markdown(result: Any) -> str:
    """``toolkit compare --pass-k --format markdown``: the table for a comment."""
    pct = f"{result.level * 100:g}% CI"
    out = [
        f"### pass^k · `{md(result.label)}`",
        "",
        f"| k | tasks | pass^k | {pct} |",
        "|---:|---:|---:|---|",
    ]
    for r in result.table.iter_rows(named=True):
        value = "–" if r["pass_k"] is None else f"{r['pass_k']:.3f}"
        ci = f"{r['ci_low']:.3f} … {r['ci_high']:.3f}" if r["ci_low"] is not None else "–"
        out.append(f"| {r['k']} | {r['tasks']} | {value} | {ci} |")
    out += [f"\n> {md(n)}" for n in result.notes]
    return "\n".join(out)


def render_estimate_difference_text(result: Any) -> str:
    """``toolkit compare --estimate A B``: per measure, each arm's PPI++ estimate of the
    people's mean (judge on every item, corrected by the arm's ratings) and B - A with an
    interval that carries both judges' errors; beside them the judge-only and
    people-only numbers (:class:`toolkit.rubrics.estimate.Difference`)."""

    def cell(v: float | None, signed: bool = False) -> str:
        return "-" if v is None else (f"{v:+.3f}" if signed else f"{v:.3f}")

    a, b = result.labels
    title = f"B - A on the people's scale: A = {a}, B = {b}"
    if len(title) > 80:  # long paths: each arm on its own line, in an 80-column terminal
        title = f"B - A on the people's scale:\n  A = {a}\n  B = {b}"
    lines = [
        title,
        f"judge {result.judge!r}, PPI++ per arm, {result.confidence:.0%} intervals (the "
        f"arms' variances added)",
        f"pass = score >= {result.threshold:g}",
    ]
    epochs = getattr(result, "epochs", (None, None))
    if any(epochs):
        lines.append(f"epoch: A {epochs[0] or 'not known'}, B {epochs[1] or 'not known'}")
    for note in getattr(result, "notes", ()):
        lines += wrap_item(note, 80, bullet="note: ", indent=4)
    head = ("measure", "arm", "PPI++ estimate", "lam", "judge only", "people only", "rated")
    rows = [head]
    for r in result.frame.iter_rows(named=True):
        diff = r["lam"] is None
        rated = "" if diff else f"{r['rated']}/{r['rated'] + r['unrated']}"
        rows.append((
            r["measure"], "B - A" if diff else ("A" if r["arm"] == a else "B"),
            f"{cell(r['estimate'], diff)} [{cell(r['low'], diff)}, {cell(r['high'], diff)}]",
            "" if diff else f"{r['lam']:.2f}", cell(r["judge_mean"], diff),
            cell(r["people_mean"], diff), rated,
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
              for row in rows]  # fmt: skip
    lines += [
        "judge only: the judges' own means, their bias included; people only: the rated",
        "items' mean; rated: items rated / judged (docs/rubrics/estimate.md)",
    ]
    where: dict[str, list[str]] = {}  # each warning once, with the rows it is about
    for r in result.frame.iter_rows(named=True):
        arm = "B - A" if r["lam"] is None else ("A" if r["arm"] == a else "B")
        for note in (r["note"] or "").split("; "):
            if note:
                where.setdefault(note, []).append(f"{r['measure']} {arm}")
    for note, rows_of in where.items():
        lines += wrap_item(f"{note} ({', '.join(rows_of)})", 80, bullet="warning: ", indent=4)
    return "\n".join(lines)
