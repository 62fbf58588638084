"""``toolkit discussion --rubric``: a regex field the scorer cannot run is refused when the
rubric is read (one line: file, field with index, value, the engine's reason; exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit.rubrics.discussion.patterns as patterns_module
from toolkit.cli import main
from toolkit.errors import RubricError
from toolkit.rubrics.discussion._values import PUBLISHED_DATA
from toolkit.rubrics.discussion.patterns import refused_pattern
from toolkit.rubrics.discussion.spec import DiscussionSpec, load_discussion_spec

#: The discussion rubric's regex fields (every other list is read as literal words).
REGEX_FIELDS = [
    ("memory", "reference_patterns"),
    ("role", "no_reason"),
    ("role", "general_statements"),
]

#: Patterns Rust's regex crate refuses, and the words of its reason (from its messages).
BAD = [
    ("(abc", "unclosed group"),
    ("a{2,1}", "invalid repetition count range"),
    # valid in Python's re, not in Polars' engine
    ("(?<=we )know", "look-around"),
]


def _rubric(tmp_path: Path, part: str, field: str, values: list[str]) -> Path:
    path = tmp_path / "team.yaml"
    # JSON is YAML: the patterns written with their backslashes as they are
    path.write_text(json.dumps({"version": "1.2.0-team", part: {field: values}}))
    return path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["discussion", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("part", "field"), REGEX_FIELDS)
@pytest.mark.parametrize(("bad", "reason"), BAD)
def test_a_pattern_the_engine_refuses_exits_2_with_one_line(
    part: str,
    field: str,
    bad: str,
    reason: str,
    sample_runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rubric = _rubric(tmp_path, part, field, [r"\bfine\b", bad])
    code, out, err = _run([str(sample_runs / "discussions"), "--rubric", str(rubric)], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{rubric}: {part}.{field}.1={bad!r}: " in err
    assert reason in err


@pytest.mark.parametrize(("part", "field"), REGEX_FIELDS)
def test_patterns_fine_alone_but_not_together_name_the_field(
    part: str, field: str, tmp_path: Path
) -> None:
    # one capture group name twice: each compiles alone, their union (as run) does not
    rubric = _rubric(tmp_path, part, field, ["(?P<who>eve)", "(?P<who>bob)"])
    with pytest.raises(RubricError) as caught:
        load_discussion_spec(rubric)
    assert caught.value.field == f"{part}.{field}"
    assert "duplicate capture group name" in str(caught.value)


@pytest.mark.parametrize(("part", "field"), REGEX_FIELDS)
def test_a_pattern_only_polars_accepts_is_kept(
    part: str,
    field: str,
    sample_runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # ``\p{Greek}`` is refused by Python's re ("bad escape \p"), run by Polars' engine
    rubric = _rubric(tmp_path, part, field, [r"\p{Greek}+ round"])
    assert load_discussion_spec(rubric).model_dump()[part][field] == (r"\p{Greek}+ round",)
    code, out, err = _run(
        [str(sample_runs / "discussions"), "--rubric", str(rubric), "--format", "json"], capsys
    )
    assert code in (0, 1), err  # scored (1: a game fails the rubric), never refused
    assert json.loads(out)["rubric_version"] == "1.2.0-team"


@pytest.mark.parametrize("version", sorted(PUBLISHED_DATA))
@pytest.mark.parametrize(("part", "field"), REGEX_FIELDS)
def test_the_published_patterns_compile_as_run(version: str, part: str, field: str) -> None:
    assert refused_pattern(tuple(PUBLISHED_DATA[version][part].get(field, ()))) is None


def test_the_published_patterns_are_not_compiled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(patterns: object) -> tuple[int, str]:
        raise RuntimeError(f"compiled {patterns!r}")  # not caught by pydantic

    monkeypatch.setattr(patterns_module, "refused_pattern", refuse)
    for data in PUBLISHED_DATA.values():
        DiscussionSpec.model_validate(data)  # raises if a published list is compiled
    with pytest.raises(RuntimeError, match="compiled"):  # and the patch is live
        role = {**PUBLISHED_DATA["1.2.0"]["role"], "no_reason": ("own",)}
        DiscussionSpec.model_validate({**PUBLISHED_DATA["1.2.0"], "role": role})
