"""`toolkit quality` for users coming from token-world: --compat token-world, --gate
fail-only, --all --only/--sort, and --diff RUN_B."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS, SNAPSHOTS_DDL, refused_v1, tick_v1, write_run

from toolkit.cli import main

UNIVERSES = SAMPLE_RUNS / "universes"
HEALTHY = UNIVERSES / "willowbrook"
DEGRADED = UNIVERSES / "harbor-town"
FAILED = UNIVERSES / "ashfall"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --- --compat token-world ---------------------------------------------------------------


def test_compat_json_has_token_worlds_shape_and_status_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(["quality", str(FAILED), "--format", "json", "--compat",
                            "token-world"], capsys)  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert list(data) == ["slug", "window", "tick_count", "verdict", "dimensions"]
    assert (data["slug"], data["window"], data["tick_count"]) == ("ashfall", 50, 50)
    assert data["verdict"] == "FAILED"
    assert [d["name"] for d in data["dimensions"]][-1] == "Novel subtype rate"
    for d in data["dimensions"]:
        assert list(d) == ["name", "status", "score", "detail"]
        assert d["status"] in {"OK", "WARN", "FAIL", "UNKNOWN"}
        assert isinstance(d["score"], float)


def test_compat_gives_a_number_where_our_json_gives_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_run(tmp_path / "nodb", [tick_v1(n) for n in range(1, 21)])  # no universe.db
    _, ours, _ = run_cli(["quality", str(root), "--format", "json"], capsys)
    fan = next(d for d in json.loads(ours)["dimensions"] if d["key"] == "graph_fanout")
    assert (fan["status"], fan["score"]) == ("N/A", None)
    _, theirs, err = run_cli(
        ["quality", str(root), "--format", "json", "--compat", "token-world"], capsys
    )
    fan = next(d for d in json.loads(theirs)["dimensions"] if d["name"] == "Graph fan-out")
    assert (fan["status"], fan["score"]) == ("UNKNOWN", 0.0)
    assert fan["detail"] == "insufficient history (< 2 checkpoints)"
    # token-world's JSON has no warnings field: ours go to stderr, one line each.
    assert "toolkit quality: warning: no universe.db" in err


def test_compat_empty_or_unreadable_run_is_insufficient_data_with_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = write_run(tmp_path / "broken", [tick_v1(1)])
    (broken / "tick_summaries" / "ticks" / "tick_1.json").write_text("{")
    for root in (empty, broken):
        args = ["quality", str(root), "--format", "json", "--compat", "token-world"]
        code, out, err = run_cli(args, capsys)
        assert code == 0
        assert json.loads(out) == {
            "slug": root.name,
            "window": 50,
            "tick_count": 0,
            "verdict": "INSUFFICIENT_DATA",
            "dimensions": [],
        }
        assert run_cli([*args, "--gate", "fail-only"], capsys)[0] == 0
        assert run_cli([*args, "--gate"], capsys)[0] == 1  # strict: no data is no pass
    assert "tick_1.json" in err  # the unreadable file is named on stderr
    # Without --compat, today's behaviour stays: nothing loadable is bad input.
    assert run_cli(["quality", str(empty), "--format", "json"], capsys)[0] == 2


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--format", "json", "--compat", "tokenworld"], "--compat='tokenworld'"),
        (["--compat", "token-world"], "--compat='token-world': token-world's shape is JSON"),
        (["--format", "html", "--compat", "token-world"], "--compat='token-world'"),
    ],
)
def test_compat_bad_values_exit_2_naming_the_option(
    extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_line_error(*run_cli(["quality", str(HEALTHY), *extra], capsys))
    assert needle in line


# --- --gate fail-only -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("run", "strict", "fail_only"),
    [(HEALTHY, 0, 0), (DEGRADED, 1, 0), (FAILED, 1, 1)],
)
def test_fail_only_gate_fails_only_on_fail(
    run: Path, strict: int, fail_only: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["quality", str(run), "--gate"], capsys)[0] == strict
    assert run_cli(["quality", str(run), "--gate", "strict"], capsys)[0] == strict
    assert run_cli(["quality", str(run), "--gate", "fail-only"], capsys)[0] == fail_only


def test_informational_warn_does_not_fail_the_strict_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 40 ticks, a new verb every 5, no subtype writes: novel subtype rate WARNs (40 >= 30).
    ticks = [
        tick_v1(n, classified_action={"verb": f"v{(n - 1) // 5}", "actor": "mara"})
        for n in range(1, 41)
    ]
    root = write_run(tmp_path / "r", ticks, snapshots=[(10, 10, 10), (20, 10, 11), (40, 10, 12)])
    _, out, _ = run_cli(["quality", str(root), "--format", "json"], capsys)
    statuses = {d["key"]: d["status"] for d in json.loads(out)["dimensions"]}
    assert statuses.pop("novel_subtype_rate") == "WARN"
    assert set(statuses.values()) == {"OK"}
    assert run_cli(["quality", str(root), "--gate"], capsys)[0] == 0


def test_gate_before_the_run_folder_still_means_strict(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["quality", "--gate", str(FAILED)], capsys)[0] == 1
    assert run_cli(["quality", "--gate", str(HEALTHY)], capsys)[0] == 0


def test_bad_gate_mode_exits_2_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*run_cli(["quality", str(HEALTHY), "--gate", "warn"], capsys))
    assert "--gate='warn': must be one of strict, fail-only, regression, none" in line


def test_fleet_fail_only_gate(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["quality", "--all", str(UNIVERSES), "--gate", "fail-only"]
    assert run_cli(args, capsys)[0] == 1  # ashfall FAILs
    # The gate judges every run, also those --only hides.
    assert run_cli([*args, "--only", "HEALTHY"], capsys)[0] == 1


# --- --all DIR --only / --sort ----------------------------------------------------------


def _slugs(out: str) -> list[str]:
    lines = out.splitlines()
    end = next(i for i, line in enumerate(lines) if " runs: " in line or " run: " in line)
    return [line.split()[0] for line in lines[1:end]]


def test_only_keeps_the_runs_with_those_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["quality", "--all", str(UNIVERSES), "--only", "FAILED,DEGRADED"]
    code, out, _ = run_cli(args, capsys)
    assert code == 0 and _slugs(out) == ["ashfall", "harbor-town"]
    code, out, _ = run_cli([*args[:-1], "healthy", "--format", "json"], capsys)
    assert [r["slug"] for r in json.loads(out)["runs"]] == ["willowbrook"]


def test_sort_orders_the_fleet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["quality", "--all", str(UNIVERSES)]
    assert _slugs(run_cli(base, capsys)[1]) == ["ashfall", "harbor-town", "willowbrook"]
    assert _slugs(run_cli([*base, "--sort", "slug"], capsys)[1]) == [
        "ashfall",
        "harbor-town",
        "willowbrook",
    ]
    runs = tmp_path / "runs"
    write_run(runs / "short", [tick_v1(n) for n in range(1, 6)])
    write_run(runs / "long", [tick_v1(n) for n in range(1, 31)])
    write_run(runs / "wedged", [refused_v1(n) for n in range(1, 11)])
    fleet = ["quality", "--all", str(runs)]
    assert _slugs(run_cli([*fleet, "--sort", "ticks"], capsys)[1]) == ["long", "wedged", "short"]
    assert _slugs(run_cli([*fleet, "--sort", "slug"], capsys)[1]) == ["long", "short", "wedged"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--all", str(UNIVERSES), "--only", "FAILED,BROKEN"], "--only='BROKEN'"),
        (["--all", str(UNIVERSES), "--only", ","], "--only=','"),
        (["--all", str(UNIVERSES), "--sort", "size"], "--sort='size': must be one of"),
        ([str(HEALTHY), "--only", "FAILED"], "--only='FAILED': applies to a fleet"),
        ([str(HEALTHY), "--sort", "slug"], "--sort='slug': applies to a fleet"),
    ],
)
def test_bad_fleet_options_exit_2_naming_option_and_value(
    extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = one_line_error(*run_cli(["quality", *extra], capsys))
    assert needle in line


# --- --diff RUN_B -----------------------------------------------------------------------


def node_link(nodes: list[str], edges: list[tuple[str, str]]) -> str:
    """A graph as networkx's node-link JSON (the engine's graph_json)."""
    return json.dumps(
        {
            "directed": True,
            "multigraph": False,
            "graph": {},
            "nodes": [{"id": n, "type": "entity"} for n in nodes],
            "edges": [{"source": a, "target": b} for a, b in edges],
        }
    )


def run_with_graphs(root: Path, n_ticks: int, graphs: dict[int, str]) -> Path:
    write_run(root, [tick_v1(n) for n in range(1, n_ticks + 1)])
    with sqlite3.connect(root / "universe.db") as conn:
        conn.executescript(SNAPSHOTS_DDL)
        for tick, graph in graphs.items():
            conn.execute(
                "INSERT INTO graph_snapshots (tick_id, graph_json, node_count, edge_count)"
                " VALUES (?, ?, 0, 0)",
                (tick, graph),
            )
    conn.close()
    return root


def test_diff_shows_both_scorecards_and_the_graph_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = run_with_graphs(
        tmp_path / "a",
        20,
        {
            1: node_link(["mara", "well"], []),
            20: node_link(["mara", "well", "mill"], [("mara", "well")]),
        },
    )
    b = run_with_graphs(
        tmp_path / "b",
        20,
        {
            5: node_link(["mara", "well", "mill"], [("mara", "well")]),
            10: node_link(["mara", "mill"], [("mara", "mill"), ("mill", "mara")]),
        },
    )
    code, out, _ = run_cli(["quality", str(a), "--diff", str(b), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert (data["a"]["slug"], data["b"]["slug"]) == ("a", "b")
    assert data["graph"]["a"] == {
        "from_tick": 1,
        "to_tick": 20,
        "nodes_added": ["mill"],
        "nodes_removed": [],
        "edges_added": ["mara->well"],
        "edges_removed": [],
        "edges_removed_with_nodes": [],
        "property_changes": [],
    }
    assert data["graph"]["b"]["edges_added"] == ["mara->mill", "mill->mara"]
    assert data["graph"]["b"]["edges_removed"] == ["mara->well"]
    assert data["graph"]["b"]["edges_removed_with_nodes"] == ["mara->well"]  # well is gone
    assert data["graph"]["b"]["nodes_removed"] == ["well"]
    # A's last snapshot (tick 20) to B's last (tick 10).
    assert data["graph"]["a_to_b"]["from_tick"] == 20 and data["graph"]["a_to_b"]["to_tick"] == 10
    assert data["graph"]["a_to_b"]["nodes_removed"] == ["well"]
    code, out, _ = run_cli(["quality", str(a), "--diff", str(b)], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("a vs b")
    assert "  b: ticks 5 -> 10: nodes +0 -1, edges +2 -1" in out
    assert "    edges added: mara->mill, mill->mara" in out


def test_diff_of_the_samples_names_the_status_changes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["quality", str(FAILED), "--diff", str(HEALTHY)], capsys)
    assert code == 0
    assert "  Character stability: FAIL -> OK" in out
    assert "  Groundedness:" not in out  # OK in both runs: not a change
    assert sum(line.startswith("  ashfall: ticks ") for line in out.splitlines()) == 1
    assert max(len(line) for line in out.splitlines()) <= 100


def test_diff_without_snapshots_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a", [tick_v1(n) for n in range(1, 6)])
    code, out, _ = run_cli(["quality", str(a), "--diff", str(HEALTHY)], capsys)
    assert code == 0
    assert "  a: no universe.db" in out and "a -> willowbrook: a run has no snapshots" in out


def test_diff_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(*run_cli(["quality", str(HEALTHY), "--diff", "/no/run"], capsys))
    assert "/no/run: no such run folder" in line
    bad = run_with_graphs(tmp_path / "bad", 20, {1: "{nodes", 20: node_link(["x"], [])})
    line = one_line_error(*run_cli(["quality", str(bad), "--diff", str(HEALTHY)], capsys))
    assert "graph_snapshots[tick_id=1].graph_json='{nodes': not valid JSON" in line
