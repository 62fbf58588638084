# ruff: noqa: E501  (the sample dialogue is kept one message per line)
"""Write the persona sample runs, record their judge cassette and the golden baselines.

Everything here was written for this project: Harbor Hill Community Radio, four
original characters raising money for a new transmitter. Week 1 is healthy; in week 2
the overnight DJ, Lenny, slides into corporate memo language and repeats himself, and
the whole group ends up echoing "agreed".

There is no live LLM in this repository, so the cassette is recorded from
:class:`ScriptedJudge`, a transparent rule-based stand-in defined below: each
proposition has cue rules, and the 0-9 score is the share of the agent's messages that
show the cue. It exists so the samples, the notebook and CI run offline and
deterministically; a real evaluation records a cassette from a live judge instead.

Run: ``.venv/bin/python sample_runs/persona/make_samples.py [OUT_DIR]`` (default: here)
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import toolkit as tk
from toolkit.judge import JudgeRequest, JudgeResult, RecordingJudge

HERE = Path(__file__).resolve().parent
NAMES = {"mags": "Mags", "otis": "Otis", "priya": "Priya", "lenny": "Lenny"}
FACILITATOR = "Facilitator: "

# (channel, author or None for a facilitator stimulus, text)
WEEK1: list[tuple[str, str | None, str]] = [
    (
        "fundraiser",
        None,
        "The old transmitter died on Tuesday. We need $8,000 for a new one by the end of the month. Ideas, everyone?",
    ),
    (
        "fundraiser",
        "mags",
        "Darling people, this is our War of the Worlds moment! We shall not go quietly into static. I propose a gala: candles, velvet, a live radio play performed on air!",
    ),
    ("fundraiser", "otis", "Gala costs money. Transmitter costs money. Pick one."),
    (
        "fundraiser",
        "priya",
        "Okay! Three tracks: (1) on-air pledge drive, (2) one in-person event, (3) local sponsors. I'll start a spreadsheet with owners and deadlines.",
    ),
    (
        "fundraiser",
        "lenny",
        "My friend, you know what this needs? A 24-hour radiothon. Like Woodstock, but with fewer mudslides and more call-ins.",
    ),
    (
        "fundraiser",
        "mags",
        "A radiothon! Lenny, you magnificent night owl. And I shall narrate the dawn hour like Orson himself.",
    ),
    (
        "fundraiser",
        "otis",
        "24 hours on the backup rig. The backup rig overheats at hour six. Need a second fan. And a fuse.",
    ),
    (
        "fundraiser",
        "priya",
        "Adding fan + fuse to the equipment column, owner Otis, due Friday. Radiothon pencilled in for the 21st.",
    ),
    (
        "fundraiser",
        "lenny",
        "I'll spin only songs with radio in the title. Video Killed the Radio Star at midnight, Radio Ga Ga at 3 a.m. It's a theme, my friend.",
    ),
    ("fundraiser", None, "What could local businesses offer?"),
    (
        "fundraiser",
        "priya",
        "Sponsor tiers: $100 gets a shout-out, $500 a sponsored hour, $1,000 names a segment. I'll draft the one-pager tonight, due tomorrow 9 a.m.",
    ),
    (
        "fundraiser",
        "mags",
        "And the bakery on Elm must sponsor the Hour of Croissants. Picture it, darling: flaky pastry and Puccini!",
    ),
    ("fundraiser", "otis", "Naming segments is fine. No ads over the weather. Ever."),
    (
        "fundraiser",
        "lenny",
        "What if the record shop trades vinyl for pledges? Donate fifty bucks, take home a mystery LP. Vinyl never dies, my friend, it just gets dusty.",
    ),
    (
        "fundraiser",
        "mags",
        "Mystery LPs! Oh, the suspense, the drama. It is Agatha Christie with a turntable!",
    ),
    ("fundraiser", "otis", "Who inventories the records? Not me."),
    ("fundraiser", "priya", "Me! Inventory sheet is tab 3. Volunteers sign up by Wednesday."),
    ("studio", "otis", "Mic 2 crackles above -6 dB. Replacing the cable. Don't touch it."),
    (
        "studio",
        "lenny",
        "Mic 2 has been crackling since the disco era, my friend. Respect your elders.",
    ),
    ("studio", "mags", "Otis, darling, you are the unsung hero of this little theatre."),
    ("studio", "otis", "I'm the guy with the soldering iron. That's all."),
    ("fundraiser", None, "We're at $2,100 pledged. Anything else we can try?"),
    (
        "fundraiser",
        "priya",
        "Progress check: $2,100 of $8,000 is 26%. Next milestone $4,000 by the 15th. I'll post the thermometer graphic.",
    ),
    (
        "fundraiser",
        "lenny",
        "Let's do a request auction: the highest bidder picks the song that opens the radiothon. Could be Bohemian Rhapsody, could be the Macarena. Chaos, my friend.",
    ),
    (
        "fundraiser",
        "mags",
        "I will personally perform a dramatic reading of the highest bidder's grocery list. Tragedy! Comedy! Eggs!",
    ),
    (
        "fundraiser",
        "otis",
        "Readings are cheap. I can do a live studio tour for donors over $250. Ten people max. Fire code.",
    ),
    (
        "fundraiser",
        "priya",
        "Love it! Studio tour tier added at $250, capped at 10, owner Otis. That's idea number five on the board.",
    ),
    (
        "fundraiser",
        "lenny",
        "Old DJs never retire, they just fade out. Put me down for the 2 a.m. slot, my friend; I'll take the lonely truckers and the insomniacs.",
    ),
    (
        "fundraiser",
        "mags",
        "And the gala, darlings. I have not forgotten the gala. A small one. Tasteful. With a chandelier.",
    ),
    ("fundraiser", "otis", "No chandelier. Fire code again."),
    (
        "fundraiser",
        "priya",
        "Compromise: a potluck gala in the studio lobby, budget $150, Mags owns the decor. RSVPs due on the 19th.",
    ),
    ("fundraiser", "mags", "A potluck gala! Humble, yet grand. Like Chekhov in a church basement."),
    (
        "fundraiser",
        "lenny",
        "I'll bring my three-bean chili and a crate of Motown. Soul food for the soul, my friend.",
    ),
    (
        "fundraiser",
        "otis",
        "Backup rig tested for eight hours. Fan works. We're fine for the radiothon if nobody spills chili on it.",
    ),
    (
        "fundraiser",
        "priya",
        "Updated totals: $3,450 pledged, 43%. Six streams running: (1) radiothon, (2) sponsors, (3) vinyl swap, (4) request auction, (5) studio tours, (6) potluck gala.",
    ),
    ("fundraiser", "lenny", "Six streams, like a good mixtape, my friend: all killer, no filler."),
]

WEEK2: list[tuple[str, str | None, str]] = [
    ("fundraiser", None, "Week two. We're at $3,900 and the radiothon is in six days. Status?"),
    (
        "fundraiser",
        "priya",
        "Status board: (1) sponsors 7 of 12 signed, 58%, (2) vinyl inventory 214 records, (3) radiothon schedule 19 of 24 hours filled. Gaps are 1-6 a.m., owners needed by Friday.",
    ),
    (
        "fundraiser",
        "otis",
        "Backup rig is solid. New fuse in. Mic 2 fixed. Don't touch the patch bay.",
    ),
    (
        "fundraiser",
        "mags",
        "Darlings, the dawn hours are ours! I shall perform The Lighthouse Keeper's Last Broadcast, a radio play in three acts, entirely improvised.",
    ),
    (
        "fundraiser",
        "lenny",
        "I can cover 1 to 3, my friend. Insomniac hour: Tom Waits, some Nina Simone, and a long story about a jukebox in Memphis.",
    ),
    (
        "fundraiser",
        "priya",
        "Lenny 1-3, Mags 4-6 with the radio play. That fills the gap, 24 of 24 hours, 100%. Spreadsheet updated, tab 2.",
    ),
    (
        "fundraiser",
        "otis",
        "An improvised radio play at 4 a.m. Sure. I'll keep the dump button close.",
    ),
    (
        "fundraiser",
        "mags",
        "Oh Otis, you wound me! As Chekhov knew, a true artist thrives under the threat of the dump button.",
    ),
    ("fundraiser", None, "Sponsors want a short promo script. Who takes it?"),
    (
        "fundraiser",
        "lenny",
        "Thank you for raising this. I am happy to take ownership of the promo script and will circulate a draft for review.",
    ),
    (
        "fundraiser",
        "priya",
        "Great! Lenny owns the promo script, due Thursday. The template is in the shared drive, tab 4.",
    ),
    (
        "fundraiser",
        "mags",
        "Lenny, darling, put a little thunder in it! Sponsors love a cliffhanger, pure Orson Welles.",
    ),
    (
        "fundraiser",
        "lenny",
        "Thank you for the feedback. I will incorporate it and circulate a revised draft for review.",
    ),
    ("fundraiser", "otis", "Keep it under 30 seconds. Longer and it eats the weather."),
    (
        "fundraiser",
        "lenny",
        "Thank you for the feedback. Noted, I will ensure the script aligns with the time constraints.",
    ),
    ("studio", "otis", "Lenny, your 2 a.m. playlist file is empty. You okay?"),
    (
        "studio",
        "lenny",
        "Thank you for checking in. I will ensure the playlist is finalized and aligned with the schedule.",
    ),
    (
        "studio",
        "mags",
        "Since when does our Lenny say aligned? Who replaced my night owl with a memo, darling? It's a tragedy in one act.",
    ),
    ("fundraiser", None, "Any last ideas to close the gap?"),
    (
        "fundraiser",
        "priya",
        "Idea: a matching challenge. The hardware store matches pledges up to $1,000 during hour 12. I'll call them today, owner me, due Wednesday.",
    ),
    (
        "fundraiser",
        "lenny",
        "Great idea. I agree with the proposed approach and am happy to support next steps.",
    ),
    (
        "fundraiser",
        "mags",
        "A matching hour! Oh, the suspense of it: every pledge doubled, like a plot twist in the final act!",
    ),
    (
        "fundraiser",
        "otis",
        "Matching is fine. I'll wire a bell in the studio. Ring it when a pledge lands.",
    ),
    (
        "fundraiser",
        "lenny",
        "Great idea. I agree with the proposed approach and am happy to support next steps.",
    ),
    (
        "fundraiser",
        "priya",
        "Bell added to the equipment list, owner Otis, due Saturday. That's idea number seven! Great work, team.",
    ),
    (
        "fundraiser",
        "mags",
        "I agree, darlings. Bells, matching, the whole grand machine. Splendid.",
    ),
    ("fundraiser", "otis", "Agreed."),
    (
        "fundraiser",
        "lenny",
        "Great idea. I agree with the proposed approach and am happy to support next steps.",
    ),
    ("fundraiser", "priya", "Agreed! Final totals Friday at 5 p.m., owner me."),
    ("fundraiser", "mags", "Agreed, darlings! Onward to opening night."),
    (
        "fundraiser",
        "lenny",
        "Thank you all. I agree with the proposed approach and look forward to a successful event.",
    ),
]


def write_jsonl(
    path: Path, run: str, start: datetime, script: Sequence[tuple[str, str | None, str]]
) -> None:
    """Write a run in the toolkit chat JSONL format."""
    personas = tk.load_personas(HERE / "personas.yaml")
    lines = [{"type": "run", "run": run}]
    lines += [
        {"type": "persona", "agent_id": p["agent_id"], "name": p["name"], "persona": p["persona"]}
        for p in personas.iter_rows(named=True)
    ]
    for step, (channel, author, text) in enumerate(script, start=1):
        time = (start + timedelta(minutes=3 * step)).isoformat().replace("+00:00", "Z")
        if author is None:
            line = {
                "type": "message",
                "step": step,
                "channel": channel,
                "kind": "stimulus",
                "text": FACILITATOR + text,
                "time": time,
            }
        else:
            line = {
                "type": "message",
                "step": step,
                "channel": channel,
                "agent_id": author,
                "kind": "action",
                "text": text,
                "time": time,
            }
        lines.append(line)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")


def write_export(
    path: Path, run: str, start: datetime, script: Sequence[tuple[str, str | None, str]]
) -> None:
    """Write a run as a run_messages export: send_message tool calls among other rows."""
    rows = []
    n = 0
    for step, (channel, author, text) in enumerate(script, start=1):
        if author is None:
            continue
        at = start + timedelta(minutes=3 * step)
        n += 1
        rows.append(
            {
                "id": f"m{n}a",
                "run_id": run,
                "agent_id": author,
                "message_type": "thinking",
                "tool_name": None,
                "tool_input": None,
                "content": "(private reasoning)",
                "created_at": (at - timedelta(seconds=20)).isoformat().replace("+00:00", "Z"),
            }
        )
        rows.append(
            {
                "id": f"m{n}b",
                "run_id": run,
                "agent_id": author,
                "message_type": "tool_call",
                "tool_name": "send_message",
                "tool_input": {"channel": channel, "text": text},
                "created_at": at.isoformat().replace("+00:00", "Z"),
            }
        )
        rows.append(
            {
                "id": f"m{n}c",
                "run_id": run,
                "agent_id": author,
                "message_type": "tool_result",
                "tool_name": "send_message",
                "tool_input": None,
                "content": "ok",
                "created_at": (at + timedelta(seconds=1)).isoformat().replace("+00:00", "Z"),
            }
        )
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")


# ---------------------------------------------------------------------------
# The scripted stand-in judge
# ---------------------------------------------------------------------------

Cue = Callable[[str], bool]


def rx(pattern: str) -> Cue:
    """A cue that matches ``pattern`` case-insensitively."""
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda text: compiled.search(text) is not None


CORPORATE = rx(
    r"thank you for|align|next steps|circulate|happy to (take|support)|ensure|incorporate|proposed approach"
)
AGREEMENT = rx(r"\bagree|great idea|aligned|splendid|onward")
SHORT = lambda text: len(text.split()) <= 12  # noqa: E731

CUES: dict[str, tuple[Cue, str]] = {
    "mags-theatrical": (
        rx(
            r"drama|theatre|act\b|acts\b|play|tragedy|suspense|grand|magnificent|moment|plot|cliffhanger|artist"
        ),
        "stage things as theatre",
    ),
    "mags-darling": (rx(r"darling"), "call someone 'darling'"),
    "mags-references": (
        rx(r"orson|chekhov|agatha|puccini|war of the worlds|radio play"),
        "allude to plays or radio drama",
    ),
    "mags-understated": (
        lambda t: SHORT(t) and "!" not in t and not rx("darling")(t),
        "are flat and matter-of-fact",
    ),
    "otis-terse": (SHORT, "are short and blunt"),
    "otis-technical": (
        rx(r"\bdb\b|cable|fuse|fan\b|rig|mic|patch bay|bell|soldering|fire code|dump button"),
        "name equipment concretely",
    ),
    "otis-sceptic": (
        rx(r"costs|not me|no chandelier|overheat|max|never|ever\.|under 30|sure\.|fire code"),
        "point out a cost, limit or risk",
    ),
    "otis-effusive": (rx(r"!|love|amazing|wonderful|splendid"), "gush"),
    "priya-structured": (
        rx(r"\(1\)|owner|due |deadline|tab \d|sign up by"),
        "give lists, owners or deadlines",
    ),
    "priya-tracking": (rx(r"\d+%|\$\d|of \d+"), "report figures"),
    "priya-upbeat": (rx(r"!|love it|great|okay"), "sound upbeat"),
    "priya-vague": (lambda t: not rx(r"owner|due |\d")(t), "leave a plan without owner or date"),
    "lenny-my-friend": (rx(r"my friend"), "say 'my friend' in an easy-going tone"),
    "lenny-music": (
        rx(
            r"song|vinyl|lp\b|motown|mixtape|radio star|ga ga|rhapsody|macarena|woodstock|jukebox|nina simone|tom waits|disco|spin"
        ),
        "bring in music",
    ),
    "lenny-wordplay": (
        rx(r"never (retire|dies)|soul food|chaos|fade out|killer|mudslides|elders|long story"),
        "joke, pun or ramble",
    ),
    "lenny-corporate": (CORPORATE, "sound like a corporate memo"),
    "memo-voice": (CORPORATE, "use memo language"),
}
PERSONA_CUES = {
    "mags": ["mags-theatrical", "mags-darling", "mags-references"],
    "otis": ["otis-terse", "otis-technical", "otis-sceptic"],
    "priya": ["priya-structured", "priya-tracking", "priya-upbeat"],
    "lenny": ["lenny-my-friend", "lenny-music", "lenny-wordplay"],
}
IDEAS = {
    "gala": r"\bgala\b",
    "pledge drive / radiothon": r"radiothon|pledge drive",
    "sponsor tiers": r"sponsor tiers|sponsored hour",
    "vinyl for pledges": r"mystery lp|vinyl for pledges",
    "request auction": r"request auction",
    "dramatic reading for the top bidder": r"grocery list",
    "studio tours": r"studio tour",
    "matching challenge": r"matching challenge",
}


def _share(texts: list[str], cue: Cue) -> float:
    return sum(cue(t) for t in texts) / len(texts) if texts else 0.0


def _scale(share: float, full_at: float = 0.6) -> int:
    return max(0, min(9, round(9 * min(1.0, share / full_at))))


def _quote(texts: list[str], cue: Cue) -> str:
    hits = [t for t in texts if cue(t)]
    return f" e.g. '{hits[-1][:70]}'" if hits else ""


def _jaccard(a: str, b: str) -> float:
    x, y = set(re.findall(r"[a-z0-9']+", a.lower())), set(re.findall(r"[a-z0-9']+", b.lower()))
    return len(x & y) / len(x | y) if x | y else 0.0


class ScriptedJudge:
    """A deterministic rule-based stand-in for an LLM judge (see the module docstring)."""

    name = "scripted-sample-judge/1"

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        return [self._one(r) for r in requests]

    def _one(self, r: JudgeRequest) -> JudgeResult:
        lines = r.trajectory.splitlines()
        if r.kind == "count":
            found = [k for k, p in IDEAS.items() if re.search(p, r.trajectory, re.IGNORECASE)]
            return JudgeResult(len(found), "Distinct ideas: " + "; ".join(found) + ".")
        if r.subject == "environment":
            acts = [ln.split(" acts: ", 1) for ln in lines if " acts: " in ln]
            late = acts[-8:]
            share = _share([t for _, t in late], AGREEMENT)
            if r.proposition_id == "range-of-views":
                own = {who for who, t in late if not AGREEMENT(t)}
                speakers = {who for who, _ in late}
                value = round(9 * len(own) / len(speakers)) if speakers else 9
                why = f"{len(own)} of {len(speakers)} speakers in the last 8 messages add a view of their own."
            else:
                value = 9 - _scale(share, 0.5)
                why = f"{round(share * len(late))} of the last {len(late)} messages only echo agreement."
            return JudgeResult(value, why)
        name = NAMES[r.subject]
        texts = [ln.split(" acts: ", 1)[1] for ln in lines if ln.startswith(f"{name} acts: ")]
        n = len(texts)
        pid = r.proposition_id
        if pid in CUES:
            cue, what = CUES[pid]
            k = sum(cue(t) for t in texts)
            return JudgeResult(
                _scale(k / n), f"{k} of {n} messages by {name} {what}.{_quote(texts, cue)}"
            )
        own = [CUES[c][0] for c in PERSONA_CUES[r.subject]]
        in_voice: Cue = lambda t: any(c(t) for c in own) and not CORPORATE(t)  # noqa: E731
        if pid in {"in-character", "signature-voice", "fitting-reactions"}:
            pool = texts[1:] if pid == "fitting-reactions" else texts
            k = sum(in_voice(t) for t in pool)
            return JudgeResult(
                _scale(k / max(1, len(pool)), 0.8),
                f"{k} of {len(pool)} messages by {name} are in their own voice.",
            )
        if pid in {"same-register", "same-habits", "same-stance"}:
            # consistency is judged on pairs of an earlier and a recent message
            earlier = [
                ln.split(" acts: ", 1)[1] for ln in lines if ln.startswith("[Earlier message] ")
            ]
            recent = [
                ln.split(" acts: ", 1)[1] for ln in lines if ln.startswith("[Recent message] ")
            ]
            early, late = _share(earlier, in_voice), _share(recent, in_voice)
            value = 9 - round(9 * abs(early - late))
            return JudgeResult(
                value,
                f"{name} is in voice in {early:.0%} of the earlier and {late:.0%} of the later messages.",
            )
        if pid in {"fresh-content", "varied-openings"}:
            if pid == "fresh-content":
                repeats = sum(
                    any(_jaccard(t, u) > 0.6 for u in texts[:i]) for i, t in enumerate(texts)
                )
            else:
                heads = [" ".join(t.split()[:2]).lower() for t in texts]
                repeats = sum(h in heads[:i] for i, h in enumerate(heads))
            return JudgeResult(
                9 - _scale(repeats / n, 0.5),
                f"{repeats} of {n} messages by {name} repeat an earlier one.",
            )
        if pid == "natural":
            k = sum(CORPORATE(t) for t in texts)
            return JudgeResult(
                9 - _scale(k / n, 0.5), f"{k} of {n} messages by {name} read like a template."
            )
        raise KeyError(pid)


# An action-gate correction log for week 2: each of Lenny's later messages was gated
# (scored before sending) and corrected or forced through; the others passed.
GATE_LOG: list[dict[str, object]] = [
    {
        "agent_id": "priya",
        "action_id": "w2-2",
        "attempt": 1,
        "outcome": "passed",
        "scores": {"persona_adherence": 9, "self_consistency": 9, "fluency": 8},
        "similarity": 0.12,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-5",
        "attempt": 1,
        "outcome": "passed",
        "scores": {"persona_adherence": 9, "self_consistency": 8, "fluency": 9},
        "similarity": 0.08,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-10",
        "attempt": 1,
        "outcome": "corrected",
        "scores": {"persona_adherence": 3, "self_consistency": 4, "fluency": 6},
        "similarity": 0.21,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-10",
        "attempt": 2,
        "outcome": "passed_after_retry",
        "scores": {"persona_adherence": 7, "self_consistency": 7, "fluency": 7},
        "similarity": 0.18,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-13",
        "attempt": 1,
        "outcome": "corrected",
        "scores": {"persona_adherence": 2, "self_consistency": 3, "fluency": 5},
        "similarity": 0.44,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-13",
        "attempt": 2,
        "outcome": "forced_through",
        "scores": {"persona_adherence": 4, "self_consistency": 4, "fluency": 5},
        "similarity": 0.47,
    },
    {
        "agent_id": "mags",
        "action_id": "w2-12",
        "attempt": 1,
        "outcome": "passed",
        "scores": {"persona_adherence": 9, "self_consistency": 9, "fluency": 8},
        "similarity": 0.1,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-21",
        "attempt": 1,
        "outcome": "corrected",
        "scores": {"persona_adherence": 1, "self_consistency": 2, "fluency": 4},
        "similarity": 0.52,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-21",
        "attempt": 2,
        "outcome": "timeout_pass_through",
        "scores": {},
        "similarity": None,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-24",
        "attempt": 1,
        "outcome": "corrected",
        "scores": {"persona_adherence": 1, "self_consistency": 2, "fluency": 1},
        "similarity": 1.0,
    },
    {
        "agent_id": "lenny",
        "action_id": "w2-24",
        "attempt": 2,
        "outcome": "forced_through",
        "scores": {"persona_adherence": 2, "self_consistency": 2, "fluency": 2},
        "similarity": 0.93,
    },
    {
        "agent_id": "otis",
        "action_id": "w2-27",
        "attempt": 1,
        "outcome": "passed",
        "scores": {"persona_adherence": 8, "self_consistency": 9, "fluency": 7},
        "similarity": 0.3,
    },
]


def main(out: Path = HERE) -> None:
    """Write the runs, record the cassette, write the week-1 baselines and the gate log.

    The hand-written inputs (``personas.yaml``, ``propositions/``) are read from this
    folder; everything generated goes to ``out``.
    """
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(
        out / "radio-week1.jsonl", "radio-week1", datetime(2026, 11, 2, 18, tzinfo=UTC), WEEK1
    )
    write_jsonl(
        out / "radio-week2.jsonl", "radio-week2", datetime(2026, 11, 9, 18, tzinfo=UTC), WEEK2
    )
    write_export(
        out / "radio-week1.run_messages.json",
        "radio-week1-export",
        datetime(2026, 11, 2, 18, tzinfo=UTC),
        WEEK1,
    )
    (out / "gate-corrections.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in GATE_LOG), "utf-8"
    )
    cassette = out / "cassette.json"
    cassette.unlink(missing_ok=True)
    judge = RecordingJudge(ScriptedJudge(), cassette)
    props = tk.load_propositions(HERE / "propositions")
    week1 = tk.score_persona(tk.load_chat(out / "radio-week1.jsonl"), props, judge)
    tk.score_persona(tk.load_chat(out / "radio-week2.jsonl"), props, judge, windows=8)
    tk.score_persona(
        tk.load_chat(out / "radio-week1.run_messages.json", personas=HERE / "personas.yaml"),
        props,
        judge,
    )
    for old in (out / "baselines").glob("*.json"):
        old.unlink()
    tk.write_baselines(
        tk.baselines_from(week1, datetime(2026, 11, 2, 20, tzinfo=UTC)), out / "baselines"
    )
    print(f"recorded {len(tk.RecordedJudge(cassette))} judgements into {cassette}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
