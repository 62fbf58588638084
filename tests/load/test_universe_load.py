"""Loading token-world run folders into typed frames."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS, SNAPSHOTS_DDL, refused_v1, tick_v1, tick_v2, write_run

from toolkit.errors import InputError
from toolkit.frames import BATCHES_SCHEMA, CHECKPOINTS_SCHEMA, TICKS_SCHEMA
from toolkit.load.universe import load_universe, load_universes


def test_ticks_frame_has_the_declared_schema(tmp_path: Path) -> None:
    u = load_universe(write_run(tmp_path / "vale", [tick_v1(1), tick_v2(2)]))
    assert u.ticks.schema == pl.Schema(TICKS_SCHEMA)
    assert u.batches.schema == pl.Schema(BATCHES_SCHEMA)
    assert u.checkpoints.schema == pl.Schema(CHECKPOINTS_SCHEMA)
    assert u.slug == "vale"
    assert u.names == {"vale": "Vale"}


def test_v1_fields_are_normalised(tmp_path: Path) -> None:
    u = load_universe(write_run(tmp_path / "r", [tick_v1(7), refused_v1(8, "low_confidence")]))
    first, second = u.ticks.to_dicts()
    assert first["tick"] == 7 and first["status"] == "executed" and first["actor"] == "mara"
    assert first["verb"] == "walk" and first["mutation_count"] == 1
    assert first["cost_usd"] == pytest.approx(0.75)
    assert (first["tokens_in"], first["tokens_out"]) == (15, 3)
    assert first["grounded_source"] == "proxy"
    assert str(first["timestamp"]) == "2026-01-01 00:00:07+00:00"
    assert second["status"] == "refused" and second["refusal_reason"] == "low_confidence"
    assert second["rollback"] is False


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"refused": True}, "refused"),
        ({"yielded": True, "matched_mechanic_id": None}, "yielded"),
        ({"matched_mechanic_id": None}, "unmatched"),
        ({}, "executed"),
    ],
)
def test_v1_status_is_derived(tmp_path: Path, fields: dict[str, object], status: str) -> None:
    u = load_universe(write_run(tmp_path / "r", [tick_v1(1, **fields)]))
    assert u.ticks["status"][0] == status


@pytest.mark.parametrize(
    ("kind", "status"), [("execute", "executed"), ("yield", "yielded"), ("refuse", "refused")]
)
def test_v2_kind_maps_to_status(tmp_path: Path, kind: str, status: str) -> None:
    u = load_universe(write_run(tmp_path / "r", [tick_v2(1, kind=kind)]))
    row = u.ticks.row(0, named=True)
    assert row["status"] == status
    assert row["grounded_source"] == "observer"
    assert row["cost_usd"] == 0.75


def test_continuation_ticks_are_flagged(tmp_path: Path) -> None:
    ticks = [
        tick_v1(1, action_text="[long_running_continuation]"),
        tick_v1(2, matched_mechanic_id="continue_long_action"),
        tick_v1(3),
    ]
    u = load_universe(write_run(tmp_path / "r", ticks))
    assert u.ticks["continuation"].to_list() == [True, True, False]


def test_tick_ids_in_both_forms_sort_numerically(tmp_path: Path) -> None:
    ticks = [tick_v1(100), tick_v1(9, tick_id="tick_9"), tick_v1(10), tick_v1(2, tick_id=2)]
    u = load_universe(write_run(tmp_path / "r", ticks))
    assert u.ticks["tick"].to_list() == [2, 9, 10, 100]


def test_batches_and_epochs_are_read(tmp_path: Path) -> None:
    root = write_run(
        tmp_path / "r",
        [tick_v1(101)],
        batches=[
            {"kind": "batch", "batch_id": 0, "first_tick": "tick_1", "last_tick": 100,
             "tick_count": 100, "key_events": ["a", {"b": 1}], "mechanic_ids_used": ["walk"],
             "total_mutations": 80, "agent_id": "mara", "haiku_prompt_hash": "x"},
        ],
    )  # fmt: skip
    (root / "tick_summaries" / "epoch_0.json").write_text(
        json.dumps({"first_tick": 1, "last_tick": 10000})
    )
    u = load_universe(root)
    b = u.batches.to_dicts()
    assert [r["kind"] for r in b] == ["batch", "epoch"]
    assert b[0]["first_tick"] == 1 and b[0]["key_events"] == ["a", '{"b": 1}']
    assert b[1]["tick_count"] == 10000  # derived from the tick range


def test_checkpoints_come_from_graph_snapshots(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)], snapshots=[(20, 5, 9), (10, 4, 6)])
    u = load_universe(root)
    assert u.checkpoints.select("tick", "node_count", "edge_count").rows() == [
        (10, 4, 6),
        (20, 5, 9),
    ]


def _engine_db(root: Path, rows: list[tuple[object, int, int]], ddl: str = SNAPSHOTS_DDL) -> None:
    with sqlite3.connect(root / "universe.db") as conn:
        conn.executescript(ddl)
        conn.executemany(
            "INSERT INTO graph_snapshots (tick_id, graph_json, node_count, edge_count)"
            " VALUES (?, '{}', ?, ?)",
            rows,
        )
    conn.close()


def test_a_database_with_the_engines_ddl_loads_without_warnings(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    _engine_db(root, [(10, 4, 6), (20, 5, 9)])
    u = load_universe(root)
    assert u.checkpoints.select("tick", "node_count", "edge_count").rows() == [
        (10, 4, 6),
        (20, 5, 9),
    ]
    assert not any("universe.db" in w for w in u.warnings)
    assert u.issues.height == 0


def test_text_tick_ids_are_read_leniently_with_a_warning(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    text_ids = SNAPSHOTS_DDL.replace("tick_id INTEGER NOT NULL", "tick_id TEXT NOT NULL")
    _engine_db(root, [("tick_10", 4, 6), ("20", 5, 9), ("soon", 1, 1)], ddl=text_ids)
    u = load_universe(root)
    assert u.checkpoints.select("tick", "node_count", "edge_count").rows() == [
        (10, 4, 6),
        (20, 5, 9),
    ]
    (text,) = [w for w in u.warnings if "holds text" in w]
    assert "graph_snapshots.tick_id holds text in 3 rows (e.g. 'tick_10')" in text
    # a row that is no tick at all is skipped, and reported as an issue of the load
    (skipped,) = u.issues["reason"].to_list()
    assert "graph_snapshots row 3: tick_id='soon' is not a tick number" in skipped


def test_sample_databases_use_the_engines_column_types() -> None:
    dbs = sorted(SAMPLE_RUNS.glob("universes/*/universe.db")) + sorted(
        SAMPLE_RUNS.glob("fleet/*/universe.db")
    )
    assert len(dbs) == 19
    for db in dbs:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            columns = {
                row[1]: (row[2], row[3], row[5])  # type, not null, primary key
                for row in conn.execute("PRAGMA table_info(graph_snapshots)")
            }
            kinds = conn.execute("SELECT DISTINCT typeof(tick_id) FROM graph_snapshots").fetchall()
        conn.close()
        assert columns == {
            "snapshot_id": ("INTEGER", 0, 1),
            "tick_id": ("INTEGER", 1, 0),
            "summary": ("TEXT", 1, 0),
            "graph_json": ("TEXT", 1, 0),
            "node_count": ("INTEGER", 1, 0),
            "edge_count": ("INTEGER", 1, 0),
            "created_at": ("TEXT", 1, 0),
        }, db
        assert kinds == [("integer",)], db


def test_missing_database_is_a_warning_not_an_error(tmp_path: Path) -> None:
    u = load_universe(write_run(tmp_path / "r", [tick_v1(1)]))
    assert u.checkpoints.height == 0
    assert any("no universe.db" in w for w in u.warnings)


def test_unreadable_database_is_reported(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "universe.db").write_text("not a database")
    u = load_universe(root)
    assert u.issues["reason"].str.contains("unreadable SQLite database").any()
    assert u.issues["reason"].str.contains("PRAGMA integrity_check", literal=True).any()


def test_malformed_tick_files_are_reported_with_path_and_line(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1), tick_v1(3)])
    bad = root / "tick_summaries" / "ticks" / "tick_2.json"
    bad.write_text('{"schema_version": 1,\n "tick_id": "2",\n oops}')
    u = load_universe(root)
    assert u.ticks["tick"].to_list() == [1, 3]
    issue = u.issues.row(0, named=True)
    assert issue["path"] == str(bad) and issue["line"] == 3
    assert "not valid JSON" in issue["reason"]


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (tick_v1(2, schema_version=9), "schema_version=9: unknown tick schema version"),
        (tick_v1(2, refused="perhaps"), "refused='perhaps'"),
        (tick_v2(2, kind="explode"), "kind='explode'"),
        (tick_v1(2, tick_id="second"), "tick_id='second': tick id is not a tick number"),
        ([1, 2], "a tick summary must be a JSON object"),
    ],
)
def test_invalid_tick_records_name_field_and_value(
    tmp_path: Path, record: object, expected: str
) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "tick_summaries" / "ticks" / "tick_2.json").write_text(json.dumps(record))
    u = load_universe(root)
    assert u.ticks.height == 1
    reason = u.issues["reason"][0]
    assert "tick_2.json" in reason and expected in reason


def test_unknown_keys_and_missing_optional_fields_are_tolerated(tmp_path: Path) -> None:
    minimal = {"tick_id": "5", "action_text": "Mara waits.", "new_field": {"x": 1}}
    u = load_universe(write_run(tmp_path / "r", [minimal]))
    row = u.ticks.row(0, named=True)
    assert (row["tick"], row["schema_version"], row["status"]) == (5, 1, "unmatched")
    assert row["mutation_count"] == 0 and row["cost_usd"] is None


def test_bare_mutation_list_is_accepted(tmp_path: Path) -> None:
    u = load_universe(write_run(tmp_path / "r", [tick_v1(1, mutations=[["a", "b", 1, 2]])]))
    assert u.ticks["mutation_count"][0] == 1


def test_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such run folder"):
        load_universe(tmp_path / "nope")
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="must be a folder"):
        load_universe(tmp_path / "file")


def test_config_name_and_conserved_properties(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "universe.yaml").write_text("name: River Vale\n")
    (root / "conservation.yaml").write_text("conserved_properties: [coins]\n")
    u = load_universe(root)
    assert u.names["r"] == "River Vale" and u.conserved["r"] == ("coins",)


def test_load_universes_stacks_runs_with_a_slug_column(tmp_path: Path) -> None:
    write_run(tmp_path / "a", [tick_v1(1), tick_v1(2)])
    write_run(tmp_path / "b", [tick_v1(1)])
    (tmp_path / "not-a-run").mkdir()
    u = load_universes(tmp_path / "*")
    assert u.slugs == ["a", "b"]
    assert u.ticks.group_by("slug").len().sort("slug").rows() == [("a", 2), ("b", 1)]
    assert u.run("b").ticks.height == 1


def test_load_universes_with_no_match_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no run folders"):
        load_universes(tmp_path / "*")


def test_sample_runs_load_cleanly() -> None:
    u = load_universes(SAMPLE_RUNS / "universes" / "*")
    assert sorted(u.slugs) == ["ashfall", "harbor-town", "willowbrook"]
    assert u.issues.height == 0
    assert u.ticks.group_by("slug").len()["len"].min() >= 50  # type: ignore[operator]
    assert (u.batches["tick_count"] == 100).all()
    assert set(u.ticks["schema_version"].unique().to_list()) == {1, 2}


def test_a_tick_file_larger_than_one_read_loads_whole(tmp_path: Path) -> None:
    long_text = "x" * (5 << 20)  # 5 MiB: more than the loader's single read
    u = load_universe(write_run(tmp_path / "r", [tick_v1(1, observation_text=long_text)]))
    assert u.issues.height == 0
    assert len(u.ticks["observation_text"][0]) == 5 << 20


def test_a_folder_of_runs_or_a_folder_without_ticks_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"a folder of \d+ runs, not a run: score them as a") as e:
        load_universe(SAMPLE_RUNS / "fleet")
    assert f"toolkit quality --all {SAMPLE_RUNS / 'fleet'}" in str(e.value)
    assert "load_universes" not in str(e.value)  # the hint names a command, no function
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="not a run folder: it has no tick_summaries/"):
        load_universe(tmp_path / "plain")
    empty = tmp_path / "empty"
    (empty / "tick_summaries" / "ticks").mkdir(parents=True)
    with pytest.raises(InputError, match="nothing loadable: no tick files and no batch records"):
        load_universe(empty)


def test_resolve_run_joins_a_slug_to_a_url_root_and_keeps_paths_and_urls() -> None:
    from toolkit.load.universe import resolve_run

    env = {"TOOLKIT_UNIVERSES_ROOT": "s3://bucket/universes/"}
    assert resolve_run("willowbrook", env=env) == "s3://bucket/universes/willowbrook"
    assert resolve_run("s3://other/run", env=env) == "s3://other/run"
    here = SAMPLE_RUNS / "universes" / "ashfall"
    assert resolve_run(here, root="s3://bucket/universes") == here


def test_a_runs_part_holds_only_its_own_issues_and_warnings_not_a_longer_namesakes(
    tmp_path: Path,
) -> None:
    """``run("vale")`` took the issues of run ``vale2`` (its path starts the same) and the
    warnings of a run named ``vale: x`` (its warnings start with ``vale:``)."""
    for name in ("vale", "vale2", "vale: x"):
        write_run(tmp_path / name, [tick_v1(1), tick_v1(2)])
    (tmp_path / "vale2" / "tick_summaries" / "ticks" / "tick_2.json").write_text("{broken")
    repeat = tmp_path / "vale: x" / "tick_summaries" / "ticks" / "tick_1.json"
    repeat.write_text(json.dumps(tick_v1(1))[:-1] + ', "refused": false}')
    u = load_universes(tmp_path / "*")
    assert u.run("vale").issues.height == 0
    assert [Path(p).name for p in u.run("vale2").issues["path"]] == ["tick_2.json"]
    assert any("duplicate key 'refused'" in w for w in u.run("vale: x").warnings)
    assert not any("duplicate key" in w for w in u.run("vale").warnings)
