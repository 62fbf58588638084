"""Hostile words in a calibration's scores file (issue 27): a judge's reasoning, a
rater's note, the evidence, its source and anchor are read and shown four ways (text,
JSON, Markdown, HTML page). Each holds the loaders' contract: a result or one
``InputError`` line, never another exception; and what a person sees never carries a
control character to the terminal nor a live element made from the input."""

from __future__ import annotations

import json
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.load.calibration import load_calibration_scores
from toolkit.rubrics.calibrate import calibrate
from toolkit.views.calibration import render_calibration_markdown, render_calibration_table
from toolkit.views.calibration_page import render_calibration_page

pytestmark = pytest.mark.timeout(600)

_NASTY = st.sampled_from(
    ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "javascript:alert(3)",
     "[a](javascript:x)", "|", "`", "&amp;", "\x1b[2J", "\x1b]0;t\x07", "\x00", "\r", "\n",
     "\u202e", "😀", "$x$", "'", '"', "#", "%2F", "../", "data:text/html,x", " " * 3]
)  # fmt: skip
TEXT = st.lists(st.one_of(_NASTY, st.text(max_size=6)), max_size=6).map("".join)
COLUMNS = ("reasoning", "notes", "evidence", "source", "anchor")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


@given(words=st.fixed_dictionaries({c: TEXT for c in COLUMNS}))
def test_hostile_words_are_read_or_refused_and_shown_inert(words: dict[str, str]) -> None:
    rows = []
    for item, base in (("a", 1), ("b", 4), ("c", 6)):
        for rater, shift in (("ana", 0), ("ben", 1), ("judge", 2)):
            row = {"item": item, "rater": rater, "score": base + shift}
            row.update({k: v for k, v in words.items() if k not in ("reasoning", "notes")})
            row["reasoning" if rater == "judge" else "notes"] = (
                words["reasoning"] if rater == "judge" else words["notes"]
            )
            rows.append(row)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        path.write_text(json.dumps(rows), encoding="utf-8")
        try:
            result = calibrate(load_calibration_scores(path))
        except InputError as exc:
            assert "\n" not in str(exc)
            return
        text = render_calibration_table(result, "s.json", 3, None, [])
        words_part = text.split("disagreements, by")[1]
        assert all(c.isprintable() for line in words_part.splitlines() for c in line)
        assert max(len(line) for line in words_part.splitlines()) <= 80
        json.dumps(result.to_dict())
        md = render_calibration_markdown(result, "s.json", 3, None, [])
        side = md.split("side by side")[1] if "side by side" in md else ""
        assert "<script" not in side and "<img" not in side
        page = render_calibration_page(result, "s.json", top=3, base=Path(folder))
        parser = _Tags()
        parser.feed(page)
        for tag, attrs in parser.tags:
            assert tag not in {"script", "img", "iframe", "object", "embed"}
            assert not [k for k in attrs if k.lower().startswith("on")]
            href = (attrs.get("href") or "").lower()
            assert not href.startswith(("javascript:", "data:", "vbscript:"))
