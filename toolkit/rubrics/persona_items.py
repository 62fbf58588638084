"""The items of a persona chat that a human can rate beside the judge: one definition.

An item is one judged proposition about one subject (an agent, or the environment) in
one chat: exactly one :class:`~toolkit.judge.JudgeRequest` that :func:`score_persona
<toolkit.rubrics.persona.score_persona>` sends to the judge. :func:`persona_items` lists
them through the same code path the rubric scores with (the whole run, each proposition
file's window), so the rating server shows a rater the very text the judge reads
(:func:`toolkit.judge.judged_text`: the windowed trajectory, or the message pairs, and
the supplementary evidence when there is some), and ``toolkit calibrate`` replays the
judge on the very same requests.

Count propositions (``ideas_quantity``) are not items: they are counts, not 0-9 claims.
Propositions the judge is not asked about (a precondition not met, no message in the
window) are not items either.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import InputError
from toolkit.judge import JudgeRequest, judged_text
from toolkit.load.persona import ChatRun, PropositionSet, load_chat, load_propositions
from toolkit.rubrics.persona import (
    DEFAULT_PERSONA_RUBRIC,
    ENVIRONMENT,
    PersonaRubric,
    chosen_agents,
    whole_run_requests,
)

__all__ = ["PersonaItem", "items_of_files", "persona_items", "persona_items_of", "text_sha256"]


def text_sha256(text: str) -> str:
    """The SHA-256 (hex) of ``text`` encoded as UTF-8: an item's text hash."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PersonaItem:
    """One proposition about one subject of one chat, as the judge is asked about it.

    Attributes:
        item_id: ``RUN/SUBJECT/DIMENSION/PROPOSITION`` (readable, stable while the chat
            and the proposition files stay the same).
        run: the chat run's id.
        source: the chat file, as given.
        subject: the agent id, or ``environment``.
        agent: the agent's display name, or ``environment``.
        dimension: the proposition's dimension (adherence, consistency, ...).
        proposition: the proposition's id.
        claim: the claim with its variables filled in (what the judge is asked).
        anchor: where in the chat the judged window lies (trajectory steps, ``s1-s5,s9``).
        request: the judge request, exactly as the persona rubric sends it.
    """

    item_id: str
    run: str
    source: str
    subject: str
    agent: str
    dimension: str
    proposition: str
    claim: str
    anchor: str
    request: JudgeRequest

    @property
    def text(self) -> str:
        """The text the judge reads about the chat (and the rater is shown)."""
        return judged_text(self.request)

    @property
    def text_sha256(self) -> str:
        """The SHA-256 of :attr:`text`."""
        return text_sha256(self.text)


def persona_items(
    run: ChatRun,
    propositions: PropositionSet,
    *,
    source: str | Path | None = None,
    rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC,
    agents: Sequence[str] | None = None,
) -> list[PersonaItem]:
    """The ratable items of one chat: every 0-9 judge request of its whole run.

    Args:
        run: the chat (:func:`toolkit.load_chat`).
        propositions: the proposition files (:func:`toolkit.load_propositions`).
        source: the chat file as given on the command line (default: ``run.source``).
        rubric: the persona rubric (its windows and judge evidence decide the text).
        agents: only these agents (ids or names); the environment's items stay.

    Returns:
        The items, in the order the rubric asks the judge.

    Raises:
        InputError: as :func:`~toolkit.rubrics.persona.score_persona` (an unknown agent
            or precondition, a claim variable with no value).
    """
    chosen = chosen_agents(run, agents) if agents is not None else None
    _messages, _rows, pending = whole_run_requests(run, propositions, rubric, [], chosen)
    where = str(source) if source is not None else run.source
    items: list[PersonaItem] = []
    for entry in pending:
        request = entry.request
        if request.kind != "score":
            continue
        subject = request.subject
        agent = ENVIRONMENT if subject == ENVIRONMENT else run.name_of(subject)
        items.append(
            PersonaItem(
                item_id=f"{run.run}/{subject}/{request.dimension}/{request.proposition_id}",
                run=run.run,
                source=where,
                subject=subject,
                agent=agent,
                dimension=request.dimension,
                proposition=request.proposition_id,
                claim=request.claim,
                anchor=entry.anchor,
                request=request,
            )
        )
    return items


def persona_items_of(
    chats: Iterable[tuple[ChatRun, str]],
    propositions: PropositionSet,
    *,
    rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC,
) -> list[PersonaItem]:
    """The items of several chats (each with its file as given), in the chats' order.

    Raises:
        InputError: two chats with the same run id (their items would share ids),
            named by both files.
    """
    items: list[PersonaItem] = []
    seen: dict[str, str] = {}
    for run, source in chats:
        if run.run in seen:
            raise InputError(
                source,
                f"the same run id as {seen[run.run]}: their items would share ids",
                field="run",
                value=run.run,
            )
        seen[run.run] = source
        items.extend(persona_items(run, propositions, source=source, rubric=rubric))
    return items


def items_of_files(
    chats: Iterable[str | Path],
    propositions: str | Path,
    *,
    personas: str | Path | None = None,
    rubric: PersonaRubric = DEFAULT_PERSONA_RUBRIC,
) -> list[PersonaItem]:
    """The items of chat files, read through the persona loaders: what ``toolkit rate``
    serves and ``toolkit calibrate --persona`` rebuilds.

    Args:
        chats: chat files (toolkit JSONL, run_messages exports), each named as given. The
            chats of a folder are the caller's to list
            (:func:`toolkit.fleet.find.chat_files`); ``chats`` is read after the
            propositions, so a lazy listing reports its errors after theirs.
        propositions: the folder of proposition files.
        personas: a personas file (names, specs) for every chat.
        rubric: the persona rubric.

    Raises:
        InputError: an unreadable chat or proposition file, two chats with one run id.
    """
    props = load_propositions(propositions)
    files = [str(Path(f)) for f in chats]
    loaded = [(load_chat(f, personas=personas), f) for f in files]
    return persona_items_of(loaded, props, rubric=rubric)
