"""Chart pieces every rubric's charts share: threshold lines drawn in the palette's colours.

A threshold line is a dashed rule at a rubric's edge (OK at or above 0.95, FAIL below 0.85,
the 3.0 pass mark) with its words written beside it, in the status's colour on a white
page (:attr:`toolkit.views.palette.Swatch.on_white`, contrast checked), so a reader sees
where a value stops being OK without reading the rubric page. Altair is imported when a
chart is drawn; a status scale (:func:`status_scale`) colours and shapes marks by status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from toolkit.views.palette import STATUS_ORDER, swatch

if TYPE_CHECKING:
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

#: How a threshold rule is dashed (a data line is solid).
DASH = [5, 3]


def status_scale(channel: str = "fill", statuses: list[str] | None = None) -> alt.Scale:
    """The palette as an Altair scale over ``statuses`` (default OK, WARN, FAIL, N/A):
    ``channel`` ``"fill"`` (colour of a mark), ``"text"`` (text drawn on that fill) or
    ``"shape"`` (point shape, so no status is told by colour alone)."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    domain = statuses or list(STATUS_ORDER)
    return alt.Scale(domain=domain, range=[getattr(swatch(s), channel) for s in domain])


def threshold_lines(
    lines: pl.DataFrame,
    *,
    axis: Literal["x", "y"] = "y",
    where: Any = None,
    label: bool = True,
) -> list[alt.Chart]:
    """Dashed rules at threshold values, each labelled, one layer per status colour.

    Args:
        lines: columns value (the threshold on the chart's ``axis``), status (a palette
            status word: its colour), label (the words written beside the rule).
        axis: ``"y"`` for horizontal rules across a series chart, ``"x"`` for vertical
            rules across a distribution or bar chart.
        where: an Altair predicate (e.g. a selection) the rules are filtered by.
        label: write each rule's label beside it (right of the plot for a horizontal
            rule, where no data is drawn; at the top for a vertical one).

    Returns:
        Layers to add to a :func:`altair.layer` (rules first, then their labels).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    layers: list[alt.Chart] = []
    for status in lines["status"].unique(maintain_order=True).to_list():
        colour = swatch(status).on_white
        base = alt.Chart(lines.filter(pl.col("status") == status))
        if where is not None:
            base = base.transform_filter(where)
        position = (
            {"y": alt.Y("value:Q")} if axis == "y" else {"x": alt.X("value:Q")}
        )  # the chart's own scale: a line at 0.95 sits where a value of 0.95 is drawn
        rule = base.mark_rule(color=colour, strokeDash=DASH, strokeWidth=1.5).encode(
            **position, tooltip=[alt.Tooltip("label:N", title="threshold")]
        )
        layers.append(rule)
        if label:
            if axis == "y":
                text = base.mark_text(
                    align="left", baseline="middle", dx=4, fontSize=10, color=colour
                ).encode(y=alt.Y("value:Q"), x={"value": {"expr": "width"}}, text="label:N")
            else:
                text = base.mark_text(
                    align="left", baseline="top", dx=3, fontSize=10, color=colour
                ).encode(x=alt.X("value:Q"), y=alt.value(0), text="label:N")
            layers.append(text)
    return layers
