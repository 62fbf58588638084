"""The judge protocol: a request about one proposition in, an integer and reasoning out."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal, Protocol, runtime_checkable

#: The 0-9 scale the judge is asked to use, one band per line.
SCALE_BANDS: tuple[str, ...] = (
    "0: the claim is certainly false; everything in the trajectory contradicts it.",
    "1-3: the claim has little support; it is mostly false.",
    "4-5: the evidence is mixed; the claim is about as true as it is false.",
    "6-8: the claim is well supported; it is mostly true.",
    "9: the claim is certainly true; everything relevant supports it.",
)

#: The rule for a claim the trajectory says nothing about.
MISSING_DATA_RULE = (
    "If the data needed to judge a claim is not in the trajectory, score it 9 "
    "(nothing contradicts it)."
)

#: The largest number of propositions sent to a judge in one call.
MAX_BATCH = 10

DOUBLE_CHECK_PROMPT = (
    "Are you sure? Re-read the trajectory and revise your evaluation so that it is as "
    "correct as possible. Reply in exactly the same format."
)


@dataclass(frozen=True)
class JudgeRequest:
    """What the judge is asked about one proposition.

    Attributes:
        proposition_id: the proposition's id.
        dimension: its dimension (adherence, consistency, ...).
        subject: the agent id judged, or ``"environment"``.
        claim: the claim with its template variables filled in.
        trajectory: the windowed trajectory text (``Name acts: ...`` / ``--> Name: ...``).
        persona: the persona spec when the proposition file includes personas.
        kind: ``"score"`` (an integer 0-9) or ``"count"`` (a non-negative integer).
        evidence: supplementary evidence computed from the messages (n-gram repetition,
            vocabulary statistics), shown to the judge after the trajectory.
        scale: the lowest and highest score of a rating on a scale of its own (e.g.
            ``(1, 5)`` for the discussion rubric's engagement); ``None``: the 0-9 claim
            scale (:data:`SCALE_BANDS`). A reply outside the scale is an error result.
        bands: the scale's levels shown to the judge, one line each (with ``scale``).
    """

    proposition_id: str
    dimension: str
    subject: str
    claim: str
    trajectory: str
    persona: str | None = None
    kind: Literal["score", "count"] = "score"
    evidence: str | None = None
    scale: tuple[int, int] | None = None
    bands: tuple[str, ...] | None = None

    def key(self, *, double_check: bool = False) -> str:
        """A stable hash of everything that decides the answer (for cassettes); a request
        without evidence, scale or bands hashes as it did before they existed."""
        payload = {**asdict(self), "double_check": double_check}
        for optional in ("evidence", "scale", "bands"):
            if payload[optional] is None:
                del payload[optional]
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:32]


@dataclass(frozen=True)
class JudgeResult:
    """The judge's answer about one proposition.

    ``value`` is ``None`` when there is no usable answer (an unparseable reply, a judge
    that could not be reached); ``error`` then says why and ``raw`` holds the reply text.

    ``input_tokens`` / ``output_tokens`` are this request's share of the live call(s)
    that answered it (a batched call's usage is split evenly among its requests, the
    remainder going to the first ones, so shares add up to the call's usage); 0 for an
    answer replayed from a cassette. ``transient`` marks a result that is no answer at
    all (the API could not be reached, the cost cap stopped the call): it is never
    recorded, so a resumed run asks again. ``usage_estimated`` marks a share of a call
    whose server reported no believable usage: it was counted at the call's maximum.
    """

    value: int | None
    reasoning: str
    error: str | None = None
    raw: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    transient: bool = False
    usage_estimated: bool = False


@dataclass(frozen=True)
class Estimate:
    """An upper bound on the tokens a judge call (or two, with double-check) will use."""

    input_tokens: int
    output_tokens: int


@runtime_checkable
class Judge(Protocol):
    """Anything that answers judge requests.

    ``judge`` receives up to :data:`MAX_BATCH` requests that share a trajectory and
    persona, and returns one result per request, in order. It may be called from several
    threads at once (:func:`toolkit.judge.calls.run_batches`). A live judge also has a
    ``model`` name (for prices) and an ``estimate(requests, double_check=)`` method
    returning an :class:`Estimate` (for the cost cap).
    """

    name: str

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Answer ``requests``; with ``double_check`` the judge revises once."""
        ...


#: What comes between the trajectory and the supplementary evidence in the prompt.
EVIDENCE_HEADING = "\n\nSUPPLEMENTARY EVIDENCE (computed from the messages, not a judgement):\n"


def judged_text(request: JudgeRequest) -> str:
    """The text the judge reads about the conversation: the request's trajectory, then
    its supplementary evidence (when it has some) under :data:`EVIDENCE_HEADING`.

    The one definition of that text: :func:`build_prompt` puts it in the user prompt
    after ``TRAJECTORY:``, and the rating server shows it to a human rater as it is.
    """
    if request.evidence:
        return request.trajectory + EVIDENCE_HEADING + request.evidence
    return request.trajectory


def build_prompt(requests: Sequence[JudgeRequest]) -> tuple[str, str]:
    """The (system, user) prompt for a batch of requests sharing a trajectory.

    The system prompt carries the 0-9 bands, the missing-data rule and, when given, the
    persona spec; the user prompt numbers the claims and gives the trajectory, then the
    supplementary evidence when there is some. A request with a ``scale`` of its own
    (a rating, e.g. 1-5) gets that scale's ``bands`` instead of the 0-9 bands and the
    missing-data rule, and is asked for a score on that scale.
    """
    if not requests:
        raise ValueError("no requests")
    first = requests[0]
    low, high = first.scale or (0, 9)
    if first.scale is not None:
        system = (
            "You rate conversations between agents as a careful human reader would, on "
            f"this scale from {low} to {high}:\n" + "\n".join(first.bands or ()) + "\n"
            "Be rigorous: when in doubt, choose the lower score."
        )
    elif first.kind == "count":
        system = (
            "You read conversations between agents and count things in them precisely. "
            "Reply with the integer count first, then your numbered list and reasoning."
        )
    else:
        system = (
            "You evaluate claims about the behaviour of agents in a conversation, using "
            "this scale:\n" + "\n".join(SCALE_BANDS) + "\n" + MISSING_DATA_RULE + "\n"
            "Be rigorous: when in doubt, choose the lower score."
        )
    if first.persona:
        system += "\n\nThe agent being evaluated has this persona specification:\n" + first.persona
    text = judged_text(first)
    if len(requests) == 1:
        instruction = (
            "Reply with the integer count first, then your reasoning."
            if first.kind == "count"
            else f"Reply with the integer score {low}-{high} first, then your reasoning."
        )
        label = "QUESTION" if first.scale is not None else "CLAIM"
        user = f"{label}: {first.claim}\n\nTRAJECTORY:\n{text}\n\n{instruction}"
    else:
        claims = "\n".join(f"[{i}] {r.claim}" for i, r in enumerate(requests, start=1))
        user = (
            f"CLAIMS:\n{claims}\n\nTRAJECTORY:\n{text}\n\n"
            "Reply with one block per claim, in order. Each block starts with the claim's "
            f"number in brackets and the integer score {low}-{high}, then your reasoning, "
            f"e.g. `[1] {7 if low <= 7 <= high else high} The agent ...`."
        )
    return system, user


_LEADING_INT = re.compile(r"^\s*\**\s*(\d+)(?!\d)")
_BLOCK = re.compile(r"^\s*\[(\d+)\]", re.MULTILINE)


def parse_reply(
    text: str, kind: Literal["score", "count"] = "score", scale: tuple[int, int] | None = None
) -> JudgeResult:
    """Parse one reply that must start with the integer (0-9 for a score, or within
    ``scale`` when the request had a scale of its own, e.g. 1-5).

    A reply that does not is an error result that keeps the raw text.
    """
    match = _LEADING_INT.match(text)
    if match is None:
        return JudgeResult(None, "", error="reply does not start with an integer", raw=text)
    value = int(match.group(1))
    low, high = scale or (0, 9)
    if kind == "score" and not low <= value <= high:
        return JudgeResult(None, "", error=f"score {value} is outside {low}-{high}", raw=text)
    reasoning = text[match.end() :].lstrip(" \t\n*:.-—").rstrip()
    return JudgeResult(value, reasoning, raw=text)


def parse_batch_reply(
    text: str,
    count: int,
    kind: Literal["score", "count"] = "score",
    scale: tuple[int, int] | None = None,
) -> list[JudgeResult]:
    """Parse a batch reply of ``[k] <int> reasoning`` blocks into ``count`` results
    (scores range-checked against ``scale``, 0-9 when None).

    A missing or malformed block gives an error result for that proposition only.
    """
    if count == 1:
        return [parse_reply(text, kind, scale)]
    marks = list(_BLOCK.finditer(text))
    blocks: dict[int, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        blocks.setdefault(int(mark.group(1)), text[mark.end() : end])
    results = []
    for k in range(1, count + 1):
        if k not in blocks:
            results.append(JudgeResult(None, "", error=f"no block [{k}] in the reply", raw=text))
        else:
            results.append(parse_reply(blocks[k], kind, scale))
    return results
