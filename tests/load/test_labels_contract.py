"""The labels file as dot-agents' review server writes it, read here as its scorer reads it.

The fixture is written by hand from dot-agents' Go types (internal/review/labels:
``Sidecar{iteration, schema_version, labels}``, ``Label{id, iteration, actor, role,
admin_override (omitempty), schema_version, created_at, updated_at, history}``,
``Edit{actor, role, timestamp, structured, free_text (omitempty)}``,
``Structured{correctness, scope_judgement, hallucination}``) as yaml.v3 marshals them:
``LabelSchemaVersion`` "1.0.0" unquoted, ``time.Time`` as unquoted RFC 3339, ``false`` and
empty strings left out. The expected numbers are worked by hand from
internal/scoring/signal_human_label.go (the last edit of each label; the latest label per
actor; the mean of correctness/3, scope and hallucination).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from toolkit import (
    collect_outcome_evidence,
    load_iteration_log,
    load_outcome_rubric,
    score_outcome,
)

ITERATION = """\
schema_version: 2
iteration: 4
date: "2026-06-02"
wave: plan-7
task_id: t-12
verifiers:
  - type: unit
    status: pass
"""

#: As labels.WriteSidecar writes it after one Add by ana, one EditLabel by ana and one Add
#: by ben (ids from crypto/rand, 32 hex characters).
LABELS = """\
iteration: 4
schema_version: 1.0.0
labels:
    - id: 5f0c9e2ab7d14c3e8a61f0b2c4d6e8a1
      iteration: 4
      actor: ana@example.org
      role: reviewer
      schema_version: 1.0.0
      created_at: 2026-06-02T09:15:00Z
      updated_at: 2026-06-02T11:40:30.25Z
      history:
        - actor: ana@example.org
          role: reviewer
          timestamp: 2026-06-02T09:15:00Z
          structured:
            correctness: 3
            scope_judgement: on-target
            hallucination: none
        - actor: ana@example.org
          role: reviewer
          timestamp: 2026-06-02T11:40:30.25Z
          structured:
            correctness: 2
            scope_judgement: partial
            hallucination: minor
          free_text: the retry loop is still untested
    - id: 0a1b2c3d4e5f60718293a4b5c6d7e8f9
      iteration: 4
      actor: ben@example.org
      role: reviewer
      schema_version: 1.0.0
      created_at: 2026-06-02T10:00:00Z
      updated_at: 2026-06-02T10:00:00Z
      history:
        - actor: ben@example.org
          role: reviewer
          timestamp: 2026-06-02T10:00:00Z
          structured:
            correctness: 1
            scope_judgement: breach
            hallucination: none
"""


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    (tmp_path / "iter-4.yaml").write_text(ITERATION, encoding="utf-8")
    (tmp_path / "iter-4.labels.yaml").write_text(LABELS, encoding="utf-8")
    return tmp_path


def test_the_review_servers_file_is_read_field_for_field(log_dir: Path) -> None:
    log = load_iteration_log(log_dir)
    assert not [i for i in log.issues.iter_rows(named=True) if "labels" in i["path"]]
    rows = log.labels.sort("position").select(
        "label_id", "actor", "role", "admin_override", "edits",
        "correctness", "scope_judgement", "hallucination", "free_text",
    ).rows()  # fmt: skip
    assert rows == [
        ("5f0c9e2ab7d14c3e8a61f0b2c4d6e8a1", "ana@example.org", "reviewer", False, 2,
         2, "partial", "minor", "the retry loop is still untested"),
        ("0a1b2c3d4e5f60718293a4b5c6d7e8f9", "ben@example.org", "reviewer", False, 1,
         1, "breach", "none", None),
    ]  # fmt: skip
    updated = log.labels.sort("position")["updated_at"].to_list()
    assert [t.isoformat() for t in updated] == [
        "2026-06-02T11:40:30.250000+00:00",
        "2026-06-02T10:00:00+00:00",
    ]


def test_human_label_is_the_scorers_number(log_dir: Path) -> None:
    log = load_iteration_log(log_dir)
    result = score_outcome(
        log, collect_outcome_evidence(log), load_outcome_rubric("dot-agents-3.0.0")
    )
    row = result.breakdown.filter(pl.col("signal") == "human_label").row(0, named=True)
    # ana's last edit: (2/3 + 0.5 + 0.5) / 3 = 5/9; ben: (1/3 + 0 + 1) / 3 = 4/9; mean 1/2
    assert row["present"] is True
    assert row["sub_score"] == pytest.approx(0.5)


def test_an_actor_is_kept_as_written_so_a_spaced_name_is_another_reviewer(
    tmp_path: Path,
) -> None:
    """dot-agents keeps ``actor`` as yaml.v3 reads it (a quoted ``" ana@example.org"``
    keeps its space; only a blank one is refused) and keeps the latest label per actor
    by exact string (internal/scoring/signal_human_label.go ``latestLabelPerActor``): two
    labels whose actors differ by a space are two reviewers, both counted. The reader
    trimmed actors, so the earlier label was dropped as replaced by the later."""
    spaced = LABELS.replace("actor: ben@example.org", 'actor: " ana@example.org"')
    (tmp_path / "iter-4.yaml").write_text(ITERATION, encoding="utf-8")
    (tmp_path / "iter-4.labels.yaml").write_text(spaced, encoding="utf-8")
    log = load_iteration_log(tmp_path)
    actors = log.labels.sort("position").select("actor", "edited_by").rows()
    assert actors == [("ana@example.org", "ana@example.org"),
                      (" ana@example.org", " ana@example.org")]  # fmt: skip
    result = score_outcome(
        log, collect_outcome_evidence(log), load_outcome_rubric("dot-agents-3.0.0")
    )
    row = result.breakdown.filter(pl.col("signal") == "human_label").row(0, named=True)
    # both count, as in test_human_label_is_the_scorers_number: (5/9 + 4/9) / 2 = 1/2
    # (trimmed: one actor, the later label alone, ana's at 11:40: 5/9)
    assert row["sub_score"] == pytest.approx(0.5)
