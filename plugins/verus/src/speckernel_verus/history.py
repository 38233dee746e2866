"""The hands-on agent's memory of rejected attempts (VeruSAGE's ``FailureHistoryManager``):
each action is tried at most three times, and every rejection, with its reason and diff, is
shown to later prompts so the model does not repeat it."""

from __future__ import annotations

import attrs

MAX_ATTEMPTS_PER_ACTION = 3


@attrs.frozen
class Attempt:
    action: str
    reason: str
    diff: str = ""


@attrs.frozen
class History:
    """Rejected attempts, oldest first; ``record`` returns a new history."""

    attempts: tuple[Attempt, ...] = ()
    limit: int = MAX_ATTEMPTS_PER_ACTION

    def record(self, action: str, reason: str, diff: str = "") -> History:
        return attrs.evolve(self, attempts=(*self.attempts, Attempt(action, reason, diff)))

    def tries(self, action: str) -> int:
        return sum(a.action == action for a in self.attempts)

    def exhausted(self, action: str) -> bool:
        """Whether ``action`` has used up its attempts."""
        return self.tries(action) >= self.limit

    def render(self, last: int = 5, diff_chars: int = 1500) -> str:
        """The latest rejections as prompt text (empty when there are none)."""
        if not self.attempts:
            return ""
        parts = ["Earlier attempts that were rejected (do not repeat them):"]
        for attempt in self.attempts[-last:]:
            parts.append(f"- {attempt.action}: {attempt.reason}")
            if attempt.diff:
                parts.append("```diff\n" + attempt.diff[:diff_chars].rstrip() + "\n```")
        return "\n".join(parts)
