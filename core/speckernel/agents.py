"""The agents every benchmark can use: ``reference`` and ``prompt``."""

from __future__ import annotations

import re
from typing import ClassVar

from speckernel.components import Agent, AgentContext
from speckernel.errors import KernelError
from speckernel.model import Files, Message, Task, Verdict


class ReferenceAgent(Agent):
    """Returns the task's reference artifact, so every benchmark runs end to end offline and
    its verifiers can be validated against known-good answers."""

    name = "reference"
    description = "returns the task's reference artifact (no model)"
    needs_model = False

    def unsolvable(self, task: Task) -> str | None:
        return "no reference artifact" if task.reference is None else None

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        if task.reference is None:
            raise KernelError(f"task '{task.id}' has no reference artifact")
        return task.reference


FENCE = re.compile(r"^```[ \t]*([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FILE_LABEL = re.compile(r"(?:file:\s*|filename=|name=)?([\w./-]+\.\w+)\s*$")


def extract_files(text: str, expected: tuple[str, ...]) -> dict[str, str]:
    """The files in a model's answer.

    A fenced block whose info string names a file (```` ```tla file:Spin.tla ````, or just
    ```` ```Spin.tla ````) becomes that file. When exactly one file is expected, the last unnamed
    block is taken as that file. Anything else is ignored: a malformed answer yields fewer files,
    and the verifiers judge what is there.
    """
    files: dict[str, str] = {}
    unnamed: list[str] = []
    for info, body in FENCE.findall(text):
        words = info.split()
        named = next((m[1] for w in reversed(words) if (m := FILE_LABEL.fullmatch(w))), None)
        if named:
            files[named] = body
        else:
            unnamed.append(body)
    if len(expected) == 1 and expected[0] not in files and unnamed:
        files[expected[0]] = unnamed[-1]
    return files


def _expected_files(task: Task) -> tuple[str, ...]:
    declared = task.metadata.get("artifact_files")
    if isinstance(declared, list | tuple):
        return tuple(str(f) for f in declared)
    return tuple(sorted(task.reference)) if task.reference else ()


class PromptAgent(Agent):
    """One prompt, then up to ``rounds`` repair rounds that feed the verifiers' diagnostics back.

    Options (``agent_options`` in a run file): ``rounds`` (default 0), ``system`` (a system
    prompt replacing the default).
    """

    name = "prompt"
    description = "one prompt, optional repair rounds with verifier feedback"
    SYSTEM: ClassVar[str] = (
        "You write formal artifacts that a verifier will check. Answer with each file in its own "
        "fenced code block whose info string is the file name, e.g. ```Spec.tla")

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        expected = _expected_files(task)
        messages = [Message("system", str(ctx.options.get("system", self.SYSTEM))),
                    Message("user", self._task_text(task, expected))]
        rounds = int(ctx.options.get("rounds", 0))
        files: Files = {}
        for attempt in range(rounds + 1):
            completion = await ctx.generate(messages)
            files = extract_files(completion.text, expected) or files
            if attempt == rounds:
                break
            verdicts = await ctx.verify(files)
            if verdicts and all(v.passed for v in verdicts):
                break
            messages = [*messages, Message("assistant", completion.text),
                        Message("user", self._repair_text(verdicts, expected))]
        return files

    @staticmethod
    def _task_text(task: Task, expected: tuple[str, ...]) -> str:
        parts = [task.prompt.strip()]
        for name, text in sorted(task.files.items()):
            parts.append(f"File {name}:\n```\n{text}\n```")
        if expected:
            parts.append("Write these files: " + ", ".join(expected) + ".")
        return "\n\n".join(p for p in parts if p)

    @staticmethod
    def _repair_text(verdicts: list[Verdict], expected: tuple[str, ...]) -> str:
        report = "\n".join(v.summary() for v in verdicts if not v.passed) or \
            "No file could be read from your answer."
        return (f"The verifier rejected your artifact:\n{report}\n\nFix it and answer with the "
                f"complete files again ({', '.join(expected) or 'same names'}).")
