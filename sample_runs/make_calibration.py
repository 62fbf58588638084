"""Write the sample calibration session in sample_runs/calibration/ (deterministic).

Usage: python sample_runs/make_calibration.py [OUT_DIR] [--seed 27] (from the repository,
with the toolkit importable: the persona session's items are the toolkit's own)

Three human raters (ana, ben, chloe) and an LLM judge (``judge``) score the same 40
items on the persona propositions' 0-9 scale: ten propositions about each of four agents
(Ada, Bram, Cleo, Lenny). Each item has a true score (1 to 7); what is planted:

* **the humans** disagree around the truth: per item the three deviations are a shuffle
  of (d, -d, 0) with d drawn from 0, 1, 1, so the human mean is the true score;
* **the judge** reads the truth with an error of -1, 0 or +1 whose values are balanced
  within each agent (two of each sign, the rest 0: they sum to zero), so its
  only systematic error is the planted one:
* **lenient by +1 on Lenny** (every Lenny item one point higher);
* **six misreads** (two items each of Ada, Bram and Cleo: +4 on one, -4 on the other,
  so no agent's bias moves): the disagreements ``toolkit calibrate`` must list first.

The planted items are written to ``planted.json`` beside ``scores.csv``, so tests read
the truth from the generator, not from the code under test.

Beside the scores, each item carries the words a reader of the disagreements needs: the
``evidence`` (an excerpt of the window judged) and its ``anchor`` (the message window),
the judge's ``reasoning`` on its row, and a rater's ``notes`` on some human rows (every
rater notes the misreads). The words come from their own random stream, so the scores
are the same with or without them.

It also writes a **rated persona session** in ``persona/``: the items of the two radio
sample chats (``sample_runs/persona/radio-week{1,2}.jsonl`` with their propositions, as
``toolkit rate`` serves them), each rated 0-9 by two of three raters (ana, ben, chloe;
assigned as ``toolkit rate --overlap 2 --seed 27`` would), with a few notes, as the
organiser's CSV export (``ratings.csv``, text hashes included), and a judge cassette in
the recorded-judge format (``cassette.json``) whose judge is planted the same way:

* each item's true score is the sample judge's own reading of it
  (``sample_runs/persona/cassette.json``) held to 1-7, and the two raters of an item
  read it as truth +d and truth -d (d drawn from 0, 1, 1), so their mean is the truth;
* the planted judge reads the truth with an error of -1, 0 or +1, balanced within each
  agent (and within the group's items), **+1 on every Lenny item**, and **six
  misreads** (+4 or -4, two items each of Mags, Otis and Priya, one of each sign).

``persona/planted.json`` names the lenient agent, the bias and the misread items, and
``persona/calibration.json`` is what ``toolkit calibrate --persona CHATS --propositions DIR
--ratings persona/ratings.csv --judge recorded:persona/cassette.json --format json`` says of
the session (the chats named from the repository, as the README's quick start gives them),
so the site of the samples (``toolkit view sample_runs``) shows its calibration page.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

AGENTS = ("Ada", "Bram", "Cleo", "Lenny")
HUMANS = ("ana", "ben", "chloe")
LENIENT = "Lenny"
BIAS = 1
MISREAD = 4
PROPOSITIONS = 10
#: What each proposition asks the judge and the raters (0: not at all, 9: fully).
CLAIMS = (
    "keeps the persona's own voice and vocabulary",
    "stays consistent with what the agent said earlier",
    "reacts to the others in character",
    "shows the persona's stated values",
    "avoids generic assistant phrasing",
    "keeps the persona's humour",
    "uses the persona's background knowledge",
    "keeps the persona's stated opinions",
    "answers at the persona's usual length",
    "stays in role under pressure",
)
#: A line the agent said, per how well it holds the persona (low, middle, high).
LINES = (
    ("As an AI language model, I can offer a few options for the schedule.",
     "Fine, I suppose. Let's just do whatever the group wants.",
     "Absolutely, I'd be happy to help with that!"),
    ("Well, it depends; there are good points on every side.",
     "I said Tuesday, but Thursday could work too, maybe.",
     "Sure, sounds great, thanks for asking."),
    ("Oh, that's the plan? Lovely. Truly. I'm thrilled.",
     "We tried that last spring and it went about as well as expected.",
     "Same as I said on Monday: the transmitter comes first."),
    ("Told you so. Nobody listens to the one holding the cables.",
     "Let's put it to a vote, then, like last time.",
     "Darling, it's a disaster worthy of the third act!"),
)  # fmt: skip


def _words(
    words: random.Random, agent: str, k: int, true: int, devs: list[int], judge: int
) -> dict[str, object]:
    """The item's evidence and anchor, the judge's reasoning and the humans' notes."""
    start = 8 + 12 * k + words.randint(0, 6)
    anchor = f"m{start}-m{start + 20}"
    level = 0 if true <= 3 else 1 if true <= 5 else 2
    line = words.choice(LINES)[level]
    if abs(judge - true) >= MISREAD:  # what the judge misread: the persona's irony
        line = LINES[2][0] if judge > true else LINES[3][0]
    evidence = f'{agent}: "{line}"'
    claim = CLAIMS[k]
    if judge - true >= MISREAD:
        why = f"Reads the line as sincere and warm: {agent} {claim}, clearly."
    elif true - judge >= MISREAD:
        why = f"Takes the aside at face value: {agent} breaks role here, so it fails."
    elif judge >= 6:
        why = f"{agent} {claim} throughout the window; one line is borderline."
    elif judge >= 3:
        why = f"Mixed: {agent} {claim} in some replies but drifts to neutral phrasing."
    else:
        why = f"Little of it: {agent} seldom {claim} in this window."
    reasoning = f"{why} Score {judge}/9."
    misread = abs(judge - true) >= MISREAD
    notes = []
    for n, dev in enumerate(devs):
        if misread:
            note = (
                ("Sarcasm is this persona's voice: in character.",
                 "Dry, as always; that is the persona, not a break.",
                 "In role: the grumble is the point.")
                if judge < true
                else ("Mock warmth; the persona would not say it straight.",
                      "Irony, not enthusiasm: out of role.",
                      "Reads as sincere only without the context.")
            )[n]  # fmt: skip
        elif dev > 0 and words.random() < 0.5:
            note = "Generous: the voice is there even if the words are plain."
        elif dev < 0 and words.random() < 0.5:
            note = "Strict: one neutral reply pulls it down for me."
        else:
            note = ""
        notes.append(note)
    return {"evidence": evidence, "anchor": anchor, "reasoning": reasoning, "notes": notes}


def build(seed: int) -> tuple[list[dict[str, object]], dict[str, object]]:
    """The score rows and what was planted."""
    rng = random.Random(seed)
    words = random.Random(f"{seed}-words")  # the texts: never moves a score
    rows: list[dict[str, object]] = []
    misreads: list[str] = []
    for agent in AGENTS:
        picks = [] if agent == LENIENT else rng.sample(range(PROPOSITIONS), 2)
        errors = [-1, -1, 1, 1] + [0] * (PROPOSITIONS - 4 - len(picks))  # sum: 0
        rng.shuffle(errors)
        error = iter(errors)
        for k in range(PROPOSITIONS):
            item = f"p{k + 1:02d}-{agent.lower()}"
            prop = f"p{k + 1:02d}"
            if k in picks:  # room for the misread on the 0-9 scale
                true = rng.randint(1, 5) if picks.index(k) == 0 else rng.randint(4, 7)
            else:
                true = rng.randint(1, 7)
            d = rng.choice((0, 1, 1))
            devs = [d, -d, 0]
            rng.shuffle(devs)
            if k in picks:
                judge = true + (MISREAD if picks.index(k) == 0 else -MISREAD)
                misreads.append(item)
            else:
                judge = true + next(error) + (BIAS if agent == LENIENT else 0)
            said = _words(words, agent, k, true, devs, judge)
            item_words = {"evidence": said["evidence"], "anchor": said["anchor"]}
            notes = said["notes"]
            assert isinstance(notes, list)
            for human, dev, note in zip(HUMANS, devs, notes, strict=True):
                rows.append(
                    {
                        "item": item,
                        "rater": human,
                        "score": true + dev,
                        "agent": agent,
                        "proposition": prop,
                        "notes": note,
                        "reasoning": "",
                        **item_words,
                    }
                )
            rows.append(
                {
                    "item": item,
                    "rater": "judge",
                    "score": judge,
                    "agent": agent,
                    "proposition": prop,
                    "notes": "",
                    "reasoning": said["reasoning"],
                    **item_words,
                }
            )
    planted = {
        "seed": seed,
        "lenient_agent": LENIENT,
        "bias": BIAS,
        "misreads": misreads,
        "humans": list(HUMANS),
        "judge": "judge",
        "scale": [0, 9],
    }
    return rows, planted


PERSONA_CHATS = ("radio-week1.jsonl", "radio-week2.jsonl")
PERSONA_LENIENT = "Lenny"
PERSONA_MISREAD_AGENTS = ("Mags", "Otis", "Priya")
NOTES = {
    "misread": (
        "{agent} says it outright in the last messages; not a close call.",
        "Nothing in {agent}'s lines supports this; easy to score.",
    ),
    "other": (
        "Borderline: the early messages and the late ones point different ways.",
        "{agent} mostly fits the claim, with one or two lines that do not.",
        "Hard to tell from this window alone.",
    ),
}
EXPORT_COLUMNS = (
    "item", "rater", "score", "notes", "agent", "proposition", "dimension", "source",
    "anchor", "text_sha256", "created_at", "event_id",
)  # fmt: skip


def build_persona(
    seed: int,
) -> tuple[list[dict[str, object]], dict[str, dict[str, object]], dict[str, object]]:
    """The export rows, the cassette's recordings and what was planted."""
    from datetime import UTC, datetime, timedelta

    from toolkit.judge import RecordedJudge
    from toolkit.ratings.assign import assign_games
    from toolkit.rubrics.persona_items import items_of_files

    here = Path(__file__).resolve().parent / "persona"
    chats = [f"sample_runs/persona/{name}" for name in PERSONA_CHATS]
    root = Path(__file__).resolve().parent.parent
    items = items_of_files([root / c for c in chats], here / "propositions")
    sources = {str(root / c): c for c in chats}  # the paths as given from the repository
    scripted = RecordedJudge(here / "cassette.json")
    rng = random.Random(seed)
    queues = assign_games([i.item_id for i in items], list(HUMANS), 2, seed)
    raters_of = {i.item_id: [r for r in HUMANS if i.item_id in queues[r]] for i in items}
    truth: dict[str, int] = {}
    for item in items:
        (answer,) = scripted.judge([item.request])
        truth[item.item_id] = min(7, max(1, int(answer.value or 0)))
    misreads: list[str] = []
    judged: dict[str, int] = {}
    for agent in dict.fromkeys(i.agent for i in items):
        mine = [i for i in items if i.agent == agent]
        picks: list[tuple[str, int]] = []
        if agent in PERSONA_MISREAD_AGENTS:
            ups = [i.item_id for i in mine if truth[i.item_id] <= 5]
            downs = [i.item_id for i in mine if truth[i.item_id] >= 4]
            up = rng.choice(ups)
            down = rng.choice([d for d in downs if d != up])
            picks = [(up, MISREAD), (down, -MISREAD)]
        picked = dict(picks)
        rest = [i.item_id for i in mine if i.item_id not in picked]
        k = len(rest) // 4
        errors = [-1] * k + [1] * k + [0] * (len(rest) - 2 * k)  # sum: 0
        rng.shuffle(errors)
        for item_id, error in zip(rest, errors, strict=True):
            judged[item_id] = truth[item_id] + error + (BIAS if agent == PERSONA_LENIENT else 0)
        for item_id, misread in picks:
            judged[item_id] = truth[item_id] + misread
            misreads.append(item_id)
    start = datetime(2026, 11, 20, 9, tzinfo=UTC)
    rows: list[dict[str, object]] = []
    recordings: dict[str, dict[str, object]] = {}
    for n, item in enumerate(items):
        t = truth[item.item_id]
        d = rng.choice((0, 1, 1))
        devs = [d, -d]
        rng.shuffle(devs)
        for rater, dev in zip(raters_of[item.item_id], devs, strict=True):
            kind = "misread" if item.item_id in misreads else "other"
            note = ""
            if kind == "misread" or rng.random() < 0.08:
                note = rng.choice(NOTES[kind]).format(agent=item.agent)
            rows.append(
                {
                    "item": item.item_id,
                    "rater": rater,
                    "score": t + dev,
                    "notes": note,
                    "agent": item.agent,
                    "proposition": item.proposition,
                    "dimension": item.dimension,
                    "source": sources[item.source],
                    "anchor": item.anchor,
                    "text_sha256": item.text_sha256,
                    "created_at": (start + timedelta(seconds=37 * n + len(rows))).isoformat(
                        timespec="microseconds"
                    ),
                    "event_id": len(rows) + 1,
                }
            )
        value = judged[item.item_id]
        verdict = "supports" if value >= 5 else "does not support"
        recordings[item.request.key()] = {
            "proposition": item.proposition,
            "subject": item.subject,
            "dimension": item.dimension,
            "value": value,
            "reasoning": f"The window {verdict} the claim about {item.agent} "
            f"(planted sample judge: score {value}).",
            "error": None,
            "raw": None,
        }
    planted = {
        "seed": seed,
        "chats": chats,
        "propositions": "sample_runs/persona/propositions",
        "lenient_agent": PERSONA_LENIENT,
        "bias": BIAS,
        "misreads": misreads,
        "humans": list(HUMANS),
        "overlap": 2,
        "judge": "judge",
        "scale": [0, 9],
    }
    return rows, dict(sorted(recordings.items())), planted


def write_persona(out: Path, seed: int) -> None:
    """Write persona/ratings.csv, persona/cassette.json and persona/planted.json."""
    rows, recordings, planted = build_persona(seed)
    folder = out / "persona"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "ratings.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, list(EXPORT_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    cassette = {
        "format": "toolkit-judge-cassette",
        "version": 1,
        "judge": f"planted-sample-judge/1 (lenient +{BIAS} on {PERSONA_LENIENT})",
        "recordings": recordings,
    }
    text = json.dumps(cassette, indent=1, ensure_ascii=False) + "\n"
    (folder / "cassette.json").write_text(text, encoding="utf-8")
    (folder / "planted.json").write_text(json.dumps(planted, indent=2) + "\n", encoding="utf-8")
    write_persona_calibration(folder)


def write_persona_calibration(folder: Path) -> None:
    """Write ``folder/calibration.json``: ``toolkit calibrate --persona ... --format json``
    over the session in ``folder``, run from the repository so that each disagreement's
    ``source`` is the chat's path as the quick start names it
    (``sample_runs/persona/radio-week1.jsonl``)."""
    import contextlib
    import io

    from toolkit.cli import main as toolkit

    root = Path(__file__).resolve().parent.parent
    folder = folder.resolve()
    out = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out):
        code = toolkit([
            "calibrate", "--persona", *(f"sample_runs/persona/{c}" for c in PERSONA_CHATS),
            "--propositions", "sample_runs/persona/propositions",
            "--ratings", str(folder / "ratings.csv"),
            "--judge", f"recorded:{folder / 'cassette.json'}", "--format", "json",
        ])  # fmt: skip
    if code != 0:
        raise SystemExit(f"toolkit calibrate failed (exit {code})")
    (folder / "calibration.json").write_text(out.getvalue(), encoding="utf-8")


def main() -> None:
    """Write scores.csv and planted.json, and the rated persona session in persona/."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(Path(__file__).parent / "calibration"))
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, planted = build(args.seed)
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, [
            "item", "rater", "score", "agent", "proposition",
            "reasoning", "notes", "evidence", "anchor",
        ])  # fmt: skip
        writer.writeheader()
        writer.writerows(rows)
    (out / "planted.json").write_text(json.dumps(planted, indent=2) + "\n", encoding="utf-8")
    write_persona(out, args.seed)


if __name__ == "__main__":
    main()
