"""The run's money: what was spent, what the model calls in flight may still spend, and the usage
a provider may report.

``--max-cost`` used to be checked only when a call started, against what finished calls had
spent: with 2 calls of $20 in flight and a $30 cap, both started at $0 and the next pair at $40,
so the run spent $80 (issue 20). A call now *reserves* the most it can cost before it is sent
(``Model.max_cost_usd``: its input bounded by one token per byte, its output by ``max_tokens``,
priced by the price table) and starts only if it still fits under the cap with every
reservation in flight; one that does not fit waits for the calls in flight, and when none is
left it is not started at all: the budget is *closed* and the run stops (issue 17: a $0.001 cap
used to stop at $0.0031, one call past it). Hence the guarantee: the run never spends more than
the cap. A model that cannot bound its cost (no ``max_tokens``, a plugin's provider) is reserved
at the largest cost one of its calls has had in this run, and its first call runs alone: for
those the run never spends more than the cap plus that first call, as long as no call costs more
than the largest one before it.

A provider that reports negative token counts or a negative, infinite or NaN cost is refused:
the call is an ``error`` (re-run on resume), never a refund that keeps the cap from triggering.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from speckernel.errors import KernelError, ProviderError
from speckernel.model import Usage


class BudgetExhausted(KernelError):
    """``--max-cost`` was reached; the sample is recorded as ``error`` so a resume with a larger
    budget runs it again."""


class Budget:
    """Money spent across the run; ``max_cost`` None means unlimited (and costs nothing to
    check)."""

    def __init__(self, max_cost: float | None) -> None:
        self.max_cost = max_cost
        self.spent = 0.0
        self.reserved = 0.0
        self._in_flight = 0
        self._unbounded = 0
        self._largest: dict[str, float] = {}
        self._waiters: list[anyio.Event] = []
        self.refused = 0
        """Calls refused because the cap was reached (the run then says it stopped early)."""
        self.closed = False
        """A call that could pass the cap was refused: no call starts any more."""

    @property
    def exhausted(self) -> bool:
        return self.max_cost is not None and (self.closed or self.spent >= self.max_cost)

    def check(self) -> None:
        """Raise ``BudgetExhausted`` (and count the refusal) once the cap is reached."""
        if self.exhausted:
            self.refused += 1
            raise BudgetExhausted(f"--max-cost {self.max_cost:g} reached")

    @asynccontextmanager
    async def reserve(self, model_id: str, worst_usd: float | None) -> AsyncIterator[None]:
        """Hold a reservation for one call to ``model_id`` costing at most ``worst_usd``
        (``None``: unknown) while it runs; waits while the calls in flight could spend what is
        left, and raises ``BudgetExhausted`` once the cap is reached. ``charge`` the call's
        actual cost before leaving."""
        if self.max_cost is None:
            yield
            return
        while True:
            self.check()
            # learnt again each time: a call that waited may now know its model's dearest call
            estimate = worst_usd if worst_usd is not None else self._largest.get(model_id)
            if estimate is None:  # nothing known of its cost: it runs alone
                if self._in_flight == 0:
                    break
            elif self._unbounded == 0 and self.spent + self.reserved + estimate <= self.max_cost:
                break
            elif self._in_flight == 0:  # it could pass the cap, and nothing will free room
                self.closed = True
                self.refused += 1
                raise BudgetExhausted(
                    f"--max-cost {self.max_cost:g} reached: the next call could cost up to "
                    f"${estimate:.4g} with ${self.spent:.4g} spent")
            event = anyio.Event()
            self._waiters.append(event)
            await event.wait()
        self._in_flight += 1
        if estimate is None:
            self._unbounded += 1
        else:
            self.reserved += estimate
        try:
            yield
        finally:
            self._in_flight -= 1
            if estimate is None:
                self._unbounded -= 1
            else:
                self.reserved -= estimate
            if self._in_flight == 0:
                self.reserved = 0.0  # no rounding residue outlives the calls
            waiters, self._waiters = self._waiters, []
            for event in waiters:
                event.set()

    def charge(self, model_id: str, usage: Usage) -> None:
        """Count a finished call's cost (checked by ``check_usage`` first)."""
        self.spent += usage.cost_usd
        self._largest[model_id] = max(self._largest.get(model_id, 0.0), usage.cost_usd)


def check_usage(model_id: str, usage: Usage) -> None:
    """Refuse usage no call can have: negative or non-integer token counts, a cost that is
    negative, infinite or NaN."""
    counts = (usage.input_tokens, usage.output_tokens, usage.calls)
    valid_counts = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts)
    cost = usage.cost_usd
    valid_cost = isinstance(cost, int | float) and math.isfinite(cost) and cost >= 0
    if not (valid_counts and valid_cost):
        raise ProviderError(f"{model_id}: the provider reported impossible usage "
                            f"({usage.input_tokens!r} tokens in, {usage.output_tokens!r} out, "
                            f"cost {cost!r} USD); the call is not counted")
