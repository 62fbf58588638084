"""`toolkit calibrate` over a rated persona session (issue 27): the session's items rebuilt
from the chats, the judge replayed from a cassette with zero calls, the humans' ratings
joined on the text hash they rated, and the one ``calibrate()``.

The sample session (sample_runs/make_calibration.py, ``persona/``) plants a judge lenient
by +1 on Lenny and six misreads; every expected value is read from its planted.json,
never from the code under test."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.judge import (
    CassetteMiss,
    JudgeRequest,
    JudgeResult,
    RecordedJudge,
    RecordingJudge,
    build_prompt,
)
from toolkit.load.item_ratings import load_item_ratings
from toolkit.ratings.store import RatingStore, Save, SessionItem
from toolkit.rubrics.calibrate import calibrate
from toolkit.rubrics.persona_calibration import persona_calibration_frame
from toolkit.rubrics.persona_items import PersonaItem, items_of_files

SESSION = SAMPLE_RUNS / "calibration" / "persona"
PLANTED = json.loads((SESSION / "planted.json").read_text(encoding="utf-8"))
ROOT = SAMPLE_RUNS.parent
CHATS = [str(ROOT / c) for c in PLANTED["chats"]]
PROPOSITIONS = ROOT / PLANTED["propositions"]


class CountingJudge:
    """A judge that counts the calls that reach it (and answers 0, never used here)."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.calls += 1
        return [JudgeResult(0, "live") for _ in requests]


@pytest.fixture(scope="module")
def items() -> list[PersonaItem]:
    return items_of_files(CHATS, PROPOSITIONS)


@pytest.fixture(scope="module")
def ratings() -> pl.DataFrame:
    return load_item_ratings(SESSION / "ratings.csv")


@pytest.fixture(scope="module")
def frame(items: list[PersonaItem], ratings: pl.DataFrame) -> pl.DataFrame:
    return persona_calibration_frame(items, ratings, RecordedJudge(SESSION / "cassette.json"))


def test_the_planted_lenience_is_recovered_within_a_tenth(frame: pl.DataFrame) -> None:
    result = calibrate(frame, judge=PLANTED["judge"], seed=0)
    bias = {
        row["value"]: row["bias"]
        for row in result.bias.filter(pl.col("group") == "agent").iter_rows(named=True)
    }
    lenient = PLANTED["lenient_agent"]
    assert bias[lenient] == pytest.approx(PLANTED["bias"], abs=0.1)
    for agent, value in bias.items():
        if agent != lenient:
            assert value == pytest.approx(0.0, abs=0.1), agent


def test_the_planted_misreads_lead_the_disagreements(frame: pl.DataFrame) -> None:
    result = calibrate(frame, judge=PLANTED["judge"], seed=0)
    planted = set(PLANTED["misreads"])
    top = result.disagreements["item"].to_list()[: len(planted)]
    precision = len(planted & set(top)) / len(top)
    assert precision >= 0.9, top


def test_replaying_the_cassette_calls_no_judge(
    tmp_path: Path, items: list[PersonaItem], ratings: pl.DataFrame, frame: pl.DataFrame
) -> None:
    cassette = tmp_path / "cassette.json"
    shutil.copy(SESSION / "cassette.json", cassette)
    live = CountingJudge()
    again = persona_calibration_frame(items, ratings, RecordingJudge(live, cassette))
    assert live.calls == 0  # every answer came from the cassette
    assert again.equals(frame)
    assert cassette.read_bytes() == (SESSION / "cassette.json").read_bytes()


def test_the_frame_carries_notes_reasoning_evidence_and_where_each_item_is(
    frame: pl.DataFrame, items: list[PersonaItem]
) -> None:
    judge = frame.filter(pl.col("rater") == "judge")
    humans = frame.filter(pl.col("rater") != "judge")
    assert judge.height == len(items) and humans.height == 2 * len(items)
    assert judge["notes"].null_count() == judge.height
    assert judge["reasoning"].str.len_chars().min() > 0  # type: ignore[operator]
    assert humans["reasoning"].null_count() == humans.height
    noted = humans.filter(pl.col("notes") != "")["item"].to_list()
    assert set(PLANTED["misreads"]) <= set(noted)  # the raters said why on the misreads
    per_item = frame.group_by("item").agg(
        pl.col(c).n_unique().alias(c) for c in ("evidence", "source", "anchor", "text_sha256")
    )
    assert per_item.drop("item").max().row(0) == (1, 1, 1, 1)  # the same on every row
    by_id = {i.item_id: i for i in items}
    for item_id, source, digest in judge.select("item", "source", "text_sha256").rows():
        _system, user = build_prompt([by_id[item_id].request])
        sent = user[user.index("TRAJECTORY:\n") + 12 : user.rindex("\n\nReply with")]
        assert digest == hashlib.sha256(sent.encode()).hexdigest()
        assert source in CHATS


def test_ratings_of_a_changed_chat_are_refused_by_name(
    tmp_path: Path, ratings: pl.DataFrame
) -> None:
    chats = []
    for chat in CHATS:
        shutil.copy(chat, tmp_path / Path(chat).name)
        chats.append(tmp_path / Path(chat).name)
    text = chats[1].read_text("utf-8")
    assert "I can cover 1 to 3, my friend." in text
    chats[1].write_text(text.replace("I can cover 1 to 3, my friend.", "I can cover 1 to 3."))
    changed = items_of_files(chats, PROPOSITIONS)
    refused = r"item='radio-week2/.*rated on a text that differs"
    with pytest.raises(InputError, match=refused) as info:
        persona_calibration_frame(
            changed, ratings, RecordedJudge(SESSION / "cassette.json"), ratings_name="r.csv"
        )
    assert str(info.value).startswith("r.csv: ") and "never joined" in str(info.value)


def test_unknown_items_a_rater_named_judge_and_a_cassette_miss_are_refused(
    tmp_path: Path, items: list[PersonaItem], ratings: pl.DataFrame
) -> None:
    judge = RecordedJudge(SESSION / "cassette.json")
    with pytest.raises(InputError, match="not among the items of these chats"):
        persona_calibration_frame(items[:10], ratings, judge)
    renamed = ratings.with_columns(pl.col("rater").replace({"ana": "judge"}))
    with pytest.raises(InputError, match="a human rater has the judge's id"):
        persona_calibration_frame(items, renamed, judge)
    empty = tmp_path / "empty.json"
    empty.write_text('{"format": "toolkit-judge-cassette", "version": 1, "recordings": {}}')
    with pytest.raises(CassetteMiss, match="re-record the cassette"):
        persona_calibration_frame(items, ratings, RecordedJudge(empty))


def test_the_session_store_reads_as_its_csv_export(
    tmp_path: Path, items: list[PersonaItem], ratings: pl.DataFrame
) -> None:
    store = RatingStore(tmp_path / "ratings.db")
    store.open_session(
        [], ["ana", "ben", "chloe"], 2, 27,
        items=[SessionItem(i.item_id, i.text_sha256) for i in items],
    )  # fmt: skip
    store.save_many(
        [
            Save(
                r["rater"],
                r["item"],
                int(r["score"]),
                notes=r["notes"],
                submit=True,
                text_sha256=r["text_sha256"],
            )
            for r in ratings.iter_rows(named=True)
        ]
    )
    assert load_item_ratings(store.path).equals(ratings)


def test_calibrate_persona_cli_prints_the_bias_and_the_misreads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [
        "calibrate", "--persona", *CHATS, "--propositions", str(PROPOSITIONS),
        "--ratings", str(SESSION / "ratings.csv"),
        "--judge", f"recorded:{SESSION / 'cassette.json'}",
    ]  # fmt: skip
    assert main([*args, "--format", "json", "--top", "6"]) == 0
    data = json.loads(capsys.readouterr().out)
    lenny = next(
        b for b in data["bias"] if (b["group"], b["value"]) == ("agent", PLANTED["lenient_agent"])
    )
    assert lenny["bias"] == pytest.approx(PLANTED["bias"], abs=0.1)
    assert {d["item"] for d in data["disagreements"]} == set(PLANTED["misreads"])
    assert main([*args, "--gate", "min-alpha", "0.99"]) == 1
    assert "gate min-alpha 0.99" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("drop", "message"),
    [("--judge", "--judge=None: --persona needs it"), ("--propositions", "--propositions=None")],
)
def test_calibrate_persona_cli_without_a_part_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], drop: str, message: str
) -> None:
    parts = {
        "--propositions": str(PROPOSITIONS),
        "--ratings": str(SESSION / "ratings.csv"),
        "--judge": f"recorded:{SESSION / 'cassette.json'}",
    }
    args = ["calibrate", "--persona", *CHATS]
    for flag, value in parts.items():
        if flag != drop:
            args += [flag, value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_the_generator_reproduces_the_committed_persona_session(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE_RUNS / "make_calibration.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in ("ratings.csv", "cassette.json", "planted.json", "calibration.json"):
        assert (tmp_path / "persona" / name).read_bytes() == (SESSION / name).read_bytes(), name
