"""Running judge batches: bounded concurrency, a cost cap, progress, token accounting.

:func:`run_batches` sends batches of requests to a judge from a pool of threads (the SDK
clients are thread-safe and retry each call themselves, honouring ``retry-after``) and
returns the results in the order of the batches, exactly as a sequential loop would.
With a :class:`Budget` it estimates each next call's cost conservatively (the judge's
``estimate``: prompt bytes as input tokens, ``max_tokens`` as output) and sends it only
when what was spent, what is in flight and that estimate stay within the cap; the
batches after the first that does not fit are not sent: their results are transient
absences naming the cap. :class:`JudgeUsage` is the account of a run.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from html import escape
from typing import Any

from toolkit.errors import InputError
from toolkit.judge._protocol import Judge, JudgeRequest, JudgeResult
from toolkit.judge.prices import Price, PriceTable

#: Judge calls in flight at once unless told otherwise.
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class Budget:
    """A cost cap in US dollars, and the price used to estimate calls against it."""

    max_cost: float
    price: Price


def budget_for(judge: Judge, max_cost: float, prices: PriceTable) -> Budget:
    """The budget for ``judge``'s model; an error when its price is unknown.

    Raises:
        InputError: a negative cap, or a model the price table does not know.
    """
    if not max_cost >= 0:
        raise InputError(
            None, "the cost cap is a number of dollars >= 0", field="--max-cost", value=max_cost
        )
    model = getattr(judge, "model", None)
    price = prices.price_for(model) if isinstance(model, str) else None
    if price is None:
        raise InputError(
            None,
            "no price for this judge model, so no cost cap can be kept; add it to a price "
            "file (--prices FILE)",
            field="model",
            value=model,
        )
    return Budget(max_cost, price)


@dataclass(frozen=True)
class BatchOutcome:
    """What :func:`run_batches` did: the results in batch order, and the calls skipped."""

    results: list[list[JudgeResult]]
    sent: int
    skipped: int
    cap_reason: str | None = None


def _money(x: float) -> str:
    return f"${x:.4f}"


def run_batches(
    judge: Judge,
    batches: Sequence[Sequence[JudgeRequest]],
    *,
    double_check: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    budget: Budget | None = None,
    progress: bool | None = None,
) -> BatchOutcome:
    """Ask ``judge`` about every batch, ``concurrency`` at a time, results in batch order.

    Args:
        judge: any judge; one with an ``estimate(requests, double_check=)`` method (the
            live judges) can be held to a ``budget``.
        batches: the requests, one list per judge call.
        double_check: ask the judge to revise each answer once.
        concurrency: the most calls in flight at once (1 = one after another).
        budget: stop before the estimated cost would pass the cap.
        progress: a progress bar over calls (tqdm.auto: a widget in notebooks, stderr in
            a terminal); ``None`` shows it for a live judge (one with ``estimate``) on a
            terminal or in a notebook, never for a replay.

    Raises:
        InputError: ``concurrency`` below 1, a judge returning the wrong number of
            results; any error the judge raises (e.g. a cassette miss), for the first
            failing batch in order.
    """
    if concurrency < 1:
        raise InputError(
            None, "at least one judge call must run", field="--judge-concurrency", value=concurrency
        )
    from tqdm.auto import tqdm  # tqdm.auto (~0.4 s, ipywidgets): only when calls are sent

    estimate: Callable[..., Any] | None = getattr(judge, "estimate", None)
    if progress is None and estimate is None:
        progress = False  # a replay answers at once: nothing to watch
    n = len(batches)
    bar = tqdm(
        total=n,
        desc="judge calls",
        unit="call",
        disable=(not progress) if progress is not None else None,
        leave=False,
    )
    calls = _Calls(judge, batches, budget, bar)
    with bar, ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge") as pool:
        stop, cap_reason = calls.send(pool, concurrency, estimate, double_check)
        while calls.in_flight:
            calls.wait_one()
    if calls.errors:
        raise calls.errors[min(calls.errors)]
    skipped = calls.skip_from(stop, cap_reason)
    done = [r for r in calls.results if r is not None]
    assert len(done) == n
    return BatchOutcome(done, sent=n - skipped, skipped=skipped, cap_reason=cap_reason)


class _Calls:
    """The judge calls of one :func:`run_batches`: the results so far (in batch order), the
    errors by batch, the money spent and the calls in flight with their estimated cost."""

    def __init__(
        self,
        judge: Judge,
        batches: Sequence[Sequence[JudgeRequest]],
        budget: Budget | None,
        bar: Any,
    ) -> None:
        self.judge = judge
        self.batches = batches
        self.budget = budget
        self.bar = bar
        self.results: list[list[JudgeResult] | None] = [None] * len(batches)
        self.errors: dict[int, BaseException] = {}
        self.spent = 0.0
        self.in_flight: dict[Future[list[JudgeResult]], tuple[int, float]] = {}

    def send(
        self,
        pool: ThreadPoolExecutor,
        concurrency: int,
        estimate: Callable[..., Any] | None,
        double_check: bool,
    ) -> tuple[int | None, str | None]:
        """Submit the batches in order, at most ``concurrency`` in flight, until one fails
        or the next would pass the budget: the index of that next batch and why (else
        ``None, None``)."""
        for index, batch in enumerate(self.batches):
            if self.errors:
                break
            cost = 0.0
            if self.budget is not None and estimate is not None:
                bound = estimate(batch, double_check=double_check)
                cost = self.budget.price.cost(bound.input_tokens, bound.output_tokens)
                reason = self._make_room(cost, self.budget)
                if reason is not None:
                    return index, reason
            while len(self.in_flight) >= concurrency:
                self.wait_one()
            future = pool.submit(self.judge.judge, batch, double_check=double_check)
            self.in_flight[future] = (index, cost)
        return None, None

    def _make_room(self, cost: float, budget: Budget) -> str | None:
        """Wait for calls in flight until a call estimated at ``cost`` fits the cap with
        what they may still cost; why not, when it does not fit even with none in flight."""
        reserved = sum(c for _, c in self.in_flight.values())
        while self.in_flight and self.spent + reserved + cost > budget.max_cost:
            self.wait_one()
            reserved = sum(c for _, c in self.in_flight.values())
        if self.spent + cost > budget.max_cost:
            return (
                f"not judged: the cost cap of {_money(budget.max_cost)} would be "
                f"exceeded (spent {_money(self.spent)}, next call estimated at up to "
                f"{_money(cost)})"
            )
        return None

    def wait_one(self) -> None:
        """Wait for at least one call in flight to finish, and settle what finished."""
        done, _ = wait(list(self.in_flight), return_when=FIRST_COMPLETED)
        self._settle(done)

    def _settle(self, done: Iterable[Future[list[JudgeResult]]]) -> None:
        """Keep each finished call's results (or its error, or a wrong count of results as
        an error) and add what it cost to what was spent."""
        for future in done:
            index, _ = self.in_flight.pop(future)
            self.bar.update()
            try:
                answer = future.result()
            except Exception as exc:  # re-raised by run_batches, for the first failing batch
                self.errors[index] = exc
                continue
            if len(answer) != len(self.batches[index]):
                self.errors[index] = InputError(
                    None,
                    f"the judge returned {len(answer)} results for "
                    f"{len(self.batches[index])} requests",
                    field="judge",
                    value=self.judge.name,
                )
                continue
            self.results[index] = answer
            if self.budget is not None:
                self.spent += self.budget.price.cost(
                    sum(r.input_tokens for r in answer), sum(r.output_tokens for r in answer)
                )

    def skip_from(self, stop: int | None, cap_reason: str | None) -> int:
        """The batches from ``stop`` on (not sent: the cost cap) as transient absences
        naming ``cap_reason``; how many."""
        if stop is None:
            return 0
        for index in range(stop, len(self.batches)):
            self.results[index] = [
                JudgeResult(None, "", error=cap_reason, transient=True) for _ in self.batches[index]
            ]
        return len(self.batches) - stop


@dataclass(frozen=True)
class Tokens:
    """Input and output tokens, and their estimated cost (``None`` without a price)."""

    input_tokens: int
    output_tokens: int
    cost: float | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost is None else round(self.cost, 6),
        }


@dataclass(frozen=True)
class JudgeUsage:
    """The account of the judge calls of one evaluation.

    Attributes:
        judge: the judge's name.
        model: the live model priced (``None`` for a judge without one).
        price: its price (dollars per million tokens), ``None`` when unknown.
        calls: batches sent to the live model (a double-check batch makes two API calls).
        answered_live: propositions answered by a live call in this run (a usable answer).
        replayed: propositions answered without a live call (from the cassette).
        failed: propositions whose call failed (absent, asked again on resume).
        unusable: propositions whose reply held no usable answer (unparseable, or a value
            off the scale): absent, with the judge error.
        not_judged: propositions left absent by the cost cap.
        total: all tokens and the estimated cost.
        by_dimension: tokens and cost per dimension.
        by_agent: tokens and cost per agent id (``environment`` for the group).
        max_cost: the cost cap, if any; ``cap_reason`` says why calls were skipped.
        estimated_calls: calls whose server reported no believable usage (none, negative,
            not whole, or beyond the request's maximum): each counted at that maximum.
    """

    judge: str
    model: str | None
    price: Price | None
    calls: int
    answered_live: int
    replayed: int
    failed: int
    not_judged: int
    total: Tokens
    by_dimension: dict[str, Tokens] = field(default_factory=dict)
    by_agent: dict[str, Tokens] = field(default_factory=dict)
    max_cost: float | None = None
    cap_reason: str | None = None
    estimated_calls: int = 0
    unusable: int = 0

    @property
    def absent(self) -> int:
        """Propositions left without a score: unusable replies, failed calls, the cap's."""
        return self.unusable + self.failed + self.not_judged

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (for ``--format json``)."""
        return {
            "judge": self.judge,
            "model": self.model,
            "price_per_million": None
            if self.price is None
            else {"input": self.price.input, "output": self.price.output},
            "calls": self.calls,
            "answered_live": self.answered_live,
            "replayed": self.replayed,
            "failed": self.failed,
            "unusable": self.unusable,
            "not_judged": self.not_judged,
            "absent": self.absent,
            "max_cost_usd": self.max_cost,
            "cap_reason": self.cap_reason,
            "estimated_calls": self.estimated_calls,
            "total": self.total.to_dict(),
            "by_dimension": {k: v.to_dict() for k, v in self.by_dimension.items()},
            "by_agent": {k: v.to_dict() for k, v in self.by_agent.items()},
        }

    def lines(self, width: int = 80) -> list[str]:
        """A few lines for a terminal (wrapped at ``width``): calls, tokens, cost, cap."""
        cost = "cost unknown (no price for this model)"
        if self.total.cost is not None and self.price is not None:
            cost = (
                f"est. cost {_money(self.total.cost)} (${self.price.input:g}/"
                f"${self.price.output:g} per M tokens in/out)"
            )
        parts = [
            f"judge {self.judge}: {self.calls} call(s)",
            f"propositions: {self.answered_live} answered live, {self.replayed} replayed "
            f"from the cassette, {self.unusable} unusable replies, {self.failed} failed, "
            f"{self.not_judged} not judged; {self.absent} absent",
            f"tokens: {self.total.input_tokens:,} in, {self.total.output_tokens:,} out; {cost}",
        ]
        if self.by_agent:
            parts.append(
                "tokens by agent: "
                + ", ".join(
                    f"{k} {v.input_tokens + v.output_tokens:,}"
                    + ("" if v.cost is None else f" ({_money(v.cost)})")
                    for k, v in self.by_agent.items()
                )
            )
        if self.estimated_calls:
            parts.append(
                f"usage: {self.estimated_calls} call(s) reported no believable token counts "
                "and were counted at the request's maximum"
            )
        if self.cap_reason is not None:
            parts.append(f"cost cap reached: {self.not_judged} proposition(s) {self.cap_reason}")
        out = parts[:1]
        for part in parts[1:]:
            out += textwrap.wrap(
                part, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
            )
        return out

    def _repr_html_(self) -> str:
        def row(name: str, t: Tokens) -> str:
            cost = "" if t.cost is None else _money(t.cost)
            num = '<td style="text-align:right">'
            return (
                f"<tr><td>{escape(name)}</td>{num}{t.input_tokens:,}</td>"
                f"{num}{t.output_tokens:,}</td>{num}{cost}</td></tr>"
            )

        head = "<tr><th></th><th>tokens in</th><th>tokens out</th><th>est. cost</th></tr>"
        body = [row("total", self.total)]
        body += [row(f"dimension {k}", v) for k, v in self.by_dimension.items()]
        body += [row(f"agent {k}", v) for k, v in self.by_agent.items()]
        notes = "".join(f"<div>{escape(line.strip())}</div>" for line in self.lines(10_000)[:2])
        cap = f"<div>{escape(self.lines(10_000)[-1].strip())}</div>" if self.cap_reason else ""
        return f"<div>{notes}{cap}<table>{head}{''.join(body)}</table></div>"

    def __repr__(self) -> str:
        return (
            f"JudgeUsage({self.judge}: {self.calls} call(s), {self.total.input_tokens:,} "
            f"tokens in, {self.total.output_tokens:,} out)"
        )


def _tokens(pairs: Iterable[tuple[int, int]], price: Price | None) -> Tokens:
    total_in = total_out = 0
    for i, o in pairs:
        total_in += i
        total_out += o
    return Tokens(total_in, total_out, None if price is None else price.cost(total_in, total_out))


def judge_usage(
    judge: Judge,
    entries: Sequence[tuple[str, str, JudgeResult]],
    outcome: BatchOutcome,
    *,
    prices: PriceTable | None = None,
    max_cost: float | None = None,
    usable: Sequence[bool] | None = None,
) -> JudgeUsage:
    """Account for ``entries`` (dimension, subject, result) of one :func:`run_batches`.

    A live answer carries tokens (reported, or the call's estimate when the server
    reported none); an answer without tokens came from a cassette (or a judge that
    reports none). A transient result is a failed call, or the cap's when it names it.
    A reply that came back but holds no usable answer (``usable``, one flag per entry,
    as the caller decided: by default a reply with a value) is counted as unusable, not
    as answered, whether live or replayed.
    """
    model = getattr(judge, "model", None)
    model = model if isinstance(model, str) else None
    price = prices.price_for(model) if (prices is not None and model is not None) else None
    cap = outcome.cap_reason

    def capped(r: JudgeResult) -> bool:
        return r.transient and cap is not None and r.error == cap

    def live(r: JudgeResult) -> bool:
        return r.input_tokens + r.output_tokens > 0 or (r.transient and not capped(r))

    by_dim: dict[str, list[tuple[int, int]]] = {}
    by_agent: dict[str, list[tuple[int, int]]] = {}
    for dimension, subject, result in entries:
        pair = (result.input_tokens, result.output_tokens)
        by_dim.setdefault(dimension, []).append(pair)
        by_agent.setdefault(subject, []).append(pair)
    results = [r for _, _, r in entries]
    ok = list(usable) if usable is not None else [r.value is not None for r in results]
    if len(ok) != len(results):
        raise ValueError("judge_usage: one usable flag per entry")
    answered = [r for r, good in zip(results, ok, strict=True) if good and not r.transient]
    failed = sum(1 for r in results if r.transient and not capped(r))
    not_judged = sum(1 for r in results if capped(r))
    return JudgeUsage(
        judge=judge.name,
        model=model,
        price=price,
        calls=sum(1 for batch in outcome.results if any(live(r) for r in batch)),
        answered_live=sum(1 for r in answered if live(r)),
        replayed=sum(1 for r in answered if not live(r)),
        failed=failed,
        not_judged=not_judged,
        total=_tokens(((r.input_tokens, r.output_tokens) for r in results), price),
        by_dimension={k: _tokens(v, price) for k, v in by_dim.items()},
        by_agent={k: _tokens(v, price) for k, v in by_agent.items()},
        max_cost=max_cost,
        cap_reason=cap,
        estimated_calls=sum(
            1 for batch in outcome.results if any(r.usage_estimated for r in batch)
        ),
        unusable=sum(1 for r in results if not r.transient) - len(answered),
    )
