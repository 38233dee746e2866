"""Agents for ``respec``: ``respec-prompt`` asks a model, ``respec-replay`` re-submits the
candidates of an earlier run (to check them again under other options, e.g. the timeout sweep).

The task prompt already holds the domain's output format (``speckernel_respec.tasks.prompt``);
the agent's work is to get the specification back out of a free-form answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from speckernel.agents import extract_files
from speckernel.components import Agent, AgentContext
from speckernel.errors import KernelError
from speckernel.model import Files, Message, Task, Verdict
from speckernel.store import RunStore

from speckernel_respec.domains import spec_file
from speckernel_respec.tasks import BENCHMARK

ONE_LINE = frozenset({"gsm", "fol", "regex"})
"""Domains whose specification is one line, so an answer without a fence can still carry it."""

LABEL = re.compile(r"^\s*(?:final answer|answer|regex|regular expression|specification|spec|"
                   r"formula|expression)\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
INLINE = re.compile(r"`([^`\n]+)`")


def extract_spec(text: str, domain: str) -> str | None:
    """The specification in a model's answer, or None if there is none.

    In order: the fenced block (``speckernel.agents.extract_files``: a block named ``spec.<ext>``
    or the last unnamed one); then, for one-line domains only, the last line labelled
    ``Answer:`` (or ``Regex:``, ``Formula:``, ...), the last inline code span, the last
    non-empty line. Multi-line specifications (SQL, Gallina) without a fence are the whole
    answer: the verifier then reports what does not parse.
    """
    name = spec_file(domain)
    fenced = extract_files(text, (name,)).get(name)
    if fenced is not None:
        return fenced.strip("\r\n")
    if domain not in ONE_LINE:
        return text.strip() or None
    labelled = LABEL.findall(text)
    inline = INLINE.findall(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = labelled[-1] if labelled else inline[-1] if inline else lines[-1] if lines else None
    return found.strip("`") if found else None


def feedback(verdicts: Sequence[Verdict]) -> str:
    """A repair prompt from the verdicts: the reason and the counterexample, if any."""
    parts = []
    for verdict in verdicts:
        reason = verdict.data.get("reason") or verdict.summary()
        parts.append(f"The checker says: {verdict.data.get('verdict', verdict.status.value)}"
                     f" - {reason}")
        if verdict.data.get("counterexample") is not None:
            parts.append(f"Counterexample: {verdict.data['counterexample']}")
    return "\n".join(parts or ["No specification could be read from your answer."])


class RespecPromptAgent(Agent):
    """One prompt (the statement and the domain's output format), then up to ``rounds`` repair
    rounds (agent option, default 0) that feed the verifier's counterexample back."""

    name = "respec-prompt"
    description = "RESpecBench prompt: statement + output format, spec extracted from the answer"
    benchmarks = (BENCHMARK,)
    SYSTEM: ClassVar[str] = (
        "You translate natural-language statements into formal specifications. A checker "
        "decides whether your specification means exactly what the statement says.")

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        domain = str(task.metadata["domain"])
        messages = [Message("system", str(ctx.options.get("system", self.SYSTEM))),
                    Message("user", task.prompt)]
        rounds = int(ctx.options.get("rounds", 0))
        files: Files = {}
        for attempt in range(rounds + 1):
            completion = await ctx.generate(messages)
            spec = extract_spec(completion.text, domain)
            files = {} if spec is None else {spec_file(domain): spec}
            if attempt == rounds:
                break
            verdicts = await ctx.verify(files)
            if verdicts and all(v.passed for v in verdicts):
                break
            messages = [*messages, Message("assistant", completion.text),
                        Message("user", feedback(verdicts) + "\n\nAnswer again with the "
                                "corrected specification in one fenced code block.")]
        return files


@functools.cache
def _run_candidates(root: str) -> Mapping[tuple[str, int], Mapping[tuple[str, str], Files]]:
    """(task id, attempt) -> (agent, model) -> files, for every candidate of a run."""
    out: dict[tuple[str, int], dict[tuple[str, str], Files]] = {}
    for sample in RunStore(Path(root)).load_samples():
        if sample.candidate is not None:
            key = sample.key
            out.setdefault((key.task_id, key.index), {})[(key.agent, key.model)] = \
                sample.candidate.files
    return out


class ReplayAgent(Agent):
    """Returns the candidate an earlier run produced for the same task and attempt.

    Agent options: ``run`` (the run directory, required), ``agent`` and ``model`` (which of its
    agents and models, needed when it has several).
    """

    name = "respec-replay"
    description = "re-submits the candidates of an earlier run (agent option run=DIR)"
    benchmarks = (BENCHMARK,)
    needs_model = False

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        root = ctx.options.get("run")
        if not root:
            raise KernelError("agent respec-replay needs --agent-option run=DIR")
        found = _run_candidates(str(Path(str(root)).resolve())).get((task.id, ctx.key.index), {})
        chosen = [files for (agent, model), files in sorted(found.items())
                  if ctx.options.get("agent") in (None, agent)
                  and ctx.options.get("model") in (None, model)]
        where = f"run {root}, task {task.id}, attempt {ctx.key.index}"
        if not chosen:
            raise KernelError(f"{where}: no candidate")
        if len(chosen) > 1:
            raise KernelError(f"{where}: {len(chosen)} candidates (several agents or models); "
                              "choose one with the agent options agent= and model=")
        return chosen[0]
