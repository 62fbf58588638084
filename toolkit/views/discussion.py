"""Views of the discussion rubric: the CLI's JSON and table, evidence tables, charts."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.epoch import epochs_of
from toolkit.scorecard import Scorecard
from toolkit.views.text import format_value, name_lines, paint, render_text, text_columns, wrap_item

if TYPE_CHECKING:
    import altair as alt

    # (names for annotations: the comparison and success modules, ~2 ms of CPU, are
    # imported only by a run that compares, issue 38)
    from toolkit.rubrics.discussion import (
        Comparison,
        DiscussionReport,
        JudgedDiscussion,
        SuccessCheck,
    )

__all__ = [
    "advice_lines",
    "comparison_chart",
    "discussion_json",
    "evidence_table",
    "game_document",
    "judge_lines",
    "render_discussion_json",
    "render_discussion_text",
    "repeated_phrases",
    "similarity_heatmap",
]


def _game_dict(card: Scorecard, judged: JudgedDiscussion | None = None) -> dict[str, Any]:
    """One game's entry; with a judge, its readings are metric entries marked
    ``"source": "judge"`` (key ``<metric>_judge``), and ``engagement_source`` and
    ``judge`` (every item's value and reasoning) are added."""
    thresholds = card.meta.get("thresholds", {})
    judge_keys = set(card.meta.get("informational", ())) if "judge" in card.meta else set()
    metrics: list[dict[str, Any]] = []
    for row in card.dimensions.iter_rows(named=True):
        key = row["dimension"]
        judge_row = key in judge_keys
        base = key.removesuffix("_judge") if judge_row else key
        entry: dict[str, Any] = {
            "key": key,
            "name": row["name"],
            "score": row["value"],
            "threshold": thresholds.get(base),
            "passed": row["status"] == "PASS",
            "detail": row["detail"],
        }
        if judge_row:
            entry["source"] = "judge"
        metrics.append(entry)
    out: dict[str, Any] = {
        "game_id": card.subject,
        "verdict": card.verdict,
        "reasons": list(card.meta.get("reasons", [])),
        "passed_count": card.meta.get("passed_count"),
        "cost": card.meta.get("cost"),
        "metrics": metrics,
    }
    # the measurement epoch and what the game was scored from (toolkit.epoch)
    for key in ("epoch", "input_digest"):
        if card.meta.get(key):
            out[key] = card.meta[key]
    if "judge" in card.meta:
        out["engagement_source"] = card.meta.get("engagement_source")
        out["judge"] = (
            judged.to_dict(card.subject)
            if judged is not None
            else {"judge": card.meta["judge"], "judge_rubric_version": card.meta.get(
                "judge_rubric_version")}
        )  # fmt: skip
    return out


def game_document(card: Scorecard, rubric_version: str) -> dict[str, Any]:
    """One game's scorecard as a JSON document of its own (what ``--write`` saves).

    Shape: ``{"rubric": "discussion", "rubric_version", "source_file", "game_id",
    "verdict", "reasons", "passed_count", "cost", "metrics": [...]}``, the metrics as in
    :func:`discussion_json`.
    """
    return {
        "rubric": "discussion",
        "rubric_version": rubric_version,
        "source_file": card.meta.get("source_file"),
        **_game_dict(card),
    }


def advice_lines(report: DiscussionReport, card: Scorecard) -> list[str]:
    """One line per failed metric of ``card``: the metric's name, the rubric's advice and
    the troubleshooting guide's fixes to try.

    Only metrics whose status is FAIL get a line (N/A and PENDING have no evidence to act
    on); the text is rubric data (``DiscussionSpec.metrics[key].advice`` and ``.fixes``).
    """
    metrics = report.spec.metrics
    return [
        f"Advice: {row['name']}: {metrics[row['dimension']].guidance}"
        for row in card.dimensions.iter_rows(named=True)
        if row["status"] == "FAIL" and row["dimension"] in metrics
    ]


def discussion_json(
    report: DiscussionReport,
    comparison: Comparison | None = None,
    success: SuccessCheck | None = None,
) -> dict[str, Any]:
    """The CLI's JSON document.

    Shape: ``{"rubric", "rubric_version", "epoch", "games": [{"game_id", "verdict",
    "reasons", "passed_count", "cost", "metrics": [{"key", "name", "score", "threshold",
    "passed", "detail"}], "epoch", "input_digest"}], "comparison": null | {...comparison,
    "success": {...}}}``: ``epoch`` is the measurement epoch (:mod:`toolkit.epoch`; the
    games' epochs joined by commas if they differ), each game's ``input_digest`` what it
    was scored from.

    With a judge (``report.judged``) each game also has ``engagement_source``
    (``humans``, ``judge`` or null) and ``judge`` (``judge``, ``judge_rubric``,
    ``judge_rubric_version``, ``readings``, ``items`` with each answer's ``value`` and
    ``reasoning``); its judged readings are metric entries with ``"source": "judge"``;
    the document ends with ``judge``: ``{"judge", "judge_rubric_version",
    "engagement", "usage"}`` (``engagement``: ``humans`` or ``judge``, what filled a
    missing rating).
    """
    comp: dict[str, Any] | None = None
    if comparison is not None:
        comp = comparison.to_dict()
        if success is not None:
            comp["success"] = success.to_dict()
    judged = report.judged
    doc: dict[str, Any] = {
        "rubric": report.spec.rubric,
        "rubric_version": report.spec.version,
        "epoch": ",".join(epochs_of(report.scorecards)) or None,
        "games": [_game_dict(c, judged) for c in report.scorecards],
        "comparison": comp,
    }
    if judged is not None:
        doc["judge"] = {
            "judge": judged.judge,
            "judge_rubric": judged.spec.rubric,
            "judge_rubric_version": judged.spec.version,
            "engagement": report.engagement_source,
            "usage": None if judged.usage is None else judged.usage.to_dict(),
        }
    return doc


def render_discussion_json(
    report: DiscussionReport,
    comparison: Comparison | None = None,
    success: SuccessCheck | None = None,
) -> str:
    """:func:`discussion_json` as indented JSON text."""
    return json.dumps(discussion_json(report, comparison, success), indent=2)


def render_discussion_text(
    report: DiscussionReport,
    comparison: Comparison | None = None,
    success: SuccessCheck | None = None,
    *,
    width: int | None = None,
    colour: bool = False,
) -> str:
    """Every game's scorecard as text, a one-line-per-game summary, then the comparison.

    With a single game, the text ends with one advice line per failed metric
    (:func:`advice_lines`). Each metric's line shows the threshold it is held to
    (``min 0.60``) between its value and its detail. ``width`` and ``colour`` are those of
    :func:`~toolkit.views.text.render_text` (a terminal's, from
    :func:`~toolkit.views.text.terminal_style`); without a width nothing is wrapped.
    """
    blocks = [render_text(c, width=width, colour=colour, held_to=True) for c in report.scorecards]
    epochs = ", ".join(epochs_of(report.scorecards))
    at = f" (epoch {epochs})" if epochs else ""
    summary = [f"Rubric discussion {report.spec.version}{at}: {len(report.scorecards)} game(s)"]
    for c in report.scorecards:
        line = f"  {c.verdict:<15}{c.meta.get('passed_count')}/7  {c.subject}"
        by = "  (engagement by the judge)" if c.meta.get("engagement_source") == "judge" else ""
        if width is not None and text_columns(line + by) > width:  # a long game id: its own line
            line = f"  {c.verdict:<15}{c.meta.get('passed_count')}/7{by}\n" + "\n".join(
                name_lines("    ", c.subject, width)  # broken past the width, never cut
            )
        else:
            line += by
        summary.append(line.replace(c.verdict, paint(c.verdict, c.verdict, colour), 1))
    blocks.append("\n".join(summary))
    if report.judged is not None:
        blocks.append("\n".join(judge_lines(report, width)))
    if comparison is not None:
        lines = ["Baseline vs candidate"]
        lines.append(f"  {'metric':<24}{'baseline':>9}{'candidate':>10}{'delta':>8}")
        for row in comparison.metrics.iter_rows(named=True):
            delta = row["delta"]
            lines.append(
                f"  {row['name']:<24}{format_value(row['baseline_mean']):>9}"
                f"{format_value(row['candidate_mean']):>10}"
                f"{('-' if delta is None else f'{delta:+.3f}'):>8}"
            )
        said = []
        if comparison.lowest is not None:
            said.append(f"Weakest: {comparison.lowest_name}: {comparison.advice}")
        said.append(f"Recommendation: {comparison.recommendation} ({comparison.reason})")
        said.extend(f"Warning: {w}" for w in comparison.warnings)
        if success is not None:
            said.append(f"Success check: {'met' if success.met else 'not met'} ({success.reason})")
            said.append(f"Next iteration: {success.proceed_reason}")
        for text in said:
            lines.extend(wrap_item(text, width, bullet="  "))
        blocks.append("\n".join(lines))
    if len(report.scorecards) == 1:
        advice = advice_lines(report, report.scorecards[0])
        if advice:
            blocks.append(
                "\n".join(line for text in advice for line in wrap_item(text, width, bullet=""))
            )
    return "\n\n".join(blocks)


def judge_lines(report: DiscussionReport, width: int | None = None) -> list[str]:
    """What the text says about the judge: who it is, that its rows are readings beside
    the metrics and never decide, and how many games took its engagement
    (``--engagement judge``)."""
    judged = report.judged
    if judged is None:
        return []
    by_judge = [c.subject for c in report.scorecards if c.meta.get("engagement_source") == "judge"]
    said = [
        f"Judge: {judged.judge}, questions {judged.spec.rubric} {judged.spec.version}.",
        "Rows marked (judge) are the judge's readings, shown beside the keyword and "
        "human readings; they never decide a verdict.",
    ]
    if report.engagement_source == "judge":
        said.append(
            f"--engagement judge: {len(by_judge)} game(s) without a human rating take the "
            "judge's engagement" + (f" ({', '.join(by_judge)})" if by_judge else "") + "."
        )
    else:
        said.append(
            "Engagement stays people's: a game without a rating is PENDING_RATING "
            "(--engagement judge lets the judge's reading stand in, stamped)."
        )
    said.extend(judged.warnings)
    return [line for text in said for line in wrap_item(text, width, bullet="", indent=2)]


def evidence_table(report: DiscussionReport, game_id: str) -> pl.DataFrame:
    """One game's message-level evidence: turn, speaker, role, strategic (and keywords),
    coherent (and why), role_break (and why), text."""
    return report.evidence.messages.filter(pl.col("game_id") == game_id).select(
        "turn",
        "speaker",
        "role",
        "strategic",
        pl.col("strategic_keywords").list.join(", ").alias("keywords"),
        "coherent",
        "coherence_reason",
        "role_break",
        "role_break_reason",
        "text",
    )


def repeated_phrases(report: DiscussionReport, game_id: str, top: int = 10) -> pl.DataFrame:
    """One game's most repeated phrases: speaker, phrase, uses, repeats, turns."""
    return (
        report.evidence.phrases.filter((pl.col("game_id") == game_id) & (pl.col("repeats") > 0))
        .sort(["repeats", "speaker", "phrase"], descending=[True, False, False])
        .head(top)
        .select("speaker", "phrase", "uses", "repeats", "turns")
    )


def similarity_heatmap(report: DiscussionReport, game_id: str) -> alt.LayerChart:
    """Speaker-by-speaker text similarity of one game, the threshold marked in the title."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    thr = report.spec.similarity_threshold
    data = report.evidence.similarity.filter(pl.col("game_id") == game_id).select(
        "speaker", "other", pl.col("similarity").round(3)
    )
    base = alt.Chart(data).encode(
        x=alt.X("speaker:N", title=None),
        y=alt.Y("other:N", title=None),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "similarity:Q", scale=alt.Scale(domain=[0, 1], scheme="orangered"), title="similarity"
        ),
        tooltip=["speaker:N", "other:N", "similarity:Q"],
    )
    labels = base.mark_text(fontSize=9).encode(
        text=alt.Text("similarity:Q", format=".2f"),
        color=alt.condition(alt.datum.similarity >= thr, alt.value("white"), alt.value("black")),
    )
    chart: alt.LayerChart = (cells + labels).properties(
        title=f"Speaker similarity (unique when every pair < {thr:.2f})", width=320, height=320
    )
    return chart


def comparison_chart(comparison: Comparison) -> alt.LayerChart:
    """Baseline vs candidate mean per metric, relative to each metric's threshold (1.0),
    with the threshold dashed and labelled."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    # the chart helpers and their palette (~2 ms of CPU): only when a chart is drawn
    from toolkit.views.charts import threshold_lines

    long = comparison.metrics.unpivot(
        index=["key", "name", "threshold"],
        on=["baseline_mean", "candidate_mean"],
        variable_name="set",
        value_name="mean",
    ).with_columns(
        pl.col("set").str.replace("_mean", ""),
        (pl.col("mean") / pl.col("threshold")).round(3).alias("relative"),
    )
    bars = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("name:N", title=None, sort=None, axis=alt.Axis(labelAngle=-30)),
            xOffset=alt.XOffset("set:N"),
            y=alt.Y("relative:Q", title="mean / threshold (1 = the threshold)"),
            color=alt.Color("set:N", title=None),
            tooltip=["name:N", "set:N", "mean:Q", "threshold:Q"],
        )
    )
    mark = pl.DataFrame({"value": [1.0], "status": ["PASS"], "label": ["threshold"]})
    chart: alt.LayerChart = alt.LayerChart(
        layer=[bars, *threshold_lines(mark)],
        title=f"Baseline vs candidate (recommendation: {comparison.recommendation})",
        width=480,
        height=240,
    )
    return chart
