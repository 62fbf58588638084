"""Write the sample calibration session in sample_runs/calibration/ (deterministic).

Usage: python sample_runs/make_calibration.py [OUT_DIR] [--seed 27]

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


def main() -> None:
    """Write scores.csv and planted.json."""
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


if __name__ == "__main__":
    main()
