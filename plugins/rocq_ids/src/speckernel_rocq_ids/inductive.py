"""The Inductive Synthesis Agent (IDS §4.2): what to do when the deductive search is stuck.

The *proposer* reads the stuck state (its holes with their goals, Coq's last rejection) and
writes tactical guidance in prose: which invariant to strengthen, which lemma to state first,
which tactic closes which goal. It writes no code; the deductive agent still makes every step.

The *reloader* escalates each time the coordinator reports a stall:

1. guidance from the proposer, search continues from the current state;
2. back to the current design (the nearest ``define`` state) with fresh guidance: the proofs are
   redone, the definitions kept;
3. and beyond: a new design blueprint (state representation, what each method does, the
   refinement relation and its invariants), and the search restarts from the empty file.
"""

from __future__ import annotations

from speckernel.components import AgentContext
from speckernel.model import Message

from speckernel_rocq_ids.deductive import DeductiveSearch

PROPOSER = """\
You are the proposer of the Inductive Synthesis Agent. A deductive agent is stuck proving a Coq
refinement. Read its current state and Coq's feedback, and write short tactical guidance in
prose (no code block): which lemma to state first, which invariant the relation lacks, which
tactics close which goal."""

RELOADER = """\
You are the reloader of the Inductive Synthesis Agent. The deductive agent failed with the
designs below. Write a new design blueprint in prose (no code block): the client and replica
state (bounded by keys x clients), what each of the seven methods does, the refinement relation
and the invariants its proof needs. It must differ from the failed designs."""


class Proposer:
    """Writes tactical guidance for a stuck proof."""

    async def guidance(self, ctx: AgentContext, search: DeductiveSearch) -> str:
        state = search.state
        parts = [search.task.prompt.strip(),
                 f"Current state (node {state.id}, {state.holes} holes):\n```\n{state.text}\n"
                 f"```\nCoq on it:\n{state.feedback}"]
        if search.rejected is not None:
            parts.append(f"Coq rejected the last draft:\n{search.rejected[1]}")
        completion = await ctx.generate([Message("system", PROPOSER),
                                         Message("user", "\n\n".join(parts))])
        return completion.text.strip()


class Reloader:
    """Escalates a stalled search level by level (see the module docstring)."""

    def __init__(self, proposer: Proposer | None = None) -> None:
        self.proposer = proposer or Proposer()
        self.level = 0
        self.designs: list[str] = []

    async def escalate(self, ctx: AgentContext, search: DeductiveSearch) -> int:
        """Act on a stall; returns the level reached."""
        self.level += 1
        ctx.log(f"{search.name}: stalled, reloader level {self.level}")
        if self.level == 1:
            search.guidance = await self.proposer.guidance(ctx, search)
        elif self.level == 2:
            search.revert_to(search.tree.last_define(search.current), "reloader: redo proofs")
            search.guidance = await self.proposer.guidance(ctx, search)
        else:
            design = search.tree.nodes[search.tree.last_define(search.current)].text
            if design:
                self.designs.append(design)
            search.restart(await self.blueprint(ctx, search))
        return self.level

    async def blueprint(self, ctx: AgentContext, search: DeductiveSearch) -> str:
        failed = "\n\n".join(f"Failed design {i}:\n```\n{text}\n```"
                             for i, text in enumerate(self.designs, 1)) or "(none kept)"
        completion = await ctx.generate([
            Message("system", RELOADER),
            Message("user", f"{search.task.prompt.strip()}\n\n{failed}")])
        return completion.text.strip()
