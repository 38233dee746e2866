"""An agent context for testing feedback loops without Verus: the model is the kernel's scripted
model, and ``ctx.verify`` answers with verdicts built by the real parser from recorded Verus runs
(``tests/fixtures/verus``), chosen by markers the scripted edits put into the file."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from speckernel.components import AgentContext
from speckernel.model import (
    Completion,
    Diagnostic,
    Files,
    GenerateParams,
    Message,
    SampleKey,
    Status,
    Verdict,
)
from speckernel.sandbox.local import LocalSandbox
from speckernel.testing import ScriptedModel
from verus_fixtures import parsed

from speckernel_verus.feedback import CHEATS_VERIFIER
from speckernel_verus.verifier import verdict_for

FILE = "task.rs"

TASK_TEXT = """use vstd::prelude::*;
fn main() {}
verus! {
fn count_true(arr: &Vec<bool>) -> (count: u64)
    ensures count <= arr.len(),
{
    let mut index = 0;
    let mut counter = 0;
    while index < arr.len() {
        if arr[index] { counter += 1; }
        index += 1;
    }
    counter
}
} // verus!
"""

MISSING_VERUS = Verdict("verus.verify", Status.ERROR, (Diagnostic(
    "tool 'verus' is missing (no verus binary); install it with: kernel tools install"),))


def recorded_pipeline(cases: Sequence[tuple[str, str]], default: str,
                      cheats: Sequence[str] = ("assume(",)) -> Callable[[str], list[Verdict]]:
    """Judge a draft like the benchmark's pipeline: the cheat phase fails a draft containing
    one of ``cheats`` (and gates Verus off); otherwise the recorded run of the first case whose
    marker the draft contains (``default`` if none) is parsed into the Verus verdict."""
    def judge(code: str) -> list[Verdict]:
        if any(c in code for c in cheats):
            return [Verdict(CHEATS_VERIFIER, Status.FAILURE,
                            (Diagnostic("assume( count changed from 0 to 1"),))]
        case = next((case for marker, case in cases if marker in code), default)
        return [Verdict(CHEATS_VERIFIER, Status.SUCCESS), verdict_for(parsed(case), FILE)]
    return judge


class LoopContext(AgentContext):
    def __init__(self, model_id: str, judge: Callable[[str], list[Verdict]],
                 options: Mapping[str, Any] | None = None) -> None:
        self.model = ScriptedModel(model_id.removeprefix("scripted:"))
        self.judge = judge
        self.options = dict(options or {})
        self.key = SampleKey("t", "agent", model_id, 0)
        self.model_name = model_id
        self.seed = 0
        self.drafts: list[str] = []
        self.logs: list[str] = []
        self.sandbox = LocalSandbox()

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        return await self.model.complete(messages, params or GenerateParams())

    async def verify(self, files: Files) -> list[Verdict]:
        self.drafts.append(files[FILE])
        return self.judge(files[FILE])

    def log(self, message: str) -> None:
        self.logs.append(message)

    @property
    def prompts(self) -> list[str]:
        """The last user message of every model call."""
        return [call[-1].content for call in self.model.calls]
