"""The hands-off agent: the model works on the file like a coding agent, calling tools through
a text protocol until it stops or its budget ends (VeruSAGE's hands-off mode, notes B4; no
upstream code exists for it, so the protocol is ours).

Every reply may edit the file (search-and-replace blocks, or the whole file in a ```rust block)
and may end with one command line:

- ``RUN verus``: check the current file (cheat checker, then Verus) and see the errors;
- ``RUN cheats``: only the cheat checker (no Verus run);
- ``RUN vstd [FILE]``: list the vstd sources, or show one (when ``vstd_path`` is set);
- ``RUN grep WORD``: search the vstd sources;
- ``DONE``: stop; the current file is the answer. A reply with no command also stops.

Options: ``max_turns`` (40), ``max_minutes`` (60), ``max_verus_runs`` (25), ``vstd_path``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import ClassVar

import attrs
from speckernel.components import Agent, AgentContext
from speckernel.model import Files, Message, Task

from speckernel_verus.artifact import task_file
from speckernel_verus.cheats import cheat_report
from speckernel_verus.edits import EditError, apply_edits, parse_edits
from speckernel_verus.feedback import read_check
from speckernel_verus.vstd import VstdSources

COMMAND = re.compile(r"^[ \t]*(RUN[ \t]+(\w+)(?:[ \t]+(\S.*?))?|DONE)[ \t]*$", re.MULTILINE)
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

PROTOCOL = """You complete proofs in Verus, the verifier for Rust, working on one file.
Add only proof code (assertions, proof blocks, loop invariants, decreases clauses, lemma calls,
new spec or proof functions). Never change specifications, executable code or existing items,
never use assume(...), admit(), #[verifier::external_body] or axioms: the cheat checker rejects
such files.

Edit the file with search-and-replace blocks:
<<<<<<< SEARCH
(lines copied exactly from the current file)
=======
(their replacement)
>>>>>>> REPLACE
or give the whole new file in one ```rust block. Then end your reply with one command line:
RUN verus          check the current file with the cheat checker and Verus
RUN cheats         only the cheat checker
RUN vstd [FILE]    list the vstd library sources, or show one file
RUN grep WORD      search the vstd sources
DONE               stop: the current file is your answer
A reply without a command also stops."""


@attrs.frozen
class Command:
    name: str
    argument: str = ""


def parse_command(answer: str) -> Command | None:
    """The reply's last command outside code blocks (None: the model stopped)."""
    outside = FENCE.sub("", answer)
    matches = COMMAND.findall(outside)
    if not matches:
        return None
    whole, name, argument = matches[-1]
    return Command("done") if whole == "DONE" else Command(name.lower(), argument.strip())


def apply_answer(code: str, answer: str) -> tuple[str, str]:
    """The file after the reply's edits, and a note for the model when they failed."""
    edits = parse_edits(answer)
    if edits:
        try:
            return apply_edits(code, edits), "Edits applied."
        except EditError as exc:
            return code, f"Edits not applied, the file is unchanged: {exc}"
    files = [body for body in FENCE.findall(answer) if "verus!" in body]
    if files:
        return files[-1], "File replaced."
    return code, ""


class HandsOffAgent(Agent):
    """A coding-agent loop with Verus, the cheat checker and the vstd sources as tools."""

    name = "verus-hands-off"
    description = "hands-off: the model edits the file and calls Verus/cheat checker/vstd tools"
    benchmarks = ("verus",)
    MAX_TURNS: ClassVar[int] = 40
    MAX_MINUTES: ClassVar[float] = 60.0
    MAX_VERUS_RUNS: ClassVar[int] = 25

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        file = task_file(task)
        original = code = task.files[file]
        vstd_path = ctx.options.get("vstd_path")
        vstd = VstdSources(Path(str(vstd_path))) if vstd_path else None
        messages = [Message("system", PROTOCOL), Message("user", (
            f"{task.prompt.strip()}\n\nFile {file}:\n```rust\n{code}\n```").strip())]
        runs_left = int(ctx.options.get("max_verus_runs", self.MAX_VERUS_RUNS))
        deadline = time.monotonic() + 60 * float(ctx.options.get("max_minutes", self.MAX_MINUTES))
        for _ in range(int(ctx.options.get("max_turns", self.MAX_TURNS))):
            if time.monotonic() >= deadline:
                ctx.log("hands-off: time budget used up")
                break
            answer = (await ctx.generate(messages)).text
            code, note = apply_answer(code, answer)
            command = parse_command(answer)
            if command is None or command.name == "done":
                break
            if command.name == "verus":
                if runs_left <= 0:
                    observation = "No Verus runs left in the budget; finish with DONE."
                else:
                    runs_left -= 1
                    check = read_check(await ctx.verify({file: code}))
                    if check.solved or check.infrastructure:
                        ctx.log(f"hands-off: {check.summary().splitlines()[0]}")
                        break
                    observation = check.summary()
            elif command.name == "cheats":
                target = task.metadata.get("target")
                observation = await cheat_report(
                    ctx.sandbox, original, code, target if isinstance(target, str) else None)
            elif command.name in ("vstd", "grep"):
                observation = self._vstd(vstd, command)
            else:
                observation = f"Unknown command {command.name!r}."
            messages += [Message("assistant", answer),
                         Message("user", "\n\n".join(p for p in (note, observation) if p))]
        return {file: code}

    @staticmethod
    def _vstd(vstd: VstdSources | None, command: Command) -> str:
        if vstd is None:
            return "The vstd sources are not available in this run."
        if command.name == "grep":
            return vstd.grep(command.argument) if command.argument else "RUN grep needs a word."
        return vstd.show(command.argument) if command.argument else vstd.listing()
