"""The evaluator's side of a sample: files a benchmark prepares for its verifiers, with the run's
evaluator model (:meth:`speckernel.components.Benchmark.prepare`).

An agent's answer is the candidate's word, and some criteria must not be: SysMoBench's
evaluator concretises each invariant template in the vocabulary of the model it judges, since a
model under test writing them could write ``TRUE``. Files under ``evaluator/`` are the
benchmark's: the kernel drops any an agent returns there, adds what ``prepare`` gives, and
records the evaluator's calls in the candidate's provenance (``notes["evaluator"]``), apart
from the agent's own. ``kernel rescore`` judges the saved candidate, these files included,
calling no model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import attrs

from speckernel.components import Benchmark, EvaluatorContext
from speckernel.errors import KernelError
from speckernel.model import (
    JSON,
    Candidate,
    Completion,
    GenerateParams,
    Message,
    Task,
    Usage,
    to_json,
)

EVALUATOR_DIR = "evaluator/"
"""Where an evaluator's files live in a candidate; no agent may write there."""


def in_evaluator_dir(name: str) -> bool:
    """Whether file ``name`` lands in (or is) ``evaluator`` in a work directory: spelt
    ``./evaluator/x`` or ``evaluator//x`` it is the same file as ``evaluator/x``."""
    parts = PurePosixPath(name).parts
    return bool(parts) and parts[0] == EVALUATOR_DIR.rstrip("/")

Complete = Callable[[str, Sequence[Message], GenerateParams | None, Mapping[str, JSON]],
                    Awaitable[tuple[list[Message], Completion]]]
"""How the runner asks a model: (model id, messages, params, what tells the call apart in the
cache) -> (messages as sent, completion); ``Engine.complete``."""


class RunEvaluator(EvaluatorContext):
    """The ``EvaluatorContext`` of one sample: counts the evaluator's calls and usage."""

    def __init__(self, model_name: str | None, options: Mapping[str, Any], complete: Complete,
                 log: Callable[[str], None], sample_index: int) -> None:
        self.model_name = model_name
        self.options = options
        self._complete = complete
        self._log = log
        self._index = sample_index
        self.calls = 0
        self.usage = Usage()

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        if self.model_name is None:
            raise KernelError("this run names no evaluator model "
                              "(--evaluator-model PROVIDER:NAME)")
        _, completion = await self._complete(
            self.model_name, messages, params,
            {"evaluator": True, "sample": self._index, "call": self.calls})
        self.calls += 1
        self.usage = self.usage + completion.usage
        self.log(f"evaluator {self.model_name}: {completion.usage.input_tokens} in, "
                 f"{completion.usage.output_tokens} out, {completion.latency_s:.2f} s"
                 + (" (cached)" if completion.cached else ""))
        return completion

    def log(self, message: str) -> None:
        self._log(message)


def agents_own(candidate: Candidate) -> Candidate:
    """``candidate`` without the files its agent named under ``evaluator/``."""
    return attrs.evolve(candidate, files={name: text for name, text in candidate.files.items()
                                          if not in_evaluator_dir(name)})


def unprepared(candidate: Candidate, error: str) -> Candidate:
    """What is recorded of an answer whose preparation failed: the agent's own files (none it
    named under ``evaluator/``, which a later reader would take for the evaluator's), marked
    (``notes["evaluator"]["error"]``) so that ``kernel rescore``, which calls no model, leaves
    the sample as it is: judged without the evaluator's files, the candidate would be judged by
    the criteria it wrote itself, and a candidate can make its evaluator's call fail."""
    own = agents_own(candidate)
    notes = {**own.provenance.notes, "evaluator": {"error": error}}
    return attrs.evolve(own, provenance=attrs.evolve(own.provenance, notes=notes))


def preparation_failed(candidate: Candidate) -> bool:
    """Whether ``candidate`` is an answer whose preparation failed (:func:`unprepared`)."""
    note = candidate.provenance.notes.get("evaluator")
    return isinstance(note, Mapping) and "error" in note


async def prepared(benchmark: Benchmark, candidate: Candidate, task: Task,
                   ctx: RunEvaluator) -> Candidate:
    """``candidate`` as its verifiers judge it: without the files the agent named under
    ``evaluator/``, with the ones the benchmark's ``prepare`` gives; ``KernelError`` for a
    ``prepare`` answer that is not a mapping of ``evaluator/`` names to text."""
    answer = agents_own(candidate)
    own = answer.files
    if len(own) < len(candidate.files):
        ctx.log(f"dropped {len(candidate.files) - len(own)} file(s) the agent wrote under "
                f"{EVALUATOR_DIR} (the evaluator's place)")
    added = await benchmark.prepare(answer, task, ctx)
    if not isinstance(added, Mapping) or not all(
            isinstance(k, str) and k.startswith(EVALUATOR_DIR) and isinstance(v, str)
            and ".." not in PurePosixPath(k).parts for k, v in added.items()):
        raise KernelError(f"benchmark {benchmark.name}: prepare must give text files named "
                          f"under {EVALUATOR_DIR}, not {str(added)[:120]}")
    if not added and not ctx.calls:
        return answer
    notes = {**candidate.provenance.notes, "evaluator": {
        "model": ctx.model_name, "calls": ctx.calls, "usage": to_json(ctx.usage),
        "files": sorted(added)}}
    return Candidate({**own, **added}, attrs.evolve(candidate.provenance, notes=notes))
