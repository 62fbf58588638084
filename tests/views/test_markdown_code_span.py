"""``code_span``: text shown exactly inside backticks (CommonMark §6.1: no entity is
decoded and no HTML taken inside a code span; the fence is a run of backticks the text
does not hold; one space is stripped from each side when the content has both)."""

from __future__ import annotations

import pytest

from toolkit.views.markdown import code_span


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("runs/a<b>&c", "`runs/a<b>&c`"),  # not &lt; (shown literally in a code span)
        ("x|y", "`x|y`"),  # a heading, not a table cell: the pipe stays
        ("a`b", "``a`b``"),
        ("a``b`c", "```a``b`c```"),
        ("`a", "`` `a ``"),  # starts with a backtick: padded, the space stripped on show
        ("a`", "`` a` ``"),
        ("two\nlines", "`two lines`"),
        ("", "` `"),
    ],
)
def test_a_code_span_holds_the_text_itself(text: str, span: str) -> None:
    assert code_span(text) == span
