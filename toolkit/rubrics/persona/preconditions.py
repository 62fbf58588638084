"""Preconditions: named predicates a proposition file may require
(``precondition: <name>``); a proposition whose precondition is not met is trivially
true (9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from toolkit.errors import InputError
from toolkit.load.persona import ChatRun, PropositionSet


@dataclass(frozen=True)
class PreconditionContext:
    """What a precondition sees.

    Attributes:
        run: the chat run.
        agent_id: the agent judged (``None`` for an environment dimension).
        window: the trajectory rows shown to the judge (messages schema, windowed).
        proposition_id: the proposition asking.
    """

    run: ChatRun
    agent_id: str | None
    window: pl.DataFrame
    proposition_id: str

    def actions(self) -> pl.DataFrame:
        """The windowed actions of the agent (of everyone for the environment)."""
        acts = self.window.filter(pl.col("kind") == "action")
        if self.agent_id is None:
            return acts
        return acts.filter(pl.col("agent_id") == self.agent_id)


Precondition = Callable[[PreconditionContext], bool]

#: Named preconditions a proposition file may refer to (``precondition: <name>``).
PRECONDITIONS: dict[str, Precondition] = {}


def register_precondition(name: str) -> Callable[[Precondition], Precondition]:
    """Register a predicate under ``name`` so proposition files can use it."""

    def decorator(func: Precondition) -> Precondition:
        PRECONDITIONS[name] = func
        return func

    return decorator


@register_precondition("agent_has_messages")
def _agent_has_messages(ctx: PreconditionContext) -> bool:
    return ctx.actions().height >= 1


@register_precondition("agent_spoke_twice")
def _agent_spoke_twice(ctx: PreconditionContext) -> bool:
    return ctx.actions().height >= 2


@register_precondition("several_agents_spoke")
def _several_agents_spoke(ctx: PreconditionContext) -> bool:
    acts = ctx.window.filter(pl.col("kind") == "action")
    return acts["agent_id"].n_unique() >= 2


@register_precondition("agent_addressed_someone")
def _agent_addressed_someone(ctx: PreconditionContext) -> bool:
    return ctx.actions()["recipient_id"].drop_nulls().len() >= 1


def check_preconditions(propositions: PropositionSet) -> None:
    for f in propositions.files:
        for i, p in enumerate(f.spec.propositions):
            if p.precondition is not None and p.precondition not in PRECONDITIONS:
                raise InputError(
                    f.path,
                    "unknown precondition; registered: " + ", ".join(sorted(PRECONDITIONS)),
                    field=f"propositions.{i}.precondition",
                    value=p.precondition,
                )
