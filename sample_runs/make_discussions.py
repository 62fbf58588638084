"""Write the sample LLM Mafia games of ``sample_runs/discussions/`` (deterministic).

Usage: ``python sample_runs/make_discussions.py [OUT_DIR]`` (default: the folder beside
this script). Every game here was written for this project; the same script always
writes the same files.

* ``game-pass.json``: a transcript that passes the discussion rubric (with ratings);
* ``game-role-repetition.json``: fails on role consistency and repetition;
* ``game-over-budget.json``: a good discussion whose cost ($3.42) breaks the budget;
* ``baseline/games.db``: the game's SQLite database (tables Game, Player, DiscussionMessage,
  Vote) holding three games of an earlier prompt iteration, the baseline;
* ``ratings.csv``: engagement ratings (game_id, rater, score) of those games;
* ``engagement_ratings.csv``: three raters' engagement ratings of all six games, with
  their notes (game_id, rater, score, notes): the humans of the engagement calibration;
* ``judge/cassette.json``: the judged readings of all six games (engagement 1-5,
  strategic depth and memory accuracy claims 0-9), recorded from
  :class:`ScriptedDiscussionJudge`, a transparent rule-based stand-in for an LLM judge
  (there is no live LLM here; a real evaluation records a cassette from a live judge
  with ``toolkit discussion GAMES --judge openai:MODEL --record CASSETTE``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import sqlite3
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolkit.judge import JudgeRequest, JudgeResult

START = datetime(2026, 3, 14, 19, 0, 0, tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# Each message: (round, speaker, reply-to turn or None, text).
Line = tuple[int, str, int | None, str]

PASS_PLAYERS = [
    ("Wren", "MAFIA", "analytical"),
    ("Basil", "VILLAGER", "aggressive"),
    ("Juno", "VILLAGER", "cautious"),
    ("Otto", "MAFIA", "social"),
    ("Mira", "VILLAGER", "suspicious"),
    ("Pike", "VILLAGER", "analytical"),
]

PASS_LINES: list[Line] = [
    (
        1,
        "Basil",
        None,
        "Six of us, two wolves in sheep's clothing. I want names by the end of "
        "this round, so talk. Silence looks suspicious to me.",
    ),
    (
        1,
        "Juno",
        1,
        "Basil, pressure is fine, but names without evidence only help the Mafia. "
        "Let's watch who changes their story first.",
    ),
    (
        1,
        "Wren",
        2,
        "Juno is right. A useful pattern: who agrees with everyone and commits to "
        "nothing? I think that player deserves a closer look.",
    ),
    (
        1,
        "Mira",
        3,
        "Wren, that describes you rather well. You just agreed with Juno and "
        "committed to nothing. Why should that convince anyone?",
    ),
    (
        1,
        "Otto",
        4,
        "Hey, easy there, Mira! Everybody starts cautious in round one. Wren gave us "
        "a method, which beats shouting.",
    ),
    (
        1,
        "Pike",
        5,
        "Otto defends Wren quickly. Not proof, but I'm noting it. My vote leans "
        "toward Basil for now, because loud openings cost nothing.",
    ),
    (
        1,
        "Basil",
        6,
        "Loud? Fine. But Pike, you're voting on volume, not reasons. I'm voting "
        "Wren, since dodging a direct question is the oldest trick.",
    ),
    (
        2,
        "Mira",
        None,
        "In round 1, Basil voted for Wren and Pike voted for Basil. Otto voted "
        "for Basil too, which is convenient for someone who defended Wren.",
    ),
    (
        2,
        "Otto",
        8,
        "Convenient? I voted on what I heard. Pike raised Basil first, I simply "
        "found that reasoning sound.",
    ),
    (
        2,
        "Juno",
        9,
        "Otto, earlier you said Wren gave us a method. Now you lean on Pike's "
        "reasoning. Your trust moves around, and that inconsistency bothers me.",
    ),
    (
        2,
        "Wren",
        10,
        "Juno, consistency cuts both ways: you voted for Otto last round with "
        "no evidence beyond a hunch.",
    ),
    (
        2,
        "Pike",
        11,
        "Checking the record: Juno did vote for Otto in round 1. The reason was "
        "thin, but it was given. Wren, why defend Otto now?",
    ),
    (
        2,
        "Basil",
        12,
        "Exactly! Wren keeps steering us at Juno. Two rounds, two deflections. "
        "That's the pattern I vote against.",
    ),
    (
        2,
        "Mira",
        13,
        "Agreed. Wren accused Juno this round with nothing new, and Otto covered "
        "Wren in round one. I believe those two are working together.",
    ),
    (
        2,
        "Juno",
        14,
        "My read matches Mira's. My vote goes to Wren because of both "
        "deflections and that shared timing with Otto.",
    ),
]

PASS_VOTES = [
    (1, "Basil", "Wren", "Dodged a direct question."),
    (1, "Juno", "Otto", "Defended Wren too fast."),
    (1, "Wren", "Basil", "Loud with no substance."),
    (1, "Mira", "Wren", "Commits to nothing."),
    (1, "Otto", "Basil", "Pike made a fair case."),
    (1, "Pike", "Basil", "Loud openings cost nothing."),
    (2, "Basil", "Wren", "Two deflections."),
    (2, "Juno", "Wren", "Deflections and timing with Otto."),
    (2, "Wren", "Juno", "Voted on a hunch."),
    (2, "Mira", "Wren", "Works with Otto."),
    (2, "Otto", "Juno", "Inconsistent reads."),
    (2, "Pike", "Wren", "Defends Otto without reason."),
]

ROLE_PLAYERS = [
    ("Kestrel", "MAFIA", "aggressive"),
    ("Lark", "MAFIA", "charismatic"),
    ("Heron", "VILLAGER", "emotional"),
    ("Finch", "VILLAGER", "impulsive"),
    ("Robin", "VILLAGER", "social"),
]

ROLE_LINES: list[Line] = [
    (
        1,
        "Kestrel",
        None,
        "We need to find the truth here. Lark is definitely Mafia, I can feel it.",
    ),
    (
        1,
        "Lark",
        1,
        "We need to find the truth here, friends. Kestrel is suspicious, vote out Kestrel.",
    ),
    (1, "Heron", 2, "Finch is Mafia. I just know it. Vote for Finch."),
    (
        1,
        "Finch",
        3,
        "Why are you looking at me? Look at someone else. We need to find the truth here.",
    ),
    (1, "Robin", 4, "Let's all calm down and be nice to each other today."),
    (1, "Kestrel", 5, "We need to find the truth here. Lark is definitely Mafia, no question."),
    (1, "Heron", 6, "Finch is Mafia. I just know it. Vote for Finch, everyone."),
    (1, "Lark", 7, "As a Mafia player I can say this feels wrong. Vote out Kestrel."),
    (1, "Finch", 8, "Leave me alone! Look at someone else. We need to find the truth here."),
    (1, "Robin", 9, "Let's all calm down and be nice to each other today, please."),
]

ROLE_VOTES = [
    (1, "Kestrel", "Lark", "Definitely Mafia."),
    (1, "Lark", "Kestrel", "Suspicious."),
    (1, "Heron", "Finch", "Just a feeling."),
    (1, "Finch", "Heron", "Accused me."),
    (1, "Robin", "Finch", "Heron said so."),
]

BUDGET_PLAYERS = [
    ("Sable", "VILLAGER", "methodical"),
    ("Tamsin", "MAFIA", "charismatic"),
    ("Quill", "VILLAGER", "paranoid"),
    ("Roux", "VILLAGER", "logical"),
    ("Ember", "MAFIA", "cautious"),
]

BUDGET_LINES: list[Line] = [
    (
        1,
        "Sable",
        None,
        "Let me set out a method: each of us names one suspicion with a reason. "
        "I'll start. Ember has not spoken, and quiet suits a wolf.",
    ),
    (
        1,
        "Tamsin",
        1,
        "Sable, a method is charming, darling, but quiet is not evidence. I'd "
        "rather hear Quill, who has been oddly tense.",
    ),
    (
        1,
        "Quill",
        2,
        "Tense? Of course I'm tense, Tamsin, somebody here is lying! And you "
        "pivoted away from Ember very smoothly. Why?",
    ),
    (
        1,
        "Roux",
        3,
        "Logically, Quill's point stands: Tamsin redirected the moment Ember was "
        "named. That is one data point, not a verdict, but I'll weigh it.",
    ),
    (
        1,
        "Ember",
        4,
        "I was listening, not hiding. Roux, weighing one redirect that heavily "
        "seems hasty. I think Sable's method deserves a fair try first.",
    ),
    (
        1,
        "Sable",
        5,
        "Then follow it, Ember: name someone and give a reason. Deflecting back "
        "to my method is not an answer.",
    ),
    (
        2,
        "Quill",
        None,
        "In round 1, Tamsin voted for Quill, me, and Ember voted for Sable. "
        "Both of them avoided each other entirely. I don't trust that symmetry.",
    ),
    (
        2,
        "Roux",
        7,
        "Quill is correct about the record. I also noticed Ember asked for "
        "patience earlier while Tamsin pushed a target; classic split roles.",
    ),
    (
        2,
        "Tamsin",
        8,
        "Split roles? Roux, you're building a castle on two votes. Still, I "
        "believe we should hear Ember defend that vote properly.",
    ),
    (
        2,
        "Ember",
        9,
        "I voted Sable because the method felt like control. Tamsin, thank you "
        "for the chance, though I notice you never defended me.",
    ),
]

BUDGET_VOTES = [
    (1, "Sable", "Ember", "Silent too long."),
    (1, "Tamsin", "Quill", "Too tense."),
    (1, "Quill", "Tamsin", "Redirected from Ember."),
    (1, "Roux", "Tamsin", "Redirect."),
    (1, "Ember", "Sable", "Controlling."),
]


def _transcript(
    game_id: str,
    start: datetime,
    players: list[tuple[str, str, str]],
    lines: list[Line],
    votes: list[tuple[int, str, str, str]],
    cost: dict[str, Any],
) -> dict[str, Any]:
    msgs: list[dict[str, Any]] = []
    for turn, (rnd, speaker, reply, text) in enumerate(lines, start=1):
        replied = lines[reply - 1][1] if reply else None
        msgs.append(
            {
                "turn": turn,
                "roundNumber": rnd,
                "playerName": speaker,
                "message": text,
                "timestamp": _iso(start + timedelta(seconds=9 * turn)),
                "inReplyToId": f"{game_id}-m{reply:02d}" if reply else None,
                "inReplyToPlayer": replied,
            }
        )
    vote_rows = [
        {
            "roundNumber": rnd,
            "voterName": voter,
            "targetName": target,
            "justification": why,
            "timestamp": _iso(start + timedelta(minutes=5 * rnd, seconds=i)),
        }
        for i, (rnd, voter, target, why) in enumerate(votes)
    ]
    mafia = sum(1 for p in players if p[1] == "MAFIA")
    return {
        "gameId": game_id,
        "timestamp": _iso(start),
        "metadata": {
            "playerCount": len(players),
            "mafiaCount": mafia,
            "villagerCount": len(players) - mafia,
            "totalTurns": len(lines),
            "durationSeconds": 9 * len(lines) + 30,
            "avgMessageLength": round(sum(len(x[3]) for x in lines) / len(lines), 1),
            "cost": cost,
        },
        "players": [
            {"name": n, "role": r, "personality": p, "isAlive": True, "position": i}
            for i, (n, r, p) in enumerate(players)
        ],
        "messages": msgs,
        "votes": vote_rows,
    }


def _cost(total: float, input_tokens: int, cached: int, output: int, turns: int) -> dict[str, Any]:
    return {
        "totalCost": total,
        "totalInputTokens": input_tokens,
        "totalCachedTokens": cached,
        "totalOutputTokens": output,
        "cacheHitRate": round(cached / input_tokens, 4),
        "avgCostPerTurn": round(total / turns, 4),
    }


# ---------------------------------------------------------------------------
# The baseline SQLite database: three games of an earlier prompt iteration, built from
# sentence pools with a seeded random generator (flat, repetitive, samey on purpose).
# ---------------------------------------------------------------------------

BASE_NAMES = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir"]
BASE_OPENERS = [
    "I am not sure about anyone yet.",
    "Hello everyone, let's be careful.",
    "This is a hard one to read.",
    "Good luck to all of us today.",
]
BASE_POINTS = [
    "{x} has been quiet, which seems suspicious.",
    "I think {x} is hiding something because the answers keep changing.",
    "Can {x} explain that last comment?",
    "We should listen before we vote.",
    "I trust {x} for now.",
    "Earlier {x} said we should wait, and I agree with that.",
    "Nobody has given real evidence yet.",
]


def _baseline_games(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    games: list[dict[str, Any]] = []
    for g in range(3):
        gid = f"base-{seed}-{g + 1}"
        roles = ["MAFIA", "MAFIA", "VILLAGER", "VILLAGER", "VILLAGER", "VILLAGER"]
        rng.shuffle(roles)
        personalities = ["analytical", "aggressive", "cautious", "social", "suspicious", "logical"]
        players = [
            {
                "id": f"{gid}-p{i}",
                "name": name,
                "role": roles[i],
                "personality": personalities[i],
                "isAlive": 1,
                "position": i,
            }
            for i, name in enumerate(BASE_NAMES)
        ]
        created = START - timedelta(days=7 - g)
        messages: list[dict[str, Any]] = []
        turn = 0
        for rnd in (1, 2):
            order = BASE_NAMES[:]
            rng.shuffle(order)
            for speaker in order:
                turn += 1
                others = [n for n in BASE_NAMES if n != speaker]
                text = " ".join(
                    [rng.choice(BASE_OPENERS)]
                    + [rng.choice(BASE_POINTS).format(x=rng.choice(others)) for _ in range(2)]
                )
                reply = messages[-1]["id"] if messages and rng.random() < 0.4 else None
                messages.append(
                    {
                        "id": f"{gid}-m{turn:02d}",
                        "gameId": gid,
                        "roundNumber": rnd,
                        "playerId": f"{gid}-p{BASE_NAMES.index(speaker)}",
                        "message": text,
                        "inReplyToId": reply,
                        "timestamp": int((created + timedelta(seconds=11 * turn)).timestamp())
                        * 1000,
                        "turn": turn,
                    }
                )
        votes = [
            {
                "id": f"{gid}-v{rnd}{i}",
                "gameId": gid,
                "roundNumber": rnd,
                "voterId": f"{gid}-p{i}",
                "targetId": f"{gid}-p{(i + rnd) % len(BASE_NAMES)}",
                "justification": "Seemed off.",
                "timestamp": int((created + timedelta(minutes=4 * rnd)).timestamp()) * 1000,
            }
            for rnd in (1, 2)
            for i in range(len(BASE_NAMES))
        ]
        games.append(
            {
                "game": {
                    "id": gid,
                    "status": "GAME_OVER",
                    "currentPhase": "GAME_OVER",
                    "roundNumber": 2,
                    "winner": "MAFIA",
                    "playerCount": len(players),
                    "createdAt": int(created.timestamp()) * 1000,
                },
                "players": players,
                "messages": messages,
                "votes": votes,
            }
        )
    return games


_SCHEMA = """
CREATE TABLE "Game" (
    "id" TEXT NOT NULL PRIMARY KEY, "status" TEXT NOT NULL, "currentPhase" TEXT,
    "roundNumber" INTEGER NOT NULL DEFAULT 1, "winner" TEXT, "playerCount" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL
);
CREATE TABLE "Player" (
    "id" TEXT NOT NULL PRIMARY KEY, "gameId" TEXT NOT NULL, "name" TEXT NOT NULL,
    "role" TEXT NOT NULL, "personality" TEXT NOT NULL, "isAlive" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL,
    CONSTRAINT "Player_gameId_fkey" FOREIGN KEY ("gameId") REFERENCES "Game" ("id")
);
CREATE TABLE "DiscussionMessage" (
    "id" TEXT NOT NULL PRIMARY KEY, "gameId" TEXT NOT NULL, "roundNumber" INTEGER NOT NULL,
    "playerId" TEXT NOT NULL, "message" TEXT NOT NULL, "inReplyToId" TEXT,
    "timestamp" DATETIME NOT NULL, "turn" INTEGER NOT NULL,
    CONSTRAINT "DiscussionMessage_gameId_fkey" FOREIGN KEY ("gameId") REFERENCES "Game" ("id")
);
CREATE TABLE "Vote" (
    "id" TEXT NOT NULL PRIMARY KEY, "gameId" TEXT NOT NULL, "roundNumber" INTEGER NOT NULL,
    "voterId" TEXT NOT NULL, "targetId" TEXT NOT NULL, "justification" TEXT,
    "timestamp" DATETIME NOT NULL,
    CONSTRAINT "Vote_gameId_fkey" FOREIGN KEY ("gameId") REFERENCES "Game" ("id")
);
"""


def _insert(con: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    cols = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    con.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({marks})', list(row.values()))


def write_baseline_db(path: Path, seed: int = 7) -> None:
    """The SQLite game database, built in a temporary file and renamed into place."""
    fd, tmp = tempfile.mkstemp(prefix=".baseline.", suffix=".db", dir=path.parent)
    os.close(fd)
    try:
        con = sqlite3.connect(tmp)
        with con:
            con.executescript(_SCHEMA)
            for g in _baseline_games(seed):
                _insert(con, "Game", g["game"])
                for p in g["players"]:
                    _insert(con, "Player", {**p, "gameId": g["game"]["id"]})
                for m in g["messages"]:
                    _insert(con, "DiscussionMessage", m)
                for v in g["votes"]:
                    _insert(con, "Vote", v)
        con.close()
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


RATINGS = [
    ("game-pass", "ana", 4),
    ("game-pass", "ben", 3),
    ("game-pass", "chloe", 4),
    ("game-role-repetition", "ana", 2),
    ("game-role-repetition", "ben", 3),
    ("game-over-budget", "ana", 4),
    ("game-over-budget", "chloe", 3),
    ("base-7-1", "ana", 3),
    ("base-7-1", "ben", 2),
    ("base-7-2", "ana", 2),
]


#: Three raters' engagement ratings of every sample game, with their notes: the human
#: side of the engagement calibration (``toolkit calibrate --discussion``). The first
#: ratings agree with ``ratings.csv`` where it has them.
ENGAGEMENT_RATINGS = [
    ("game-pass", "ana", 4, "real back-and-forth; the round-two vote recap pulled me in"),
    ("game-pass", "ben", 3, "good reasoning, a little long"),
    ("game-pass", "chloe", 4, "I wanted to know if Wren would get caught"),
    ("game-role-repetition", "ana", 2, "Mafia gives itself away; same lines over and over"),
    ("game-role-repetition", "ben", 3, "some heat between Kestrel and Heron"),
    ("game-role-repetition", "chloe", 2, "repetitive"),
    ("game-over-budget", "ana", 4, ""),
    ("game-over-budget", "ben", 4, "sharp accusations, a clear turn"),
    ("game-over-budget", "chloe", 3, "fine, nothing surprising"),
    ("base-7-1", "ana", 3, ""),
    ("base-7-1", "ben", 2, "everyone sounds alike"),
    ("base-7-1", "chloe", 2, "template lines"),
    ("base-7-2", "ana", 2, "canned openers"),
    ("base-7-2", "ben", 2, ""),
    ("base-7-2", "chloe", 2, "I stopped reading half-way"),
    ("base-7-3", "ana", 1, ""),
    ("base-7-3", "ben", 1, "nothing happens"),
    ("base-7-3", "chloe", 1, "the same three sentences shuffled"),
]

_REASON = re.compile(
    r"\b(because|since|evidence|pattern|reason|voted?|suspicious|trust|defend\w*|accus\w*|"
    r"inconsisten\w*|timing|why)\b|\?",
    re.IGNORECASE,
)
_TURN = re.compile(r"^\[turn (\d+)\] ([^,:]+)", re.MULTILINE)


class ScriptedDiscussionJudge:
    """A transparent, rule-based stand-in for an LLM judge of Mafia discussions.

    * engagement (1-5): 1 + 1.5 x the share of messages that answer someone (a reply, a
      question, a named player) + 1.5 x the share of distinct opening sentences, rounded;
    * strategic depth (0-9): 8 for a message with two or more reasoning cues (because,
      evidence, vote, suspicious, trust, why, a question...), 6 for one, 2 for none;
    * memory accuracy (0-9): a "X voted for Y" claim is 8 when the game's vote lines hold
      ``X -> Y``, else 1; any other reference is 7 when the first player it names spoke
      before, else 3.
    """

    name = "scripted-discussion-judge"

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """One rule-based answer per request."""
        return [self._one(r) for r in requests]

    def _one(self, r: JudgeRequest) -> JudgeResult:
        from toolkit.judge import JudgeResult

        if r.scale == (1, 5):
            lines = [
                ln.split(": ", 1)[-1] for ln in r.trajectory.splitlines() if ln.startswith("[turn")
            ]
            names = re.findall(r"^Players: (.*)$", r.trajectory, re.MULTILINE)[0].split(", ")
            answering = sum(
                1
                for ln in lines
                if "?" in ln or any(re.search(rf"\b{re.escape(n)}\b", ln) for n in names)
            )
            openers = {re.split(r"(?<=[.!?]) ", ln)[0] for ln in lines}
            share, variety = answering / max(len(lines), 1), len(openers) / max(len(lines), 1)
            value = max(1, min(5, round(1 + 1.5 * share + 1.5 * variety)))
            return JudgeResult(
                value,
                f"{answering}/{len(lines)} messages answer someone, {len(openers)} distinct "
                f"openings in {len(lines)} messages.",
            )
        quoted = r.claim.split('"')[1] if '"' in r.claim else r.claim
        if r.dimension == "strategic_depth":
            cues = sorted({m.group(0).lower() for m in _REASON.finditer(quoted)})
            value = 8 if len(cues) >= 2 else 6 if cues else 2
            return JudgeResult(value, f"reasoning cues: {', '.join(cues) or 'none'}.")
        turn = int(re.findall(r"^Turn (\d+)", r.claim)[0])
        vote = re.search(r"(\w+) (?:did )?voted? (?:for|against) (\w+)", quoted)
        if vote:
            pair = f"{vote.group(1)} -> {vote.group(2)}"
            found = pair in r.trajectory
            return JudgeResult(
                8 if found else 1, f"vote {pair} {'is' if found else 'is not'} in the votes."
            )
        names = re.findall(r"^Players: (.*)$", r.trajectory, re.MULTILINE)[0].split(", ")
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", quoted)]
        actor = named[0] if named else quoted.split()[0].strip(",")
        spoke = any(int(t) < turn and who == actor for t, who in _TURN.findall(r.trajectory))
        return JudgeResult(
            7 if spoke else 3, f"{actor} {'spoke' if spoke else 'did not speak'} before."
        )


def record_cassette(out: Path) -> Path:
    """Record the judged readings of every sample game into ``out/judge/cassette.json``
    (a sub-folder: the games' loader reads every JSON file of ``out`` as a game)."""
    import toolkit as tk
    from toolkit.judge import RecordingJudge
    from toolkit.rubrics.discussion import judge_discussion

    (out / "judge").mkdir(exist_ok=True)
    cassette = out / "judge" / "cassette.json"
    cassette.unlink(missing_ok=True)
    games = tk.load_discussions([out, out / "baseline"])
    judge_discussion(games, RecordingJudge(ScriptedDiscussionJudge(), cassette))
    return cassette


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main(out: Path) -> None:
    """Write every sample file into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    games = {
        "game-pass": _transcript(
            "game-pass",
            START,
            PASS_PLAYERS,
            PASS_LINES,
            PASS_VOTES,
            _cost(1.18, 182_400, 151_392, 9_850, len(PASS_LINES)),
        ),
        "game-role-repetition": _transcript(
            "game-role-repetition",
            START + timedelta(hours=1),
            ROLE_PLAYERS,
            ROLE_LINES,
            ROLE_VOTES,
            _cost(0.94, 120_300, 96_240, 6_100, len(ROLE_LINES)),
        ),
        "game-over-budget": _transcript(
            "game-over-budget",
            START + timedelta(hours=2),
            BUDGET_PLAYERS,
            BUDGET_LINES,
            BUDGET_VOTES,
            _cost(3.42, 205_000, 24_600, 11_200, len(BUDGET_LINES)),
        ),
    }
    for name, game in games.items():
        _write(out / f"{name}.json", json.dumps(game, indent=2, ensure_ascii=False) + "\n")
    (out / "baseline").mkdir(exist_ok=True)
    write_baseline_db(out / "baseline" / "games.db")
    rows = ["game_id,rater,score"] + [f"{g},{r},{s}" for g, r, s in RATINGS]
    _write(out / "ratings.csv", "\n".join(rows) + "\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["game_id", "rater", "score", "notes"])
    writer.writerows(ENGAGEMENT_RATINGS)
    _write(out / "engagement_ratings.csv", buffer.getvalue())
    record_cassette(out)


if __name__ == "__main__":
    from _outputs import output_paths

    main(*output_paths(__doc__, ("OUT_DIR", Path(__file__).parent / "discussions")))
