"""The reading edge and one regression test per hostile-input signature of issue 13.

Each test names the signature it pins: what used to be a traceback, a hang, a silent drop
or a write outside the folder is now a one-line ``InputError`` naming the file, or an
issue row / warning with its reason.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS, tick_v1, write_run

import toolkit as tk
from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load.discussion import load_discussion
from toolkit.load.iterlog import load_iteration_log
from toolkit.load.persona import (
    Baseline,
    load_baseline,
    load_chat,
    load_proposition_file,
    write_baselines,
)
from toolkit.load.ratings import load_ratings
from toolkit.load.universe import load_universe
from toolkit.ratings.store import RatingStore

pytestmark = pytest.mark.timeout(120)

DEEP = 100_000
BOMB = "".join(
    ['a: &a ["x","x","x","x","x","x","x","x","x"]\n']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(7)]
)


def _deep_json(key: str = "messages") -> str:
    return f'{{"{key}": {"[" * DEEP}{"]" * DEEP}}}'


def _one_line(err: pytest.ExceptionInfo[InputError], path: Path) -> str:
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


# -- the edge itself --------------------------------------------------------------------


def test_fifo_is_refused_before_it_can_block(tmp_path: Path) -> None:
    fifo = tmp_path / "chat.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="named pipe") as err:
        edge.read_bytes(fifo)
    _one_line(err, fifo)


def test_fast_tick_read_of_a_fifo_does_not_block(tmp_path: Path) -> None:
    # The bulk reader trusts the scan; a file swapped for a FIFO since then reads as empty.
    fifo = tmp_path / "tick_1.json"
    os.mkfifo(fifo)
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(edge.read_bytes_fast(str(fifo), 100)))
    worker.start()
    worker.join(5)
    assert done == [b""]


def test_utf16_bom_and_bad_utf8_name_the_problem_and_offset() -> None:
    with pytest.raises(InputError, match=r"x\.yaml: the text is UTF-16 \(little-endian\)"):
        edge.decode_text("a: 1".encode("utf-16"), "x.yaml")
    with pytest.raises(InputError, match=r"byte 0xff at byte offset 3"):
        edge.decode_text(b"abc\xffdef", "x.json")
    assert edge.decode_text(b"\xef\xbb\xbfok", "x") == "ok"


def test_deep_json_names_the_path_to_the_deep_value() -> None:
    with pytest.raises(InputError) as err:
        edge.parse_json_text('{"a": {"b": ' + "[" * DEEP + "]" * DEEP + "}}", "f.json")
    assert "nested deeper than 100 levels at $.a.b[0]×98" in str(err.value)


def test_depth_limit_can_be_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "[" * 150 + "]" * 150
    with pytest.raises(InputError, match="TOOLKIT_MAX_DEPTH"):
        edge.parse_json_text(text, "f.json")
    monkeypatch.setenv("TOOLKIT_MAX_DEPTH", "200")
    assert edge.parse_json_text(text, "f.json") is not None


def test_size_limit_can_be_lowered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.json"
    big.write_text("[" + "1," * 100 + "1]")
    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "50")
    with pytest.raises(InputError, match=r"over the limit of 50 .*TOOLKIT_MAX_FILE_BYTES"):
        edge.read_bytes(big)


def test_lone_surrogate_escape_is_refused_but_pairs_are_text() -> None:
    with pytest.raises(InputError, match=r"lone UTF-16 surrogate escape \\ud800"):
        edge.parse_json_text('{"message": "hi \\ud800"}', "g.json")
    assert edge.parse_json_text('"\\ud83d\\ude00"', "g.json") == "\U0001f600"


def test_yaml_alias_bomb_recursive_alias_and_deep_yaml_are_refused() -> None:
    with pytest.raises(InputError, match="aliases expand the document by more than 10,000"):
        edge.parse_yaml_text(BOMB, "bomb.yaml")
    with pytest.raises(InputError, match=r"alias \*a refers to itself"):
        edge.parse_yaml_text("a: &a [*a]\n", "loop.yaml")
    with pytest.raises(InputError, match="nested deeper than 100"):
        edge.parse_yaml_text("- " * DEEP + "x\n", "deep.yaml")  # libyaml would segfault
    merged = edge.parse_yaml_text("b: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n", "ok.yaml")
    assert merged["c"] == {"x": 1, "y": 2}


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text("{}")
    (tmp_path / "run").mkdir()
    link = tmp_path / "run" / "x.json"
    link.symlink_to(outside)
    with pytest.raises(InputError, match="outside the folder being read"):
        edge.read_bytes(link, within=tmp_path / "run")
    assert edge.read_bytes(link) == b"{}"  # a file the user names directly is theirs


# -- universes --------------------------------------------------------------------------


def test_special_entries_in_tick_summaries_are_issue_rows(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1), tick_v1(2)])
    ticks = root / "tick_summaries" / "ticks"
    os.mkfifo(ticks / "tick_3.json")
    (ticks / "tick_4.json").mkdir()
    (ticks / "tick_5.json").symlink_to(ticks / "gone.json")
    (ticks / "tick_6.json").symlink_to(ticks / "tick_6.json")
    (ticks / "tick_99999999999999999999999.json").write_text(json.dumps(tick_v1(7)))
    u = load_universe(root)
    assert u.ticks["tick"].to_list() == [1, 2]
    reasons = dict(zip(u.issues["path"], u.issues["reason"], strict=True))
    assert "named pipe" in reasons[str(ticks / "tick_3.json")]
    assert "a folder, not a file" in reasons[str(ticks / "tick_4.json")]
    assert "dangling symlink" in reasons[str(ticks / "tick_5.json")]
    assert "symlink loop" in reasons[str(ticks / "tick_6.json")]
    assert "beyond 64 bits" in reasons[str(ticks / "tick_99999999999999999999999.json")]


def test_tick_id_of_2_to_the_63_is_an_issue_not_a_polars_error(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    ticks = root / "tick_summaries" / "ticks"
    (ticks / "tick_2.json").write_text(json.dumps(tick_v1(2, tick_id=str(2**63))))
    (ticks / "tick_3.json").write_text(json.dumps(tick_v1(3, tick_id=2**64)))
    u = load_universe(root)
    assert u.ticks["tick"].to_list() == [1]
    assert u.issues["reason"].str.contains("tick id is beyond 64 bits").sum() == 2


def test_garbage_graph_snapshot_cells_are_reported_per_row(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    con = sqlite3.connect(root / "universe.db")
    con.execute(
        "CREATE TABLE graph_snapshots (tick_id, summary, graph_json, node_count, edge_count)"
    )
    con.executemany(
        "INSERT INTO graph_snapshots VALUES (?, '', '{}', ?, ?)",
        [(1, 4, 3), (b"\xff\xfe", 4, 3), (2, "lots", 3), (2**63 - 1, 1, 1)],
    )
    con.commit()
    con.close()
    u = load_universe(root)
    assert u.checkpoints["tick"].to_list() == [1, 2**63 - 1]
    assert u.issues["reason"].str.contains("graph_snapshots row").sum() == 2


def test_damaged_universe_db_names_integrity_check(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "universe.db").write_bytes(b"SQLite format 3\x00" + b"\xab" * 4000)
    reason = load_universe(root).issues["reason"].to_list()[-1]
    assert f'sqlite3 {root / "universe.db"} "PRAGMA integrity_check"' in reason


def test_universe_yaml_in_utf16_is_an_issue_row(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "universe.yaml").write_bytes("name: Ash".encode("utf-16"))
    u = load_universe(root)
    assert u.issues["reason"].str.contains("UTF-16").any()
    assert u.ticks.height == 1


def test_cache_never_deletes_through_a_symlinked_cache_folder(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    precious = elsewhere / "precious.parquet"
    precious.write_bytes(b"PAR1 someone else's data")
    (root / ".toolkit_cache").symlink_to(elsewhere)
    load_universe(root, cache=True)
    load_universe(root, cache=True)
    assert precious.read_bytes() == b"PAR1 someone else's data"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["precious.parquet"]


def test_cache_deletes_only_the_file_its_manifest_named(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    load_universe(root, cache=True)
    folder = root / ".toolkit_cache"
    stranger = folder / "notes.parquet"
    stranger.write_bytes(b"not the cache's")
    first = next(folder.glob("ticks-*.parquet"))
    write_run(root, [tick_v1(1), tick_v1(2)])
    load_universe(root, cache=True)
    assert stranger.exists() and not first.exists()


GARBAGE_MANIFESTS = ["[1, 2]", '{"ticks": "../../etc/passwd"}', "\x00\xff", "[" * 100_000]


@pytest.mark.parametrize("manifest", GARBAGE_MANIFESTS, ids=["list", "escape", "bytes", "deep"])
def test_garbage_cache_manifest_is_rebuilt(tmp_path: Path, manifest: str) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    load_universe(root, cache=True)
    (root / ".toolkit_cache" / "manifest.json").write_text(manifest)
    assert load_universe(root, cache=True).ticks.height == 1
    # ... and written back whole: the next load reads it (a manifest naming its file)
    assert '"ticks":' in (root / ".toolkit_cache" / "manifest.json").read_text()


def test_a_cache_manifest_not_in_utf8_is_rebuilt(tmp_path: Path) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    load_universe(root, cache=True)
    (root / ".toolkit_cache" / "manifest.json").write_bytes(b'{"ticks": "\xff\xfe"}')
    assert load_universe(root, cache=True).ticks.height == 1


# -- iteration logs ---------------------------------------------------------------------


def test_iteration_log_fifo_bomb_and_huge_numbers_are_issues(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.mkdir()
    (log / "iter-1.yaml").write_text("schema_version: 1\ncommit: abc\n")
    os.mkfifo(log / "iter-2.yaml")
    (log / "iter-3.yaml").write_text("schema_version: 1\n" + BOMB)
    (log / "iter-4.yaml").write_text("schema_version: 1\nfiles_changed: 99999999999999999999\n")
    (log / "iter-99999999999999999999999.yaml").write_text("schema_version: 1\n")
    loaded = load_iteration_log(log)
    assert loaded.iterations["iteration"].to_list() == [1, 4]
    assert loaded.iterations["files_changed"].to_list() == [None, None]
    text = "\n".join(loaded.issue_lines())
    assert "iter-2.yaml: a named pipe" in text
    assert "iter-3.yaml:" in text and "aliases expand" in text
    assert "files_changed=99999999999999999999: a whole number beyond 64 bits" in text
    assert "iteration number is beyond 64 bits" in text


# -- discussions ------------------------------------------------------------------------


def test_deep_discussion_json_is_one_line_not_recursion_error(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    game.write_text(_deep_json())
    with pytest.raises(InputError, match=r"nested deeper than 100 levels at \$\.messages") as err:
        load_discussion(game)
    _one_line(err, game)


def test_damaged_game_database_names_integrity_check(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xab" * 5000)
    with pytest.raises(InputError, match="PRAGMA integrity_check") as err:
        load_discussion(db)
    _one_line(err, db)


def test_non_utf8_sqlite_text_is_read_leniently_and_said(tmp_path: Path) -> None:
    source = SAMPLE_RUNS / "discussions" / "baseline" / "games.db"
    db = tmp_path / "games.db"
    db.write_bytes(source.read_bytes())
    con = sqlite3.connect(db)
    con.execute(
        'UPDATE "DiscussionMessage" SET message = CAST(? AS TEXT) WHERE rowid = 1',
        (b"caf\xe9",),
    )
    con.commit()
    con.close()
    loaded = load_discussion(db)
    assert any("not UTF-8" in w for w in loaded.warnings)


def test_special_file_in_a_discussion_folder_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "game.json").write_bytes(
        (SAMPLE_RUNS / "discussions" / "game-pass.json").read_bytes()
    )
    os.mkfifo(tmp_path / "pipe.json")
    loaded = load_discussion(tmp_path)
    assert loaded.games.height == 1
    assert any("pipe.json: skipped: a named pipe" in w for w in loaded.warnings)


def test_epoch_beyond_year_9999_is_an_error_naming_the_field(tmp_path: Path) -> None:
    data = json.loads((SAMPLE_RUNS / "discussions" / "game-pass.json").read_text())
    data["timestamp"] = 10**20
    game = tmp_path / "g.json"
    game.write_text(json.dumps(data))
    with pytest.raises(InputError, match="timestamp=100000000000000000000"):
        load_discussion(game)


def test_turn_beyond_64_bits_is_an_error_naming_the_field(tmp_path: Path) -> None:
    data = json.loads((SAMPLE_RUNS / "discussions" / "game-pass.json").read_text())
    data["messages"][0]["turn"] = 2**64
    game = tmp_path / "g.json"
    game.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"messages\.0\.turn"):
        load_discussion(game)


# -- ratings ----------------------------------------------------------------------------


def test_oversized_csv_cell_is_one_line(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    ratings.write_text('game_id,rater,score\ng1,"' + "x" * 2_000_000 + '",4\n')
    with pytest.raises(InputError, match="larger than 1,048,576 characters") as err:
        load_ratings(ratings)
    _one_line(err, ratings)


def test_damaged_ratings_store_is_refused_before_any_write(tmp_path: Path) -> None:
    path = tmp_path / "ratings.db"
    store = RatingStore(path)
    for i in range(300):
        store.save_rating("ana", f"g{i}", 3, notes="x" * 300)
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    blob = bytearray(path.read_bytes())
    blob[5 * 4096 : 5 * 4096 + 64] = b"\xab" * 64
    path.write_bytes(bytes(blob))
    with pytest.raises(InputError, match="PRAGMA integrity_check") as err:
        RatingStore(path).save_rating("ana", "new", 4)
    _one_line(err, path)
    assert path.read_bytes() == bytes(blob)


# -- persona ----------------------------------------------------------------------------


def test_utf16_chat_and_deep_chat_are_one_line(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes((SAMPLE_RUNS / "persona" / "radio-week2.jsonl").read_text().encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16") as err:
        load_chat(chat)
    _one_line(err, chat)
    chat.write_text('{"type": "run", "run": "x"}\n' + _deep_json() + "\n")
    with pytest.raises(InputError, match=r"chat\.jsonl:2: nested deeper"):
        load_chat(chat)


def test_proposition_bomb_and_odd_timestamps(tmp_path: Path) -> None:
    source = (SAMPLE_RUNS / "persona" / "propositions" / "adherence" / "_default.yaml").read_text()
    bomb = tmp_path / "_default.yaml"
    bomb.write_text(source + BOMB)
    with pytest.raises(InputError, match="aliases expand"):
        load_proposition_file(bomb)
    odd = tmp_path / "odd.yaml"
    odd.write_text(source.replace("dimension: adherence", "dimension: 2026-13-45"))
    parsed, _ = load_proposition_file(odd)  # a date that is no date stays text
    assert parsed.spec.dimension == "2026-13-45"


@pytest.mark.parametrize("score", [-1, 9.5, 1e300, "Infinity", "NaN"])
def test_baseline_scores_outside_0_to_9_are_refused(tmp_path: Path, score: object) -> None:
    path = tmp_path / "ava.json"
    value = score if not isinstance(score, str) else f"__{score}__"
    text = json.dumps(
        {"agentId": "ava", "capturedAt": "2026-01-01T00:00:00Z", "dimensions": {"adherence": value}}
    )
    path.write_text(text.replace(f'"__{score}__"', str(score)))
    with pytest.raises(InputError, match="dimensions") as err:
        load_baseline(path)
    _one_line(err, path)


def test_cassette_negative_value_is_refused(tmp_path: Path) -> None:
    data = json.loads((SAMPLE_RUNS / "persona" / "cassette.json").read_text())
    first = next(iter(data["recordings"]))
    data["recordings"][first]["value"] = -3
    cassette = tmp_path / "c.json"
    cassette.write_text(json.dumps(data))
    with pytest.raises(InputError, match="non-negative whole number"):
        tk.RecordedJudge(cassette) if hasattr(tk, "RecordedJudge") else _recorded(cassette)


def _recorded(path: Path) -> object:
    from toolkit.judge.recorded import RecordedJudge

    return RecordedJudge(path)


def test_write_baseline_keeps_agent_ids_inside_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "baselines"
    stamp = "2026-01-01T00:00:00Z"
    hostile = [
        Baseline.model_validate({"agentId": a, "capturedAt": stamp, "dimensions": {"x": 5}})
        for a in ("../escape", "/tmp/absolute", "..", "ok-id")
    ]
    written = write_baselines(hostile, out)
    assert all(p.parent == out for p in written)
    assert sorted(p.name for p in out.iterdir()) == [
        "_.json",
        "_escape.json",
        "_tmp_absolute.json",
        "ok-id.json",
    ]
    assert not (tmp_path / "escape.json").exists()


def test_batch_record_numbers_beyond_64_bits_are_an_issue(tmp_path: Path) -> None:
    # Found by tests/fuzz: a batch's first_tick of 10**23 reached the batches frame.
    batch = {"kind": "batch", "batch_id": 0, "first_tick": 10**23, "last_tick": 100}
    root = write_run(tmp_path / "r", [tick_v1(101)], batches=[batch])
    u = load_universe(root)
    assert u.batches.height == 0
    assert u.issues["reason"].str.contains("first_tick=").any()


def test_yaml_past_libyamls_own_depth_is_refused_as_too_deep_not_taken_for_a_syntax_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libyaml 0.2.5 (PyYAML 6.0.4's wheels) stops at 1,000 levels with a ScannerError
    before yielding any collection event; that is a depth refusal, not a syntax error left
    to the parser (which would let a --param value through as text)."""
    import yaml

    from toolkit.io.edge import yaml_problem

    def scanner_stops(text: str, Loader: object = None) -> object:
        raise yaml.scanner.ScannerError(
            "while increasing flow level", None, "exceeded maximum nesting depth", None
        )
        yield  # a generator, as yaml.parse is

    monkeypatch.setattr(yaml, "parse", scanner_stops)
    refused = yaml_problem("[" * 3000 + "]" * 3000)
    assert refused is not None and refused[0].startswith("nested deeper than 100 levels")


@pytest.mark.parametrize("raw", ["\u00b2", "\u0663"])
def test_a_limit_or_retry_count_in_non_ascii_digits_is_ignored_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    """ "²" passes str.isdigit but int() refuses it: every command raised ValueError.
    The documented rule: a value that is not a positive whole number is ignored."""
    from toolkit.io import edge, network

    monkeypatch.setenv("TOOLKIT_MAX_YAML_ALIAS_NODES", raw)
    monkeypatch.setenv("TOOLKIT_STORAGE_RETRIES", raw)
    assert edge.limits().max_yaml_alias_nodes == 10_000
    assert network.deadlines().retries == network.DEFAULT_RETRIES
