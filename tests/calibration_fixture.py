"""A ``toolkit calibrate --format json`` result for the site's calibration page: written by
the command itself from ``sample_runs/calibration/scores.csv``, then given the optional
fields of the calibration contract (notes, reasoning, evidence, source, anchor) the way a
calibration of rated persona sessions carries them. Some disagreements point at the
sample persona chats (so the page links them), one at a file that is not in the site,
and one carries none of the optional fields (older results)."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from conftest import SAMPLE_RUNS

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
WEEK2 = "sample_runs/persona/radio-week2.jsonl"
HOSTILE = '<img src=x onerror="window.owned=1"><script>window.owned=2</script>'


def calibrate_json() -> dict[str, Any]:
    """What ``toolkit calibrate scores.csv --format json`` prints, as data."""
    from toolkit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["calibrate", str(SCORES), "--format", "json"])
    assert code == 0
    return dict(json.loads(out.getvalue()))


def calibration_result() -> dict[str, Any]:
    """:func:`calibrate_json` with the contract's optional fields added by hand."""
    doc = calibrate_json()
    rows = doc["disagreements"]
    assert len(rows) >= 6
    extra: list[dict[str, Any]] = [
        {"source": WEEK2, "anchor": "s1-s5,s26-s31", "reasoning": "Lenny reads like a memo.",
         "notes": [{"rater": "ana", "note": "still sounds like him to me"},
                   {"rater": "ben", "note": ""}],
         "evidence": "Per my last message, action items are below."},
        {"source": WEEK2, "anchor": "s3", "reasoning": HOSTILE,
         "notes": [{"rater": "chloe", "note": HOSTILE}], "evidence": HOSTILE},
        {"source": "sample_runs/persona/radio-week1.jsonl", "anchor": "no-such-anchor",
         "reasoning": "in voice throughout", "notes": [], "evidence": ""},
        {"source": "elsewhere/not-in-this-site.jsonl", "anchor": "s4",
         "reasoning": "a chat this site does not hold", "notes": None, "evidence": None},
        {"source": WEEK2, "anchor": None, "reasoning": None, "notes": None,
         "evidence": "the whole chat"},
    ]  # fmt: skip
    for row, fields in zip(rows, extra, strict=False):
        row.update(fields)
    # The agents of the scores are not the chat's: name the chat's agents in the linked
    # rows, as a calibration of rated persona sessions would.
    rows[0]["agent"] = "Lenny"
    # Every human's score as a list (a newer result carries it beside the scores text).
    rows[0]["ratings"] = [{"rater": "ana", "score": 5}, {"rater": "ben", "score": 4}]
    rows[1]["agent"] = "Lenny"
    rows[4]["agent"] = "Mags"
    return doc
