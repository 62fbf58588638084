"""The iteration-log loader: v1/v2 normalisation, historical entries, sidecars, issues."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from toolkit import InputError, load_iteration_log
from toolkit.frames import HOOK_OUTCOMES_SCHEMA, ITERATIONS_SCHEMA, VERIFIERS_SCHEMA
from toolkit.load._fields import tristate

V1 = """\
schema_version: 1
iteration: {n}
date: "2026-01-0{n}"
task_id: t-{n}
commit: "{commit}"
summary: "Work item {n}"
scope_note: on-target
retries: 0
tests_total_pass: {flag}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def issues(log_dir: Path) -> list[tuple[str, int | None, str]]:
    log = load_iteration_log(log_dir)
    return [(Path(r["path"]).name, r["line"], r["reason"]) for r in log.issues.to_dicts()]


# --- the sample log ----------------------------------------------------------


def test_sample_log_loads_both_schema_versions_with_explicit_schemas(tally_log: Path) -> None:
    log = load_iteration_log(tally_log)
    assert log.iterations.schema == pl.Schema(ITERATIONS_SCHEMA)
    assert log.verifiers.schema == pl.Schema(VERIFIERS_SCHEMA)
    assert log.hook_outcomes.schema == pl.Schema(HOOK_OUTCOMES_SCHEMA)
    rows = log.iterations.select("iteration", "schema_version", "source").rows()
    assert rows == [
        (1, 1, "historical"),
        (2, 1, "file"),
        (3, 1, "file"),
        (4, 2, "file"),
        (5, 2, "file"),
        (6, 2, "file"),
    ]


def test_a_dedicated_file_wins_over_its_historical_entry(tally_log: Path) -> None:
    it2 = (
        load_iteration_log(tally_log).iterations.filter(pl.col("iteration") == 2).row(0, named=True)
    )
    assert it2["impl_summary"] == "Add rounding helper"  # historical says "(draft)"
    assert it2["commit"] == "dcb6f57"
    assert it2["source_file"].endswith("iter-2.yaml")


def test_unknown_schema_version_is_reported_with_path_line_and_reason(tally_log: Path) -> None:
    assert issues(tally_log) == [
        (
            "iter-7.yaml",
            2,
            "schema_version=3: unknown schema version (known: 1, 2); entry skipped",
        )
    ]


def test_tri_state_flags_keep_unreported_apart_from_false(tally_log: Path) -> None:
    it = load_iteration_log(tally_log).iterations
    flags = dict(it.select("iteration", "impl_tests_total_pass").rows())
    assert flags[1] is True  # true
    assert flags[2] is True  # the integer 3: a non-zero pass count
    assert flags[3] is None  # "": unreported, not false
    focused = dict(it.select("iteration", "impl_focused_tests_pass").rows())
    assert focused[4] is True and focused[1] is None


def test_v2_blocks_land_in_role_columns_and_verifier_rows(tally_log: Path) -> None:
    log = load_iteration_log(tally_log)
    it4 = log.iterations.filter(pl.col("iteration") == 4).row(0, named=True)
    assert it4["agent_session_id"] == "4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10"
    assert it4["impl_retries"] == 1
    assert it4["review_overall_decision"] == "accept"
    assert it4["review_decision_artifact"] == "artifacts/iter-4-review-decision.yaml"
    assert it4["verifier_count"] == 2
    it5 = log.iterations.filter(pl.col("iteration") == 5).row(0, named=True)
    assert it5["cache_hit_rate"] == 0.72
    assert it5["review_failed_gates"] == ["test"]
    v = log.verifiers.filter(pl.col("iteration") == 4).sort("verifier_index")
    assert v["type"].to_list() == ["test", "review"]
    assert v["status"].to_list() == ["pass", "pass"]
    assert v["result_artifact"].to_list() == ["artifacts/iter-4-test.result.yaml", None]
    assert v["linked_traces"][0].to_list() == [
        {"trace_ref": "pytest tests/test_cli.py", "outcome_ref": "df412d9"}
    ]
    assert v["retries"].to_list() == [0, 1]


def test_unknown_extra_keys_are_tolerated(tally_log: Path) -> None:
    # iter-6.yaml carries impl.item, impl.feedback_goal, scenario_tags, reviewer_notes.
    log = load_iteration_log(tally_log)
    assert 6 in log.iterations["iteration"].to_list()
    assert not any("iter-6" in line for line in log.issue_lines())


def test_hook_outcome_sidecars_are_records_not_iterations(tally_log: Path) -> None:
    log = load_iteration_log(tally_log)
    hooks = log.hook_outcomes.sort("iteration", "record_index")
    assert hooks.select("iteration", "intervention_class", "result").rows() == [
        (5, "prevent_before_action", "advise"),
        (5, "continuity_advice", "advise"),
        (6, "prevent_before_action", "advise"),
        (6, "remediate_at_stop", "remediate"),
        (6, "prevent_before_action", "allow"),
    ]
    files = dict(log.iterations.select("iteration", "hook_outcomes_file").rows())
    assert files[4] is None and files[5].endswith("iter-5.hook-outcomes.yaml")


# --- built logs ----------------------------------------------------------------


def test_broken_yaml_is_reported_and_the_rest_still_loads(tmp_path: Path) -> None:
    write(tmp_path, "iter-1.yaml", V1.format(n=1, commit="abc1234", flag="true"))
    write(tmp_path, "iter-2.yaml", "schema_version: 1\niteration: 2\nsummary: [unclosed\n")
    write(
        tmp_path,
        "historical.yaml",
        "iterations:\n  - schema_version: 1\niteration: 3\n    date: '2026-01-03'\n",
    )
    log = load_iteration_log(tmp_path)
    assert log.iterations["iteration"].to_list() == [1]
    found = issues(tmp_path)
    assert [(name, line) for name, line, _ in found] == [("historical.yaml", 4), ("iter-2.yaml", 4)]
    assert all(reason.startswith("not valid YAML: ") for _, _, reason in found)


def test_a_bad_field_is_reported_and_left_unreported(tmp_path: Path) -> None:
    text = V1.format(n=1, commit="abc1234", flag="maybe") + "files_changed: lots\n"
    write(tmp_path, "iter-1.yaml", text)
    log = load_iteration_log(tmp_path)
    row = log.iterations.row(0, named=True)
    assert row["impl_tests_total_pass"] is None and row["files_changed"] is None
    assert row["impl_summary"] == "Work item 1"
    assert issues(tmp_path) == [
        (
            "iter-1.yaml",
            9,
            "tests_total_pass='maybe': not a boolean word (true/false, yes/no, on/off, "
            "pass/fail); left unreported",
        ),
        ("iter-1.yaml", 10, "files_changed='lots': not a whole number; left unreported"),
    ]


def test_false_and_unreported_flags_reach_the_frame_distinctly(tmp_path: Path) -> None:
    write(tmp_path, "iter-1.yaml", V1.format(n=1, commit="a", flag="false"))
    write(tmp_path, "iter-2.yaml", V1.format(n=2, commit="b", flag="null"))
    write(tmp_path, "iter-3.yaml", V1.format(n=3, commit="c", flag="0"))
    flags = load_iteration_log(tmp_path).iterations["impl_tests_total_pass"].to_list()
    assert flags == [False, None, False]


def test_ids_are_kept_as_written_not_read_as_numbers(tmp_path: Path) -> None:
    # YAML would read 0123456 as an octal number and 1e10 as a float.
    text = V1.format(n=1, commit="x", flag="true").replace('commit: "x"', "commit: 0123456")
    write(tmp_path, "iter-1.yaml", text.replace("task_id: t-1", "task_id: 1e10"))
    row = load_iteration_log(tmp_path).iterations.row(0, named=True)
    assert row["commit"] == "0123456" and row["task_id"] == "1e10"


def test_score_sidecars_and_other_files_are_not_iterations(tmp_path: Path) -> None:
    write(tmp_path, "iter-1.yaml", V1.format(n=1, commit="a", flag="true"))
    write(tmp_path, "iter-1.score.yaml", "schema_version: 1\niteration: 1\nvalue: 0.5\n")
    write(tmp_path, "session-abc.score.yaml", "session_id: abc\n")
    write(tmp_path, "notes.yaml", "not: an iteration\n")
    log = load_iteration_log(tmp_path)
    assert log.iterations["iteration"].to_list() == [1]
    assert log.issues.is_empty()


def test_a_bad_hook_record_is_reported_and_skipped(tmp_path: Path) -> None:
    write(tmp_path, "iter-1.yaml", V1.format(n=1, commit="a", flag="true"))
    write(
        tmp_path,
        "iter-1.hook-outcomes.yaml",
        "schema_version: 1\nrecords:\n"
        "  - {intervention_class: remediate_at_stop, result: REMEDIATE, rule_id: r1}\n"
        "  - {intervention_class: remediate_at_stop, result: explode, rule_id: r2}\n",
    )
    log = load_iteration_log(tmp_path)
    assert log.hook_outcomes.select("rule_id", "result").rows() == [("r1", "remediate")]
    (name, line, reason) = issues(tmp_path)[0]
    assert (name, line) == ("iter-1.hook-outcomes.yaml", 4)
    assert reason.startswith("records.1.result='explode': Input should be")
    assert reason.endswith("; skipped")


def test_the_file_name_gives_the_iteration_number(tmp_path: Path) -> None:
    write(tmp_path, "iter-8.yaml", V1.format(n=7, commit="a", flag="true"))
    log = load_iteration_log(tmp_path)
    assert log.iterations["iteration"].to_list() == [8]
    assert "the file name wins" in log.issues["reason"][0]


def test_a_missing_folder_or_a_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        load_iteration_log(tmp_path / "missing")
    file = write(tmp_path, "iter-1.yaml", "x: 1\n")
    with pytest.raises(InputError, match="not a folder"):
        load_iteration_log(file)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("  ", None),
        (True, True),
        (False, False),
        (0, False),
        (4, True),
        (-1, True),
        ("yes", True),
        ("No", False),
        ("TRUE", True),
        ("off", False),
        ("pass", True),
        ("failed", False),
    ],
)
def test_tri_state_parsing(raw: object, expected: bool | None) -> None:
    assert tristate(raw) is expected


def test_tri_state_rejects_other_words() -> None:
    with pytest.raises(ValueError, match="not a boolean word"):
        tristate("sometimes")


# --- the real logs --------------------------------------------------------------


def test_every_real_log_loads_and_the_broken_historical_is_reported(real_runs: Path) -> None:
    folder = real_runs / "iteration_logs" / "dot-agents"
    log = load_iteration_log(folder)
    numbers = log.iterations["iteration"].to_list()
    assert numbers == [*range(1, 62), 66]
    assert set(log.iterations["source"].to_list()) == {"file"}
    assert log.issues.select("path", "line").rows() == [(str(folder / "historical.yaml"), 6)]
    assert log.issues["reason"][0].startswith("not valid YAML: mapping values are not allowed")
    versions = dict(log.iterations.select("iteration", "schema_version").rows())
    assert {versions[n] for n in range(1, 40)} == {1}
    assert {versions[n] for n in [*range(40, 62), 66]} == {2}
    flags = dict(log.iterations.select("iteration", "impl_tests_total_pass").rows())
    assert flags[34] is True  # an integer pass count upstream
    assert flags[37] is None  # null upstream
    hooks = log.hook_outcomes.select("iteration", "intervention_class", "result").rows()
    assert hooks == [(66, "remediate_at_stop", "remediate")]


def test_the_repaired_historical_fills_in_iterations_without_files(
    real_runs: Path, tmp_path: Path
) -> None:
    folder = real_runs / "iteration_logs" / "dot-agents"
    shutil.copy(folder / "historical.repaired.yaml.txt", tmp_path / "historical.yaml")
    shutil.copy(folder / "iter-5.yaml", tmp_path / "iter-5.yaml")
    log = load_iteration_log(tmp_path)
    assert log.iterations["iteration"].to_list() == list(range(1, 34))
    sources = dict(log.iterations.select("iteration", "source").rows())
    assert sources[5] == "file" and sources[4] == "historical"
    assert log.issues.is_empty()


def test_values_of_the_wrong_kind_are_reported_field_by_field(tmp_path: Path) -> None:
    write(
        tmp_path,
        "iter-1.yaml",
        "schema_version: '2'\n"  # a quoted version is still version 2
        "date: 2026-13-45\n"
        "session_tokens: {cache_hit_rate: 82}\n"
        "verifiers:\n  - status: pass\n  - 5\n"
        "review: nope\n",
    )
    log = load_iteration_log(tmp_path)
    row = log.iterations.row(0, named=True)
    # A cache_hit_rate outside [0, 1] is kept as read: the outcome rubric clamps it and
    # says so (dot-agents clamps too); the loader no longer drops it.
    assert (row["schema_version"], row["date"], row["cache_hit_rate"]) == (2, None, 82.0)
    assert row["verifier_count"] == 1 and row["review_overall_decision"] is None
    assert [(line, reason.split(":")[0]) for _, line, reason in issues(tmp_path)] == [
        (2, "date='2026-13-45'"),
        (6, "verifiers.1=5"),
        (7, "review='nope'"),
    ]
    assert issues(tmp_path)[1][2].endswith("; item skipped")


def test_a_field_dropped_in_validation_leaves_the_parsed_document_as_read() -> None:
    """Validation drops an unusable field from a copy (made only once a field must go):
    the parsed document itself, which later entries and line lookups read, is unchanged."""
    import copy

    from toolkit.io.yamlkeys import parse_yaml
    from toolkit.load.iterlog import V2Entry, _validate

    text = "schema_version: 2\nreview: nope\nverifiers:\n  - status: pass\n  - 5\n"
    parsed = parse_yaml(text)
    before = copy.deepcopy(parsed.data)
    reported: list[tuple[int | None, str]] = []
    entry = _validate(V2Entry, parsed.data, parsed, (), lambda at, why: reported.append((at, why)))
    assert entry is not None and len(entry.verifiers) == 1 and entry.review is None
    assert sorted((at, why.split("=")[0]) for at, why in reported) == [
        (2, "review"),
        (5, "verifiers.1"),
    ]
    assert parsed.data == before
    clean = {"schema_version": 2, "verifiers": [{"status": "pass"}]}
    assert _validate(V2Entry, clean, parsed, (), lambda at, why: reported.append((at, why)))
    assert clean == {"schema_version": 2, "verifiers": [{"status": "pass"}]}


def test_a_non_ascii_digit_schema_version_is_reported_not_a_traceback(tmp_path: Path) -> None:
    """ "²" passes str.isdigit, yet int() refuses it: an unknown version, as "x" is."""
    write(tmp_path, "iter-1.yaml", V1.format(n=1, commit="abc1234", flag="true"))
    write(tmp_path, "iter-2.yaml", V1.format(n=2, commit="abc1235", flag="true").replace(
        "schema_version: 1", 'schema_version: "\u00b2"'))  # fmt: skip
    assert issues(tmp_path) == [
        ("iter-2.yaml", 1, "schema_version='\u00b2': unknown schema version (known: 1, 2); "
         "entry skipped")
    ]  # fmt: skip


def test_a_labels_file_with_a_non_ascii_digit_version_is_skipped_not_a_traceback() -> None:
    from toolkit.load.labels import label_rows

    rows, problems = label_rows({"schema_version": "\u00b2.0", "labels": []}, 1, "f", lambda _: 3)
    assert rows == [] and problems == [
        (3, "schema_version='\u00b2.0': labels of schema major version 1 are read (1.x); "
         "the file was skipped")
    ]  # fmt: skip
