"""Run directories for the viewer's and ``kernel compare``'s tests, made two ways:

* by the kernel itself (``kernel_repair_run``): the fixture benchmark ``pyfunc``, the prompt agent
  and a scripted model give a real multi-round repair transcript, real verdicts (a syntax error
  located at its line) and the run directory ``kernel run`` writes;
* from test code in the real format (``write_run``): ``Sample`` values of the data model written
  through the run store's own writer, for shapes a scripted run cannot give cheaply (forty tasks
  with a chosen outcome each, hostile names, ten thousand samples).

Nothing here is a hand-kept JSON blob: if the store's format changes, both follow it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from speckernel.model import (
    Candidate,
    Diagnostic,
    Message,
    Provenance,
    Sample,
    SampleKey,
    Score,
    Status,
    Usage,
    Verdict,
)
from speckernel.store import RunStore, open_writer

FIRST_DRAFT = """```solution.py
def gcd(a, b):
    return min(a, b)
```"""
"""Wrong: fails three of the four checks."""

SECOND_DRAFT = """Here is the fix.

```solution.py
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a +
```"""
"""The right loop, and a syntax error on line 4 that the final verdict points at."""


def repair_script(messages: Sequence[Message]) -> str:
    """The scripted model of ``kernel_repair_run``: a wrong first draft, then a broken fix."""
    answered = sum(m.role == "assistant" for m in messages)
    return FIRST_DRAFT if answered == 0 else SECOND_DRAFT


def kernel_repair_run(kernel_cli: Callable[..., Any], scripted_model: Callable[[Any], str],
                      run_dir: Path) -> Path:
    """``kernel run pyfunc -t gcd --agent prompt --agent-option rounds=1`` with the scripted
    model: one sample, two rounds, final verdict a failure at ``solution.py:4``."""
    model = scripted_model(repair_script)
    result = kernel_cli("run", "pyfunc", "-t", "gcd", "--agent", "prompt", "--model", model,
                        "--agent-option", "rounds=1", "--output", run_dir, "--display", "none")
    assert result.exit_code == 0, result.stderr
    return run_dir


def sample(task: str, *, model: str = "openai:model-a", agent: str = "prompt", index: int = 0,
           solved: bool = True, metrics: Mapping[str, float | None] | None = None,
           files: Mapping[str, str] | None = None, messages: Sequence[Message] = (),
           diagnostics: Sequence[Diagnostic] = (), status: Status | None = None,
           error: str | None = None, digest: str = "", tokens: tuple[int, int] = (100, 50),
           cost: float = 0.001, started: float = 1_760_000_000.0, log: Sequence[str] = ()
           ) -> Sample:
    """One sample as the runner records it: a candidate with provenance, one verdict (success
    when ``solved``), a score with ``metrics`` (``passed`` by default)."""
    outcome = status or (Status.SUCCESS if solved else Status.FAILURE)
    verdict = Verdict("check", Status.SUCCESS if solved else outcome, tuple(diagnostics),
                      "checker", "1.0", 0.25)
    values = dict(metrics) if metrics is not None else {"passed": 1.0 if solved else 0.0}
    candidate = Candidate(files if files is not None else {"Spec.tla": f"---- MODULE {task} ----\n"
                                                           "===="},
                          Provenance(agent, model, tuple(messages),
                                     Usage(tokens[0], tokens[1], cost, 1), 1.5, 1))
    return Sample(SampleKey(task, agent, model, index), Status.ERROR if error else outcome,
                  None if error else candidate, () if error else (verdict,),
                  () if error else (Score("score", values),), {}, error, started, 2.0, digest,
                  tuple(log))


def write_run(root: Path, samples: Iterable[Sample], *, benchmark: str = "toy",
              version: str = "1", tools: Mapping[str, str] | None = None) -> Path:
    """A run directory in the store's format: ``run.yaml`` as ``runs.start`` lays it out and the
    samples appended by the store's writer."""
    store = RunStore(root)
    store.write_run_info({
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(1_760_000_000)),
        "kernel": "0.1.0",
        "benchmark": {"name": benchmark, "version": version},
        "plugins": {benchmark: version},
        "tools": dict(tools or {"checker": "1.0"}),
        "config": {"benchmark": benchmark, "agents": ["prompt"], "models": []},
    })
    append(root, samples)
    return root


def append(root: Path, samples: Iterable[Sample]) -> None:
    """Append samples as a running kernel does (``store.open_writer``: O_APPEND, fsync)."""
    batch = list(samples)

    async def write() -> None:
        async with open_writer(RunStore(root)) as writer:
            for s in batch:
                await writer.write(s)

    anyio.run(write)
