"""``toolkit.ratings.store.rows``: a draft of a ``drafts`` export, checked field by field."""

from __future__ import annotations

import pytest

from toolkit.errors import InputError
from toolkit.ratings.store.rows import draft_row

DRAFT = {"kind": "game", "rater": "ana", "id": "g1", "score": "3", "answers": "{}",
         "notes": "", "text_sha256": None, "updated_at": "2026-11-27T10:00:00Z"}  # fmt: skip


def test_a_whole_number_score_given_as_text_is_read() -> None:
    assert draft_row("drafts.csv", DRAFT, 2)[3] == 3


@pytest.mark.parametrize("score", ["\u00b2", "-\u00b2", "\u0663"])
def test_a_non_ascii_digit_score_is_one_line_not_a_traceback(score: str) -> None:
    """ "²" passes str.isdigit but int() refuses it (a ValueError escaped); Arabic-Indic
    "٣" int() reads as 3: neither is a score as the export writes it."""
    with pytest.raises(InputError, match="score must be a whole number"):
        draft_row("drafts.csv", {**DRAFT, "score": score}, 2)


@pytest.mark.parametrize("answers", ["[" * 100_000 + "]" * 100_000, "1" * 5_000])
def test_answers_too_deep_or_an_over_long_integer_are_one_line(answers: str) -> None:
    """json.loads raised RecursionError (too deep) or ValueError (an integer of more
    than 4,300 digits), neither a JSONDecodeError: a traceback, not the field named."""
    with pytest.raises(InputError, match="answers must be a JSON object"):
        draft_row("drafts.csv", {**DRAFT, "answers": answers}, 2)
