"""The engagement instrument is the 2L rubric's, rubric data versioned on its own: a changed
label or question under a published version is refused; a team's own instrument loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.errors import RubricError
from toolkit.io.edge import parse_yaml_text
from toolkit.rubrics.discussion import (
    DEFAULT_DISCUSSION_SPEC,
    DEFAULT_ENGAGEMENT_SCALE,
    load_discussion_spec,
    load_engagement_scale,
)

PACKAGED = Path(__file__).parents[2] / "toolkit" / "rubrics" / "engagement.yaml"


def test_the_default_instrument_is_the_2l_rubrics_scale_questions_and_hint() -> None:
    scale = DEFAULT_DISCUSSION_SPEC.engagement_scale
    assert scale is DEFAULT_ENGAGEMENT_SCALE
    assert scale.version == "2L-1.0.0"
    assert [(lv.score, lv.label) for lv in scale.levels] == [
        (1, "Boring"),
        (2, "Somewhat Interesting"),
        (3, "Acceptable"),
        (4, "Engaging"),
        (5, "Fascinating"),
    ]
    assert all(lv.description for lv in scale.levels)
    texts = [q.text for q in scale.questions]
    assert len(texts) == 5
    for words in ("3 minutes", "who the Mafia are", "agent stand out", "scripted", "another game"):
        assert sum(words in t for t in texts) == 1, words
    assert (scale.hint_min_yes, scale.hint_min_score) == (4, 3)


def test_a_changed_label_under_the_published_version_is_refused() -> None:
    text = PACKAGED.read_text(encoding="utf-8").replace("label: Acceptable", "label: Fine")
    with pytest.raises(RubricError, match=r"differs from published version 2L-1\.0\.0; bump"):
        load_engagement_scale(text, "team.yaml")
    with pytest.raises(RubricError, match="engagement instrument differs"):
        load_discussion_spec({"version": "9.0.0", "engagement_scale": {"hint_min_yes": 3}})


def test_a_team_instrument_with_its_own_version_loads_and_is_checked() -> None:
    text = PACKAGED.read_text(encoding="utf-8").replace("version: 2L-1.0.0", "version: team-1")
    scale = load_engagement_scale(text.replace("hint_min_yes: 4", "hint_min_yes: 3"), "t.yaml")
    assert (scale.version, scale.hint_min_yes) == ("team-1", 3)
    spec = load_discussion_spec(
        {"version": "9.0.0", "engagement_scale": {"version": "team-2", "hint_min_yes": 5}}
    )
    assert spec.engagement_scale.version == "team-2"
    with pytest.raises(RubricError, match="levels must be the scores 1 to 5"):
        load_engagement_scale(text.replace("score: 5", "score: 4"), "t.yaml")
    with pytest.raises(RubricError, match=r"hint_min_yes \(6\) is more than the 5 questions"):
        load_engagement_scale(text.replace("hint_min_yes: 4", "hint_min_yes: 6"), "t.yaml")


def test_the_packaged_instruments_json_twin_holds_the_yaml_files_data() -> None:
    # The package reads engagement.json (no PyYAML on the discussion path, issue 38); the
    # YAML is the file people edit. After editing it, rewrite the twin with
    # json.dumps(parse_yaml_text(text, name), indent=2, ensure_ascii=False).
    from_yaml = parse_yaml_text(PACKAGED.read_text(encoding="utf-8"), str(PACKAGED))
    twin = json.loads(PACKAGED.with_suffix(".json").read_text(encoding="utf-8"))
    assert twin == from_yaml
    assert (
        load_engagement_scale(PACKAGED.read_text(encoding="utf-8"), str(PACKAGED))
        == DEFAULT_ENGAGEMENT_SCALE
    )
