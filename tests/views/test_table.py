"""The one table renderer (great_tables): what a reader sees instead of a Polars repr."""

from __future__ import annotations

import re
import subprocess
import sys

import polars as pl

import toolkit as tk
from toolkit.views.palette import swatch
from toolkit.views.table import MISSING, prose_columns, show_table, status_columns

FRAME = pl.DataFrame(
    {
        "dimension": ["role_consistency", "ideas_quantity", "cost"],
        "value": [0.6666667, None, 12.5],
        "status": ["OK", "FAIL", "REGRESSION"],
        "turns": [3, 10, 1234],
        "reason": [
            "The speaker kept to the merchant's voice through every turn of the game, twice.",
            None,
            "<b>cost</b> $3.42",
        ],
        "tags": [["a", "b"], [], None],
        "flagged": [True, False, None],
    }
)


def _cells(html: str, column: str) -> list[str]:
    """The text of every body cell of ``column`` (great_tables names it in ``headers``)."""
    return re.findall(rf'<td[^>]*headers="[^"]*-{column}"[^>]*>(.*?)</td>', html)


def _cell_tags(html: str, column: str) -> list[str]:
    return re.findall(rf'<td[^>]*headers="[^"]*-{column}"[^>]*>', html)


def test_no_polars_repr_in_the_table() -> None:
    html = show_table(FRAME).html
    assert "shape:" not in html
    assert "f64" not in html and "str" not in _cells(html, "value")  # no dtype row
    assert "null" not in html
    assert "&quot;OK&quot;" not in html and '"OK"' not in html  # strings are not quoted


def test_numbers_are_formatted_and_missing_values_are_a_dash() -> None:
    html = show_table(FRAME).html
    assert _cells(html, "value") == ["0.667", MISSING, "12.500"]
    assert _cells(html, "turns") == ["3", "10", "1234"]
    assert show_table(FRAME, decimals=1).html.count("0.7") >= 1


def test_text_is_left_aligned_numbers_right_aligned() -> None:
    html = show_table(FRAME).html
    assert all("gt_left" in tag for tag in _cell_tags(html, "dimension"))
    assert all("gt_right" in tag for tag in _cell_tags(html, "value"))


def test_prose_wraps_in_a_wide_column_and_is_escaped() -> None:
    assert prose_columns(FRAME) == ["reason"]
    html = show_table(FRAME).html
    assert all("white-space: normal" in tag for tag in _cell_tags(html, "reason"))
    # short text (ids, words) never breaks across lines: only prose wraps
    assert all("white-space: nowrap" in tag for tag in _cell_tags(html, "dimension"))
    assert "&lt;b&gt;cost&lt;/b&gt;" in html and "<b>cost</b>" not in html
    assert "mathjax_ignore" in html  # "$3.42" is not typeset as maths


def test_status_cells_are_filled_from_the_palette_with_their_symbol() -> None:
    assert status_columns(FRAME) == ["status"]
    html = show_table(FRAME).html
    tags, cells = _cell_tags(html, "status"), _cells(html, "status")
    for status, tag, cell in zip(["OK", "FAIL", "REGRESSION"], tags, cells, strict=True):
        s = swatch(status)
        assert f"background-color: {s.fill}" in tag and f"color: {s.text}" in tag
        assert cell == f"{s.symbol} {status}"


def test_lists_booleans_and_headers_read_as_text() -> None:
    html = show_table(FRAME).html
    assert _cells(html, "tags") == ["a, b", "", MISSING]
    assert _cells(html, "flagged") == ["yes", "no", MISSING]
    headers = re.findall(r"<th[^>]*>(.*?)</th>", html)
    assert headers == ["dimension", "value", "status", "turns", "reason", "tags", "flagged"]
    assert ">role_consistency<" in html  # values keep their text
    spaced = show_table(FRAME.rename({"turns": "total_turns"})).html
    assert "total turns" in re.findall(r"<th[^>]*>(.*?)</th>", spaced)
    labelled = show_table(FRAME, labels={"value": "Score"}).html
    assert re.search(r"<th[^>]*>Score</th>", labelled)


def test_long_frames_are_cut_with_a_note_and_the_id_is_stable() -> None:
    long = pl.DataFrame({"x": list(range(80))})
    table = show_table(long, max_rows=10)
    assert len(_cells(table.html, "x")) == 10
    assert "First 10 of 80 rows." in table.html
    assert repr(table) == "<table: 10 of 80 rows; x>"
    assert show_table(long, max_rows=10).html == table.html  # no random id: stored notebooks
    assert "No rows." in show_table(long.head(0)).html


def test_public_name_and_notebook_output() -> None:
    table = tk.show_table(FRAME)
    assert isinstance(table, tk.Table)
    assert table._repr_html_() == table.html


def test_import_toolkit_does_not_import_great_tables() -> None:
    code = "import sys, toolkit, toolkit.views.table; print('great_tables' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _declarations(style_attr: str) -> dict[str, str]:
    """A style attribute as a browser parses it: a declaration whose value holds a second
    ``name:`` (two declarations run together without ``;``) is invalid and dropped."""
    kept: dict[str, str] = {}
    for part in style_attr.split(";"):
        if not part.strip():
            continue
        name, _, value = part.partition(":")
        if ":" in value:  # "nowrap background-color: #1b5e20": the browser drops it whole
            continue
        kept[name.strip()] = value.strip()
    return kept


def test_status_fill_survives_beside_the_short_text_style() -> None:
    """A short text column is styled ``white-space: nowrap``; great_tables appends the
    status fill to the same attribute, so a missing ``;`` made the browser drop the fill and
    left white text on white ("poor" as a blank cell)."""
    frame = pl.DataFrame({"iteration": ["iter-1", "iter-2"], "band": ["excellent", "poor"]})
    html = show_table(frame).html
    styles = [re.search(r'style="([^"]*)"', tag).group(1) for tag in _cell_tags(html, "band")]  # type: ignore[union-attr]
    assert len(styles) == 2
    for value, style_attr in zip(["excellent", "poor"], styles, strict=True):
        declared = _declarations(style_attr)
        assert declared.get("white-space") == "nowrap"
        assert declared.get("background-color") == swatch(value).fill
        assert declared.get("color") == swatch(value).text
