"""Messages of a 2L game in the order 2L's own transcript writer puts them.

2L's ``generateTranscript`` (src/lib/discussion/transcript.ts) reads
``prisma.discussionMessage.findMany({where: {gameId}, orderBy: {timestamp: 'asc'}})``;
``turn`` is counted per Discussion phase (``turnCount`` in orchestrator.ts starts at 0 on
every call), so a game of two days holds turns 1, 2 twice. Written by hand: an export whose
second day's turns restart.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.load.discussion import load_discussion


def message(mid: str, round_: int, turn: int, player: str, at: str) -> dict[str, object]:
    return {"id": mid, "gameId": "g1", "roundNumber": round_, "playerId": player,
            "message": f"{mid} says hello", "inReplyToId": None, "timestamp": at,
            "turn": turn}  # fmt: skip


EXPORT = {
    "games": [
        {
            "id": "g1", "status": "GAME_OVER", "roundNumber": 2, "playerCount": 2,
            "createdAt": "2026-03-14T19:00:00.000Z",
            "players": [
                {"id": "p1", "gameId": "g1", "name": "Ada", "role": "MAFIA",
                 "personality": "cautious", "isAlive": True, "position": 0},
                {"id": "p2", "gameId": "g1", "name": "Bo", "role": "VILLAGER",
                 "personality": "social", "isAlive": True, "position": 1},
            ],
            # stored in id order, as an export may hold them
            "discussionMessages": [
                message("m1", 1, 1, "p1", "2026-03-14T19:01:00.000Z"),
                message("m2", 1, 2, "p2", "2026-03-14T19:01:30.000Z"),
                message("m3", 2, 1, "p2", "2026-03-14T19:09:00.000Z"),
                message("m4", 2, 2, "p1", "2026-03-14T19:09:30.000Z"),
            ],
            "votes": [],
        }
    ]
}  # fmt: skip


def test_a_games_messages_are_in_time_order_when_turns_restart_each_day(tmp_path: Path) -> None:
    source = tmp_path / "data-backup.json"
    source.write_text(json.dumps(EXPORT), encoding="utf-8")
    messages = load_discussion(source).messages
    assert messages["message_id"].to_list() == ["m1", "m2", "m3", "m4"]
