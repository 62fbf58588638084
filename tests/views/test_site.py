"""The data files of ``toolkit view``'s site: what the index, the run files and the search
shards hold, that they are safe inside a script, and that a rewrite replaces only the
site's own data."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import COMPARE_RESULT

from toolkit.errors import InputError
from toolkit.fleet.view import collect
from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import (
    SHARD_ROWS,
    EvidenceRow,
    SiteItem,
    SiteRun,
    severity,
    threshold_value,
    write_site,
)

CALL = re.compile(r"^window\.__tk\.(\w+)\((.*)\);\n$", re.S)


def _payload(path: Path) -> tuple[str, list[Any]]:
    """The call name and its arguments, read back from a data script as JSON."""
    match = CALL.match(path.read_text(encoding="utf-8"))
    assert match, f"{path} is not one window.__tk call"
    return match.group(1), json.loads(f"[{match.group(2)}]")


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    from conftest import SAMPLE_RUNS

    collected = collect([SAMPLE_RUNS])
    site = tmp_path_factory.mktemp("site")
    write_site(collected.runs, site, notes=collected.notes)
    return collected, site


def _card(subject: str, detail: str = "1/1 fine") -> Scorecard:
    dims = [Dimension("dim_a", "Dim A", 0.5, "WARN", detail, ">= 0.9", "< 0.2")]
    return Scorecard(
        rubric="test",
        rubric_version="0.1.0",
        subject=subject,
        title=f"Run {subject}",
        verdict="DEGRADED",
        verdict_reason="warn: Dim A",
        dimensions=Scorecard.dimensions_frame(subject, dims),
    )


def test_every_family_of_the_samples_is_found_once_per_run_iteration_game_and_chat(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    families = Counter(r.family for r in collected.runs)
    # 16 fleet runs + 3 universes + the compare pair's 24 + 12 runs; tally-loop's 6
    # iterations; 3 game files + the 3 games of baseline/games.db; 3 chat files (two forms
    # of week 1, and week 2), each scored by the persona kit beside them: 4 agents and the
    # environment. Outcome: also the 48 eval-harness runs of sample_runs/eval_runs (two
    # agents x 8 tasks x 3), each shown by its one iteration.
    assert families == {"simulation": 55, "outcome": 6 + 48, "discussion": 6, "persona": 15}
    ids = [r.id for r in collected.runs]
    assert len(set(ids)) == len(ids)
    assert "sample_runs/universes/ashfall" in ids
    assert "sample_runs/iteration_logs/tally-loop/iter-5" in ids


def test_files_that_are_not_runs_are_left_out_with_a_note_naming_them(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    notes = "\n".join(collected.notes)
    assert "planted.json" in notes
    # Experiment results are found (the experiments' page), not noted as files left out;
    # the reference table beside them is noted as one.
    assert "harbour_council_gate.json" not in notes
    assert "harbour_council_reference.json: a reference table, not results" in notes
    assert sorted(e["source"].rsplit("/", 1)[-1] for e in collected.experiments) == [
        "harbour_council_gate.json", "harbour_council_office_report.json",
        "lantern_fair_arms.json", "orchard_variety.csv",
    ]  # fmt: skip
    # The persona kit's cassette and baselines score the chats: they are not noted as games.
    assert "cassette.json" not in notes and "baselines/lenny.json" not in notes
    # No chats, so never tried as chats: the gate's correction log and the coding agent's
    # session transcript beside the iteration log (attached to its iteration instead).
    assert "gate-corrections.jsonl" not in notes and "transcripts/" not in notes
    assert "not a persona chat" not in notes


def test_index_rows_name_each_run_and_point_at_its_file(samples: tuple[Any, Path]) -> None:
    collected, site = samples
    call, (man,) = _payload(site / "data" / "manifest.js")
    # 46 runs, logs, games and chats' scorecards, the compare pair (24 + 12 runs) and the
    # 48 eval-harness runs
    assert call == "manifest" and man["runs"] == len(collected.runs) == 82 + 48
    assert man["index_shards"] == 1 and man["search_shards"] == 1
    _, (shard, rows) = _payload(site / "data" / "index-0.js")
    assert shard == 0 and len(rows) == 82 + 48
    cols = man["columns"]
    by_id = {r[cols.index("id")]: dict(zip(cols, r, strict=True)) for r in rows}
    ashfall = by_id["sample_runs/universes/ashfall"]
    assert (ashfall["family"], ashfall["rubric"], ashfall["verdict"]) == (
        "simulation",
        "simulation",
        "FAILED",
    )
    dims = man["dimsets"][ashfall["statuses"][0]]
    statuses = dict(zip((k for k, _ in dims), ashfall["statuses"][1:], strict=True))
    assert statuses["character_stability"] == "FAIL" and len(statuses) == 8
    assert ["character_stability", "Character stability"] in dims
    assert ashfall["size"] > 0 and ashfall["time"] == "2026-11-20T23:41:08Z"
    for row in by_id.values():
        call, (run_id, doc) = _payload(site / "data" / "run" / f"{row['file']}.js")
        assert call == "run" and run_id == row["id"] == doc["id"]
        # Evidence rows are a series over the run except a persona dimension's propositions.
        assert doc["series"] is (row["family"] != "persona")


def _names_items(item: str | None, keys: set[str]) -> bool:
    """An evidence row's item is none, one item's key, a window ``FROM-TO`` of two, or a
    comma-separated list of those."""
    if item is None:
        return True
    for part in item.split(","):
        cuts = [i for i, c in enumerate(part) if c == "-"]
        if part not in keys and not any(part[:i] in keys and part[i + 1 :] in keys for i in cuts):
            return False
    return True


def _items(site: Path, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A run's transcript: its own, or the shared one its document names."""
    if doc["transcript"] is None:
        return list(doc["items"])
    assert doc["items"] == []
    call, (file, items) = _payload(site / "data" / "transcript" / f"{doc['transcript']}.js")
    assert call == "transcript" and file == doc["transcript"]
    return list(items)


def test_every_evidence_row_points_at_an_item_of_its_own_run(samples: tuple[Any, Path]) -> None:
    _, site = samples
    checked = windows = 0
    for path in sorted((site / "data" / "run").glob("*.js")):
        _, (_, doc) = _payload(path)
        keys = {i["key"] for i in _items(site, doc)}
        for dim in doc["dims"]:
            for _label, _value, _status, _note, item in dim["evidence"]:
                assert _names_items(item, keys), (doc["id"], dim["key"], item)
                checked += item is not None
                windows += item is not None and item not in keys
    assert checked > 1000 and windows > 100  # the persona propositions' message windows


def _notes(dim: dict[str, Any]) -> list[str]:
    """Each evidence row's note as the page shows it: its own, or (``null``) the text its
    dimension stores once as ``each`` followed by the row's label."""
    return [dim["each"] + e[0] if e[3] is None else e[3] for e in dim["evidence"]]


def test_a_note_every_row_shares_is_stored_once_and_reads_back_whole(
    samples: tuple[Any, Path],
) -> None:
    """Every evidence row of every run reads back the note the viewer gave it (a note
    its rows share is stored once as ``each``); a simulation dimension's per-tick series
    is its chart (``points``), no longer 50 evidence rows that differ only in their tick."""
    collected, site = samples
    files = {}
    _, (_, rows) = _payload(site / "data" / "index-0.js")
    _, (man,) = _payload(site / "data" / "manifest.js")
    for row in rows:
        files[row[0]] = row[man["columns"].index("file")]
    for run in collected.runs:
        _, (_, doc) = _payload(site / "data" / "run" / f"{files[run.id]}.js")
        for dim in doc["dims"]:
            want = [e.note for e in run.evidence.get(dim["key"], ())]
            assert _notes(dim) == want, (run.id, dim["key"])
    _, (_, ashfall) = _payload(
        site / "data" / "run" / f"{files['sample_runs/universes/ashfall']}.js"
    )
    ground = next(d for d in ashfall["dims"] if d["key"] == "groundedness")
    # ashfall has 64 ticks (101-164): one chart point each, the first window is tick 101 alone.
    assert len(ground["points"]) == 64
    assert ground["points"][0] == ["tick 101", 1.0, "OK", None, "tick-101"]
    assert len(ground["evidence"]) < 64


def test_only_a_note_shared_by_two_rows_or_more_is_stored_once(tmp_path: Path) -> None:
    rows = (
        EvidenceRow("tick 1", 0.5, "WARN", "Dim A over the window ending at tick 1", "tick-1"),
        EvidenceRow("tick 2", 0.6, "WARN", "Dim A over the window ending at tick 2", "tick-2"),
        EvidenceRow("tick 3", 0.7, "OK", "a note of its own", "tick-3"),
        EvidenceRow("tick 4", None, None, "", "tick-4"),
    )
    lone = (EvidenceRow("Ana ~ Ben", 0.4, None, "similarity of Ana ~ Ben", None),)
    runs = [
        SiteRun(id="r1", family="simulation", card=_card("r1"), evidence={"dim_a": rows}),
        SiteRun(id="r2", family="discussion", card=_card("r2"), evidence={"dim_a": lone}),
    ]
    write_site(runs, tmp_path / "site")
    docs = {}
    for path in (tmp_path / "site" / "data" / "run").glob("*.js"):
        _, (run_id, doc) = _payload(path)
        docs[run_id] = doc["dims"][0]
    r1, r2 = docs["r1"], docs["r2"]
    assert r1["each"] == "Dim A over the window ending at "
    assert [e[3] for e in r1["evidence"]] == [None, None, "a note of its own", ""]
    assert _notes(r1) == [e.note for e in rows]
    assert r2["each"] is None and r2["evidence"][0][3] == "similarity of Ana ~ Ben"


def test_a_simulation_dimensions_series_ends_at_the_scorecards_value(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    run = next(r for r in collected.runs if r.id == "sample_runs/universes/ashfall")
    value = run.card.dimensions.filter(pl.col("dimension") == "character_stability")["value"][0]
    rows = run.charts["character_stability"]
    assert rows[-1].label == "tick 164" and rows[-1].value == pytest.approx(value)
    assert rows[-1].item == "tick-164"
    assert any(i.key == "tick-164" and i.who for i in run.items)


def test_discussion_evidence_cites_the_messages_the_rubric_flagged(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    game = next(r for r in collected.runs if r.id.endswith("game-role-repetition.json"))
    breaks = [e for e in game.evidence["role_consistency"] if e.status == "FAIL"]
    assert breaks and all(e.item and e.note for e in breaks)
    assert any("accuses" in e.note for e in breaks)
    repeats = game.evidence["anti_repetition"]
    assert repeats and all(e.value is not None and e.value > 0 for e in repeats)


def test_outcome_evidence_is_the_signal_over_the_logs_iterations(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    it5 = next(r for r in collected.runs if r.id.endswith("tally-loop/iter-5"))
    rows = it5.evidence["tests"]
    assert [r.item for r in rows] == [f"iter-{n}" for n in range(1, 7)]
    own = next(r for r in rows if r.item == "iter-5")
    assert "weight" in own.note  # the iteration's own row says what it added to the score


def test_search_text_holds_actions_messages_and_summaries(samples: tuple[Any, Path]) -> None:
    _, site = samples
    _, (_, start, texts, shared, _cal) = _payload(site / "data" / "search-0.js")
    assert start == 0 and len(texts) == 82 + 48
    joined = "\n".join(t if isinstance(t, str) else t[0] for t in texts)
    joined += "\n".join(shared.values())
    assert "tobin goes to the mill to take the bread." in joined  # a tick's action
    assert "add csv reader for tally records" in joined  # an iteration's summary
    assert joined == joined.lower()


def test_persona_chats_are_scored_with_the_kit_beside_them(samples: tuple[Any, Path]) -> None:
    collected, _ = samples
    chats = {r.id: r for r in collected.runs if r.family == "persona"}
    week2 = "sample_runs/persona/radio-week2.jsonl/"
    assert {k[len(week2) :] for k in chats if k.startswith(week2)} == {
        "mags", "otis", "priya", "lenny", "environment"
    }  # fmt: skip
    lenny = chats[week2 + "lenny"]
    # The persona rubric's verdict with the recorded judge and the baselines of the kit
    # (what `toolkit persona ... --baseline` says: Lenny regressed on three dimensions).
    assert lenny.card is not None and lenny.card.verdict == "FAILED"
    assert lenny.card.rubric == "persona" and "recorded:cassette.json" in lenny.card.meta["judge"]
    failing = lenny.card.dimensions.filter(pl.col("status") == "FAIL")["dimension"].to_list()
    assert failing == ["adherence", "consistency", "fluency"]
    assert chats[week2 + "mags"].card.verdict == "HEALTHY"  # type: ignore[union-attr]
    # Each proposition is a row: its 0-9 score, the claim and the judge's reasoning, linked
    # to the window of messages the judge read.
    rows = {e.label: e for e in lenny.evidence["consistency"]}
    same = rows["same-register"]
    assert same.value == 0.0 and "judge said 0" in same.note
    assert "0% of the later messages" in same.note  # the cassette's reasoning
    # The steps of the trajectory rows the judge read: runs of consecutive rows.
    assert same.item == "s1-s6,s26-s31" and "judged on 12 message(s), s1-s6,s26-s31" in same.note
    keys = {i.key for i in lenny.items}
    assert _names_items(same.item, keys) and len(lenny.items) == 31
    # The weighted mean of the propositions is the scorecard's value.
    value = lenny.card.dimensions.filter(pl.col("dimension") == "consistency")["value"][0]
    assert value == pytest.approx(0.0)


def test_a_chat_without_a_kit_is_shown_unscored_and_with_a_given_kit_scored(
    tmp_path: Path,
) -> None:
    from conftest import SAMPLE_RUNS

    from toolkit.fleet.families import PersonaKit

    kit_dir = SAMPLE_RUNS / "persona"
    chat = tmp_path / "radio-week2.jsonl"
    chat.write_bytes((kit_dir / "radio-week2.jsonl").read_bytes())
    bare = collect([tmp_path])
    assert [(r.id, r.card) for r in bare.runs] == [(f"{tmp_path.name}/radio-week2.jsonl", None)]
    assert "no persona kit" in bare.runs[0].note and bare.runs[0].items
    kit = PersonaKit(str(kit_dir / "propositions"), str(kit_dir / "cassette.json"),
                     str(kit_dir / "personas.yaml"), str(kit_dir / "baselines"))  # fmt: skip
    given = collect([tmp_path], kit=kit)
    assert len(given.runs) == 5 and all(r.card is not None for r in given.runs)
    # A chat the cassette has no recording for is shown unscored, naming why (no live call).
    chat.write_text(chat.read_text(encoding="utf-8").replace(" the ", " a "), encoding="utf-8")
    missed = collect([tmp_path], kit=kit)
    assert [r.card for r in missed.runs] == [None]
    assert "no recording for proposition" in missed.runs[0].note
    assert any("shown unscored" in n for n in missed.notes)


def test_hostile_text_cannot_close_the_data_script_and_reads_back_unchanged(
    tmp_path: Path,
) -> None:
    hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)> & \u2028"
    run = SiteRun(
        id="evil</script>",
        family="discussion",
        card=_card("evil", detail=hostile),
        items=(SiteItem("m1", "turn 1", who=hostile, text=hostile),),
        evidence={"dim_a": (EvidenceRow("turn 1", 1.0, "FAIL", hostile, "m1"),)},
    )
    write_site([run], tmp_path)
    for path in (tmp_path / "data").rglob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert "<" not in text and ">" not in text and "\u2028" not in text
    _, (run_id, doc) = _payload(tmp_path / "data" / "run" / "000000.js")
    assert run_id == "evil</script>"
    assert doc["items"][0]["text"] == hostile and doc["dims"][0]["detail"] == hostile


def test_index_is_sharded_and_rewriting_removes_the_old_runs(tmp_path: Path) -> None:
    runs = [SiteRun(id=f"r{n}", family="simulation", card=_card(f"r{n}")) for n in range(3)]
    write_site(runs, tmp_path)
    assert len(list((tmp_path / "data" / "run").glob("*.js"))) == 3
    write_site(runs[:1], tmp_path)
    assert len(list((tmp_path / "data" / "run").glob("*.js"))) == 1
    _, (man,) = _payload(tmp_path / "data" / "manifest.js")
    assert man["runs"] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers
    assert SHARD_ROWS >= 1000


def test_a_folder_whose_data_is_not_a_sites_is_refused_and_kept(tmp_path: Path) -> None:
    mine = tmp_path / "data" / "precious.txt"
    mine.parent.mkdir()
    mine.write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="not a toolkit site"):
        write_site([SiteRun(id="r", family="simulation", card=_card("r"))], tmp_path)
    assert mine.read_text(encoding="utf-8") == "keep me"


def test_two_runs_with_one_id_are_refused(tmp_path: Path) -> None:
    run = SiteRun(id="same", family="simulation", card=_card("same"))
    with pytest.raises(ValueError, match="same"):
        write_site([run, run], tmp_path)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [(">= 0.95", 0.95), ("< 5", 5.0), ("<= -0.02", -0.02), ("never", None),
     ("streak >= 15 and refuse_rate <= 1.5", None), ("", None)],
)  # fmt: skip
def test_only_a_one_number_rule_becomes_a_threshold_line(text: str, expected: float | None) -> None:
    assert threshold_value(text) == expected


def test_verdicts_of_every_rubric_sort_by_one_severity() -> None:
    assert severity("FAILED") == severity("FAIL") == severity("poor") == 0
    assert severity("DEGRADED") == severity("WARN") == 1
    assert severity("N/A") == severity("INSUFFICIENT_DATA") == 2
    assert severity("HEALTHY") == severity("PASS") == severity("excellent") == 3


def test_a_discussion_per_message_series_ends_at_the_scorecards_value(
    samples: tuple[Any, Path],
) -> None:
    collected, _ = samples
    games = [r for r in collected.runs if r.family == "discussion"]
    checked = 0
    for game in games:
        for key in ("strategic_depth", "coherence", "role_consistency"):
            rows = game.evidence[key]
            value = game.card.dimensions.filter(pl.col("dimension") == key)["value"][0]
            if rows and value is not None:
                assert rows[-1].value == pytest.approx(value), (game.id, key)
                checked += 1
    assert checked >= 12


def test_a_comparison_is_written_beside_the_runs_and_named_in_the_manifest(
    tmp_path: Path,
) -> None:
    runs = [SiteRun(id=f"{arm}/r", family="simulation", card=_card("r")) for arm in "ab"]
    write_site(runs, tmp_path, compare=COMPARE_RESULT)
    _, (man,) = _payload(tmp_path / "data" / "manifest.js")
    assert man["compare"] is True
    call, (doc,) = _payload(tmp_path / "data" / "compare.js")
    assert call == "compare" and doc == COMPARE_RESULT
    write_site(runs, tmp_path)
    assert not (tmp_path / "data" / "compare.js").exists()


def test_load_compare_refuses_what_is_not_a_comparison(tmp_path: Path) -> None:
    from toolkit.fleet.view import load_compare

    good = tmp_path / "c.json"
    good.write_text(json.dumps(COMPARE_RESULT), encoding="utf-8")
    assert load_compare(good)["family"] == "simulation"
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"rubric": "simulation", "dimensions": []}), encoding="utf-8")
    with pytest.raises(InputError, match=r"card\.json: rubric='simulation': not a toolkit compare"):
        load_compare(card)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**COMPARE_RESULT, "flips": [{"both_pass": 1}]}), encoding="utf-8")
    with pytest.raises(InputError, match="flips"):
        load_compare(bad)


def test_a_calibration_result_loads_with_and_without_the_optional_fields(tmp_path: Path) -> None:
    from calibration_fixture import calibrate_json, calibration_result

    from toolkit.fleet.view import load_calibration

    for n, doc in enumerate((calibrate_json(), calibration_result())):
        path = tmp_path / f"c{n}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        assert load_calibration(path)["disagreements"] == doc["disagreements"]
    path = tmp_path / "compare.json"
    path.write_text(json.dumps(COMPARE_RESULT), encoding="utf-8")
    with pytest.raises(InputError, match=r"rubric='compare': not a toolkit calibrate"):
        load_calibration(path)
    bad = calibrate_json()
    bad["disagreements"][0]["notes"] = "one string"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InputError, match=r"disagreements\[0\]\.notes='one string'"):
        load_calibration(path)


def test_each_disagreement_links_to_its_run_and_anchor_when_the_site_holds_it(
    samples: tuple[Any, Path],
) -> None:
    from calibration_fixture import calibration_result

    from toolkit.fleet.view import calibration_links

    collected, _ = samples
    links = calibration_links(calibration_result(), collected.runs)
    week2 = "sample_runs/persona/radio-week2.jsonl"
    assert links[0] == {"run": f"{week2}/lenny", "item": "s1-s5,s26-s31", "why": ""}  # windows
    assert links[1] == {"run": f"{week2}/lenny", "item": "s3", "why": ""}  # one message
    # A run of the site, an anchor not in it: the run, saying why.
    assert links[2]["run"] == "sample_runs/persona/radio-week1.jsonl/environment"
    assert links[2]["item"] is None and "no item no-such-anchor" in links[2]["why"]
    assert links[3] == {
        "run": None,
        "why": "elsewhere/not-in-this-site.jsonl is not a run of this site",
    }
    assert links[4] == {"run": f"{week2}/mags", "item": None, "why": ""}  # the agent named
    assert all(link["run"] is None for link in links[5:])  # no source: shown unlinked
    # The same file named by another path to it is the same run.
    absolute = calibration_result()
    absolute["disagreements"][0]["source"] = str(Path(week2).resolve())
    assert calibration_links(absolute, collected.runs)[0]["run"] == f"{week2}/lenny"


def test_a_calibration_json_beside_the_runs_is_found_and_written_as_its_page(
    tmp_path: Path,
) -> None:
    from calibration_fixture import calibration_result
    from conftest import SAMPLE_RUNS

    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "game-pass.json").write_bytes(
        (SAMPLE_RUNS / "discussions" / "game-pass.json").read_bytes()
    )
    (folder / "calibration.json").write_text(json.dumps(calibration_result()), encoding="utf-8")
    (folder / "old.calibration.json").write_text(json.dumps(calibration_result()), "utf-8")
    collected = collect([folder])
    assert [r.family for r in collected.runs] == ["discussion"]  # not taken for a game
    assert collected.calibration is not None
    assert collected.calibration_source == str(folder / "calibration.json")
    assert any(
        "calibration not shown" in n and "old.calibration.json" in n for n in collected.notes
    )
    site = tmp_path / "site"
    write_site(collected.runs, site, calibration={**collected.calibration, "links": []})
    _, (man,) = _payload(site / "data" / "manifest.js")
    call, (doc,) = _payload(site / "data" / "calibration.js")
    assert man["calibration"] is True and call == "calibration"
    assert doc["alpha_humans"] == collected.calibration["alpha_humans"]
    write_site(collected.runs, site)
    assert not (site / "data" / "calibration.js").exists()


def test_a_chats_transcript_is_written_once_and_its_runs_refer_to_it(
    samples: tuple[Any, Path],
) -> None:
    from conftest import SAMPLE_RUNS

    from toolkit.load.persona import load_chat

    _, site = samples
    chat = load_chat(SAMPLE_RUNS / "persona" / "radio-week2.jsonl")
    longest = max(chat.messages["text"].to_list(), key=len)
    as_written = json.dumps(longest, ensure_ascii=False)[1:-1].replace("<", "\\u003c")
    as_written = as_written.replace(">", "\\u003e").replace("&", "\\u0026")
    files = sorted((site / "data").rglob("*.js"))
    holding = [p.relative_to(site / "data").as_posix() for p in files
               if as_written in p.read_text(encoding="utf-8")]  # fmt: skip
    # Once, in the shared transcript (and once in its raw records, read only when a raw
    # record is opened); not in the five runs (four agents and the environment) that
    # show it; and searched once (lower-cased).
    shared = holding[-1].removeprefix("transcript/").removesuffix(".js")
    assert holding == [f"raw/{shared}.js", f"transcript/{shared}.js"], holding
    search = (site / "data" / "search-0.js").read_text(encoding="utf-8")
    assert search.count(as_written.lower()) == 1
    docs = [_payload(p)[1][1] for p in sorted((site / "data" / "run").glob("*.js"))]
    week2 = [d for d in docs if d["id"].startswith("sample_runs/persona/radio-week2.jsonl/")]
    assert len(week2) == 5 and {d["transcript"] for d in week2} == {shared}
    assert [i["text"] for i in _items(site, week2[0])] == chat.messages["text"].to_list()
    # An iteration log's timeline too: once for its six iterations.
    logs = [d for d in docs if d["family"] == "outcome" and "/eval_runs/" not in d["id"]]
    assert len(logs) == 6 and len({d["transcript"] for d in logs}) == 1


def test_runs_that_share_a_transcript_must_show_the_same_items(tmp_path: Path) -> None:
    a = SiteRun("a", "persona", _card("a"), items=(SiteItem("s1", "step 1", text="hi"),),
                transcript="chat")  # fmt: skip
    b = SiteRun("b", "persona", _card("b"), items=(SiteItem("s1", "step 1", text="bye"),),
                transcript="chat")  # fmt: skip
    with pytest.raises(ValueError, match="differ in items"):
        write_site([a, b], tmp_path)


def test_search_covers_the_judges_reasoning_and_the_calibrations_disagreements(
    samples: tuple[Any, Path], tmp_path: Path
) -> None:
    from conftest import SAMPLE_RUNS

    from toolkit.fleet.view import calibration_links, load_calibration

    collected, _ = samples
    lenny = next(r for r in collected.runs if r.id.endswith("radio-week2.jsonl/lenny"))
    said = {e.said for rows in lenny.evidence.values() for e in rows if e.said}
    # The cassette's reasoning for same-register, as the judge recorded it.
    assert any("0% of the later messages" in s for s in said)
    doc = load_calibration(SAMPLE_RUNS / "calibration" / "persona" / "calibration.json")
    calibration = {**doc, "links": calibration_links(doc, collected.runs)}
    write_site(collected.runs, tmp_path, calibration=calibration)
    _, (_, _, texts, _shared, cal) = _payload(tmp_path / "data" / "search-0.js")
    own = {r.id: (t if isinstance(t, str) else t[0]) for r, t in zip(collected.runs, texts,
                                                                     strict=True)}  # fmt: skip
    assert all(s.lower() in own[lenny.id] for s in said)
    # Each disagreement's words are searched: on its own, and in the run it links to.
    first = doc["disagreements"][0]
    assert [c[0] for c in cal] == [d["item"] for d in doc["disagreements"]]
    assert first["reasoning"].lower() in cal[0][1]
    assert first["notes"][0]["note"].lower() in cal[0][1]
    assert first["reasoning"].lower() in own[calibration["links"][0]["run"]]


def test_the_samples_calibration_is_found_and_each_disagreement_links_to_its_chat(
    samples: tuple[Any, Path],
) -> None:
    from conftest import SAMPLE_RUNS

    from toolkit.fleet.view import calibration_links

    collected, _ = samples
    assert collected.calibration_source == str(
        SAMPLE_RUNS / "calibration" / "persona" / "calibration.json"
    )
    doc = collected.calibration
    assert doc is not None and len(doc["disagreements"]) == 10
    for row, link in zip(doc["disagreements"], calibration_links(doc, collected.runs),
                         strict=True):  # fmt: skip
        # The chat the item was rated on, the agent's run of it, at the window rated.
        assert link == {"run": f"{row['source']}/{row['agent'].lower()}", "item": row["anchor"],
                        "why": ""} or row["source"] not in link["run"], (row, link)  # fmt: skip
        assert link["run"].startswith("sample_runs/persona/radio-week")


def test_an_agent_transcript_is_shown_on_its_iteration_and_a_loose_one_noted(
    samples: tuple[Any, Path], tmp_path: Path
) -> None:
    from conftest import SAMPLE_RUNS

    collected, _ = samples
    it4 = next(r for r in collected.runs if r.id.endswith("tally-loop/iter-4"))
    facts = {i.key: dict(i.facts) for i in it4.items}
    path = "sample_runs/iteration_logs/transcripts/4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10.jsonl"
    # iter-4 and iter-5 name that session (agent.session_id); iter-6 another one.
    assert facts["iter-4"]["agent transcript"].endswith(path)
    assert facts["iter-5"]["agent transcript"].endswith(path)
    assert "agent transcript" not in facts["iter-6"]
    # Scored as `toolkit outcome LOG --transcripts FOLDER` scores it.
    from toolkit.load.iterlog import load_iteration_log
    from toolkit.load.outcome_evidence import collect_outcome_evidence
    from toolkit.rubrics.outcome import load_outcome_rubric, score_outcome

    log = load_iteration_log(SAMPLE_RUNS / "iteration_logs" / "tally-loop")
    evidence = collect_outcome_evidence(
        log, transcripts=[SAMPLE_RUNS / "iteration_logs" / "transcripts"]
    )
    cards = score_outcome(log, evidence, load_outcome_rubric(None)).scorecards()
    expected = next(c for c in cards if c.meta["iteration"] == 4)
    assert it4.card is not None
    assert it4.card.dimensions.equals(expected.dimensions)
    assert "no transcripts given" not in " ".join(it4.card.dimensions["detail"].to_list())
    loose = tmp_path / "runs"
    (loose / "transcripts").mkdir(parents=True)
    (loose / "game-pass.json").write_bytes(
        (SAMPLE_RUNS / "discussions" / "game-pass.json").read_bytes()
    )
    (loose / "transcripts" / Path(path).name).write_text("{}\n", encoding="utf-8")
    got = collect([loose])
    assert [r.family for r in got.runs] == ["discussion"]
    assert got.notes == [
        "agent transcript(s) not shown: no iteration log of this site names their session "
        f"(agent.session_id): {loose / 'transcripts' / Path(path).name}"
    ]


def test_a_calibration_with_odd_field_types_is_still_searched(tmp_path: Path) -> None:
    run = SiteRun("a", "persona", _card("a"))
    calibration = {
        "disagreements": [
            {"item": 7, "reasoning": 12, "notes": [{"rater": "r", "note": None}], "evidence": ""}
        ],
        "links": [{"run": "a", "item": None, "why": ""}],
    }
    write_site([run], tmp_path, calibration=calibration)
    _, (_, _, texts, _, cal) = _payload(tmp_path / "data" / "search-0.js")
    assert cal == [["7", "7\n12"]] and "\n12" in texts[0]


def test_two_chats_of_one_name_in_two_folders_keep_their_own_transcripts(tmp_path: Path) -> None:
    from conftest import SAMPLE_RUNS

    kit = SAMPLE_RUNS / "persona"
    for week, folder in (("week1", "a"), ("week2", "b")):
        target = tmp_path / folder / "runs"
        target.mkdir(parents=True)
        shutil.copytree(kit / "propositions", target / "propositions")
        shutil.copy(kit / "cassette.json", target / "cassette.json")
        shutil.copy(kit / f"radio-{week}.jsonl", target / "radio.jsonl")
    collected = collect([tmp_path / "a" / "runs", tmp_path / "b" / "runs"])
    # Both sources are named "runs": the second chat's rows get "~2", their own transcript.
    assert len(collected.runs) == 10 and len({r.transcript for r in collected.runs}) == 2
    site = tmp_path / "site"
    write_site(collected.runs, site)
    assert len(list((site / "data" / "transcript").glob("*.js"))) == 2


def test_ctrl_c_between_the_two_renames_of_the_swap_leaves_a_whole_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write_site([], site)
    assert (site / "data" / "manifest.js").is_file()
    real_rename = Path.rename
    renames: list[Path] = []

    def interrupted(self: Path, target: Any) -> Path:
        renames.append(self)
        if len(renames) == 2:  # the new folder, into data/: Ctrl-C arrives first
            raise KeyboardInterrupt
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_site([], site)
    monkeypatch.undo()
    assert (site / "data" / "manifest.js").is_file()  # the previous site, whole
