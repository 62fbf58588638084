"""Several files' rows built into frames once (:func:`toolkit.load.discussion_base.build_all`).

Issue 38 builds the frames of all the files of a folder in one go instead of a file at a
time and stacking the results. The order the one build must keep is the stacked one,
written out here by hand: the files in turn; in a file, its games in load order, each
game's messages by time, then turn (undated last); the messages of a game the file has
no row for after that file's games, before the next file's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from toolkit.load.discussion import load_discussions
from toolkit.load.discussion_base import Builder, build_all


def _msg(gid: str, mid: str, turn: int, minute: int | None) -> dict[str, object]:
    at = None if minute is None else datetime(2026, 3, 14, 19, minute, tzinfo=UTC)
    return {"game_id": gid, "message_id": mid, "turn": turn, "round": 1, "speaker": "Ada",
            "text": f"{mid} says hello", "in_reply_to": None, "in_reply_to_player": None,
            "timestamp": at}  # fmt: skip


def _builders() -> list[Builder]:
    first = Builder("first.json")
    first.games += [{"game_id": "b"}, {"game_id": "a"}]
    first.messages += [
        _msg("orphan", "o1", 1, 0),  # no row for game "orphan" in this file
        _msg("a", "a2", 2, 5),
        _msg("b", "b-undated", 1, None),
        _msg("a", "a1", 1, 5),  # same time as a2: the turn decides
        _msg("b", "b1", 3, 1),
    ]
    first.players.append({"game_id": "b", "player_id": "p1", "name": "Ada"})
    first.warnings.append("first.json: a warning")
    second = Builder("second.json")
    second.games.append({"game_id": "c"})
    second.messages += [_msg("c", "c2", 2, 9), _msg("c", "c1", 1, 8)]
    second.votes.append({"game_id": "c", "round": 1, "voter": "Ada", "target": "Bo"})
    second.warnings.append("second.json: another")
    return [first, second]


def test_one_build_keeps_each_files_games_in_load_order_and_its_orphans_after_them() -> None:
    built = build_all(_builders())
    assert built.messages["message_id"].to_list() == [
        "b1", "b-undated", "a1", "a2", "o1", "c1", "c2",
    ]  # fmt: skip
    assert built.games["game_id"].to_list() == ["b", "a", "c"]
    assert built.players["game_id"].to_list() == ["b"]
    assert built.votes["game_id"].to_list() == ["c"]
    assert built.warnings == ("first.json: a warning", "second.json: another")


def test_one_builders_build_is_build_all_of_it_alone() -> None:
    only = _builders()[0]
    assert only.build().messages["message_id"].to_list() == ["b1", "b-undated", "a1", "a2", "o1"]


def test_an_empty_builder_between_others_changes_nothing() -> None:
    first, second = _builders()
    with_empty = build_all([first, Builder("empty.json"), second])
    assert with_empty.messages.equals(build_all([first, second]).messages)


def test_a_folder_of_transcripts_loads_each_files_game_in_file_order() -> None:
    folder = Path(__file__).resolve().parents[2] / "sample_runs" / "discussions"
    d = load_discussions([folder])
    # the three transcripts, by file name; each game's messages together, in time order
    assert d.game_ids == ["game-over-budget", "game-pass", "game-role-repetition"]
    runs = d.messages["game_id"].to_list()
    assert [g for i, g in enumerate(runs) if i == 0 or runs[i - 1] != g] == d.game_ids
    for gid in d.game_ids:
        times = d.messages.filter(d.messages["game_id"] == gid)["timestamp"].to_list()
        assert times == sorted(times)
