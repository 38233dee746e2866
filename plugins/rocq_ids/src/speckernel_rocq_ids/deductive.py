"""The Deductive Synthesis Agent's search (IDS §4.1): one type-checked step per model call.

The search keeps a tree of *partial states*: drafts of ``Impl.v`` that Coq accepts, whose proofs
may still have holes (``admit``/``Admitted``). Each model answer names a move and gives the next
draft:

- ``define``: write or change the store's definitions (proofs may be holes);
- ``prove``: close at least one hole of the current state;
- ``decompose``: split a hole into lemmas (more holes, each smaller);
- ``repair``: fix the draft Coq just rejected, given its errors;
- ``revert``: go back to an earlier state (the parent, or ``MOVE: revert <node>``).

Coq is the only oracle (:class:`~speckernel_rocq_ids.checker.Checker`): a draft that does not
compile, or closes no hole under ``prove``, is rejected and its structured errors (location,
goal, hypotheses) come back in the next prompt. After ``max_repairs`` rejected drafts in a row
the search reverts by itself: the current state is marked dead and its parent becomes current.
"""

from __future__ import annotations

import re

import attrs
from speckernel.agents import extract_files
from speckernel.components import AgentContext
from speckernel.model import Message, Task

from speckernel_rocq_ids.checker import Check, Checker
from speckernel_rocq_ids.tasks import CANDIDATE_FILE

MOVES = ("define", "prove", "decompose", "repair", "revert")
_MOVE = re.compile(r"^\W*MOVE:\s*([A-Za-z]+)(?:\s+(\d+))?", re.IGNORECASE | re.MULTILINE)
ROOT = 0

SYSTEM = """\
You are the Deductive Synthesis Agent. You build a Coq (Rocq 8.16) file step by step; Coq checks
every step. A state may leave proofs open with `admit.` or `Admitted.` (holes). Answer with one
line `MOVE: <define|prove|decompose|repair|revert>` (for revert optionally a node number), then
the complete new Impl.v in a fenced block ```Impl.v. define: write the store (holes allowed);
prove: close at least one hole; decompose: split a hole into lemmas; repair: fix the draft Coq
rejected; revert: return to an earlier state (no file)."""


@attrs.frozen
class Node:
    """A type-checked partial state of the search tree."""

    id: int
    parent: int | None
    move: str
    text: str
    holes: int
    feedback: str = ""


@attrs.frozen
class Attempt:
    """One step of the search, as the log and the tests read it."""

    move: str
    accepted: bool
    node: int
    holes: int | None
    reason: str = ""


@attrs.frozen
class Answer:
    move: str
    target: int | None
    text: str | None


def parse_answer(text: str) -> Answer:
    """A model answer's move (``define`` when it names none) and draft, leniently."""
    found = _MOVE.search(text)
    move = found.group(1).lower() if found else "define"
    target = int(found.group(2)) if found and found.group(2) else None
    return Answer(move, target, extract_files(text, (CANDIDATE_FILE,)).get(CANDIDATE_FILE))


class SearchTree:
    """Partial states by id; ``dead`` ones were reverted away from and are not revisited."""

    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {ROOT: Node(ROOT, None, "root", "", -1, "empty file")}
        self.dead: set[int] = set()

    def add(self, parent: int, move: str, text: str, holes: int, feedback: str) -> Node:
        node = Node(len(self.nodes), parent, move, text, holes, feedback)
        self.nodes[node.id] = node
        return node

    def parent(self, node: int) -> int:
        return self.nodes[node].parent or ROOT

    def last_define(self, node: int) -> int:
        """The nearest ancestor-or-self state made by ``define`` (the current design)."""
        while node != ROOT and self.nodes[node].move != "define":
            node = self.parent(node)
        return node

    def path(self, node: int) -> list[Node]:
        out = [self.nodes[node]]
        while out[-1].parent is not None:
            out.append(self.nodes[out[-1].parent])
        return out[::-1]


class DeductiveSearch:
    """One worker of the Deductive Synthesis Agent on one task."""

    def __init__(self, task: Task, ctx: AgentContext, checker: Checker, name: str = "dsa",
                 max_repairs: int = 2) -> None:
        self.task, self.ctx, self.checker, self.name = task, ctx, checker, name
        self.max_repairs = max_repairs
        self.tree = SearchTree()
        self.current = ROOT
        self.rejected: tuple[str, str] | None = None  # last rejected draft and Coq's feedback
        self.last_draft = ""  # the last draft the model wrote, accepted or not
        self.failures = 0
        self.guidance = ""
        self.blueprint = ""
        self.attempts: list[Attempt] = []

    @property
    def state(self) -> Node:
        return self.tree.nodes[self.current]

    @property
    def complete(self) -> bool:
        """The current state compiles with no hole (the audit gate decides the rest)."""
        return self.current != ROOT and self.state.holes == 0 and self.rejected is None

    def _record(self, attempt: Attempt) -> Attempt:
        self.attempts.append(attempt)
        self.ctx.log(f"{self.name}: {attempt.move} -> "
                     f"{'node ' + str(attempt.node) if attempt.accepted else 'rejected'}"
                     f"{'' if attempt.holes is None else f', {attempt.holes} holes'}"
                     f"{': ' + attempt.reason if attempt.reason else ''}")
        return attempt

    def revert_to(self, node: int, reason: str) -> Attempt:
        """Backtrack: the states between ``node`` and the current one are dead."""
        kept = {n.id for n in self.tree.path(node)}
        self.tree.dead.update(n.id for n in self.tree.path(self.current) if n.id not in kept)
        self.current, self.rejected, self.failures = node, None, 0
        return self._record(Attempt("revert", True, node, self.state.holes, reason))

    def restart(self, blueprint: str) -> Attempt:
        """Start over from the empty file under a new design (the reloader's last level)."""
        self.blueprint, self.guidance = blueprint, ""
        return self.revert_to(ROOT, "new design blueprint")

    def reject(self, move: str, text: str | None, feedback: str) -> Attempt:
        """A draft Coq (or the audit) refused; too many in a row revert to the parent."""
        self.rejected = (text or "", feedback)
        self.failures += 1
        attempt = self._record(Attempt(move, False, self.current, None, feedback.split("\n")[0]))
        if self.failures > self.max_repairs and self.current != ROOT:
            self.revert_to(self.tree.parent(self.current),
                           f"{self.failures} rejected drafts in a row")
        return attempt

    async def step(self) -> Attempt:
        """One model call and one Coq check."""
        completion = await self.ctx.generate(self.messages())
        answer = parse_answer(completion.text)
        if answer.move not in MOVES:
            return self.reject(answer.move, answer.text,
                               f"unknown move '{answer.move}' (use one of {', '.join(MOVES)})")
        if answer.move == "revert":
            target = answer.target
            if target is None or target not in self.tree.nodes or target in self.tree.dead:
                target = self.tree.parent(self.current)
            return self.revert_to(target, "asked by the model")
        if answer.text is None:
            return self.reject(answer.move, None, f"the answer has no fenced {CANDIDATE_FILE}")
        self.last_draft = answer.text
        check = await self.checker.check(answer.text)
        if not check.accepted:
            return self.reject(answer.move, answer.text, check.render())
        holes = len(check.holes)
        if answer.move == "prove" and self.current != ROOT and holes >= self.state.holes:
            return self.reject(answer.move, answer.text,
                               f"prove closed no hole ({self.state.holes} before, {holes} after)")
        return self.accept(answer.move, answer.text, check)

    def accept(self, move: str, text: str, check: Check) -> Attempt:
        node = self.tree.add(self.current, move, text, len(check.holes), check.render())
        self.current, self.rejected, self.failures = node.id, None, 0
        return self._record(Attempt(move, True, node.id, node.holes))

    def messages(self) -> list[Message]:
        """The prompt of the next step: the task, the current state with its holes' goals,
        the last rejection, and the inductive agent's guidance and blueprint if any."""
        parts = [self.task.prompt.strip()]
        parts += [f"File {name}:\n```\n{text}\n```" for name, text in sorted(
            self.task.files.items())]
        if self.blueprint:
            parts.append(f"Design blueprint to follow:\n{self.blueprint}")
        state = self.state
        if state.id == ROOT:
            parts.append("Current state: node 0, the empty file. Start with MOVE: define.")
        else:
            trail = " -> ".join(f"{n.id}:{n.move}" for n in self.tree.path(state.id))
            parts.append(f"Current state: node {state.id} ({trail}), {state.holes} holes.\n"
                         f"```Impl.v\n{state.text}\n```\nCoq on this state:\n{state.feedback}")
        if self.rejected is not None:
            parts.append(f"Coq rejected your last draft:\n{self.rejected[1]}\n"
                         "Repair it (MOVE: repair) or revert.")
        if self.guidance:
            parts.append(f"Guidance for the stuck proof:\n{self.guidance}")
        return [Message("system", SYSTEM), Message("user", "\n\n".join(parts))]
