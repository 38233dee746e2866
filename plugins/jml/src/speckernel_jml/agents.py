"""The ``jml-prompt`` and ``jml-repair`` agents (FormalBench's SpecInfer and SpecFixer).

Both record what the report needs as log lines (the kernel keeps them with the sample):
``jml-style <style>`` for the prompt style, and for the repair agent one
``jml-round <n> <status> <categories>`` line per verification, round 0 being the first answer;
:mod:`speckernel_jml.report` reads them back for Table 1 and the Figure 5 curve.
"""

from __future__ import annotations

from speckernel.components import Agent, AgentContext
from speckernel.model import Files, Status, Task, Verdict

from speckernel_jml.bundled import BENCHMARK
from speckernel_jml.prompting import STYLES, extract_specification, messages_for, repair_messages
from speckernel_jml.verifiers import VERIFY, program_file

STYLE_LOG = "jml-style"
ROUND_LOG = "jml-round"


def _style(ctx: AgentContext) -> str:
    style = str(ctx.options.get("style", "zero_shot"))
    if style not in STYLES:
        raise ValueError(f"agent option style: '{style}' is not one of {', '.join(STYLES)}")
    return style


async def _generate(task: Task, ctx: AgentContext, style: str) -> str:
    name = program_file(task)
    messages = messages_for(style, task.prompt, task.files[name])
    completion = await ctx.generate(messages)
    return extract_specification(completion.text)


class JmlPromptAgent(Agent):
    """One FormalBench prompt in the style of agent option ``style`` (``zero_shot``, ``zs_cot``,
    ``fs_cot``, ``two_shot``, ``fs_ltm``); the answer is judged as it is."""

    name = "jml-prompt"
    description = "FormalBench spec inference: one prompt in one of five styles"
    benchmarks = (BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        style = _style(ctx)
        ctx.log(f"{STYLE_LOG} {style}")
        return {program_file(task): await _generate(task, ctx, style)}


def _verdict(verdicts: list[Verdict]) -> Verdict | None:
    return next((v for v in verdicts if v.verifier == VERIFY), None)


class JmlRepairAgent(Agent):
    """FormalBench's self-repair: generate, verify, and for up to ``rounds`` (agent option,
    default 3) rounds classify the failures and send the category-specific fix prompt; stops at
    the first verified spec. A timeout or unknown verdict is repaired like a failure (the model
    may simplify the spec); every round's verdict is logged for the per-iteration SR/FR."""

    name = "jml-repair"
    description = "FormalBench self-repair: failure categories drive up to N fix prompts"
    benchmarks = (BENCHMARK,)

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        style = _style(ctx)
        rounds = int(ctx.options.get("rounds", 3))
        ctx.log(f"{STYLE_LOG} {style}")
        name = program_file(task)
        spec = await _generate(task, ctx, style)
        for round_number in range(rounds + 1):
            verdict = _verdict(await ctx.verify({name: spec}))
            status = verdict.status if verdict else Status.ERROR
            categories = list(verdict.data.get("categories", ())) if verdict else []
            ctx.log(f"{ROUND_LOG} {round_number} {status.value} {','.join(categories) or '-'}")
            if verdict is None or status in (Status.SUCCESS, Status.ERROR) or \
                    round_number == rounds:
                break
            completion = await ctx.generate(
                repair_messages(spec, verdict.summary(limit=30), categories))
            spec = extract_specification(completion.text)
        return {name: spec}
