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
           cost: float = 0.001, unpriced: int = 0, started: float = 1_760_000_000.0,
           log: Sequence[str] = ()
           ) -> Sample:
    """One sample as the runner records it: a candidate with provenance, one verdict (success
    when ``solved``), a score with ``metrics`` (``passed`` by default); ``unpriced`` of its
    model calls had no known price."""
    outcome = status or (Status.SUCCESS if solved else Status.FAILURE)
    verdict = Verdict("check", Status.SUCCESS if solved else outcome, tuple(diagnostics),
                      "checker", "1.0", 0.25)
    values = dict(metrics) if metrics is not None else {"passed": 1.0 if solved else 0.0}
    candidate = Candidate(files if files is not None else {"Spec.tla": f"---- MODULE {task} ----\n"
                                                           "===="},
                          Provenance(agent, model, tuple(messages),
                                     Usage(tokens[0], tokens[1], cost, 1, unpriced), 1.5, 1))
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


ATTACKS = Path(__file__).parent / "viewer_attacks"


def attack_payloads() -> dict[str, str]:
    """The hostile texts of ``tests/viewer_attacks`` (adding an attack = adding a file)."""
    return {p.name: p.read_bytes().decode("utf-8", "replace")
            for p in sorted(ATTACKS.iterdir()) if p.is_file()}


def hostile_samples(payload: str) -> list[Sample]:
    """Samples with ``payload`` in every text a model or a tool controls: task id, model name,
    file names and contents, every message, diagnostics (message, severity, file, code),
    verifier, tool and version, verdict data, score and metric names, error and log."""
    first_line = payload.splitlines()[0] if payload.strip() else "x"
    messages = (
        Message("system", payload),
        Message("user", payload),
        Message("assistant", f"{payload}\n\n```Spec.tla\n{payload}\n```\n"),
        Message("user", f"The verifier rejected your artifact:\ncheck: failure\n"
                        f"  error: Spec.tla:1: {first_line}\n"),
        Message("assistant", f"```Spec.tla\n{payload}\n{payload}\n```\n{payload}"),
    )
    verdict = Verdict(payload, Status.FAILURE, (
        Diagnostic(payload, payload, "Spec.tla", 1, 2, payload),
        Diagnostic(payload, "error", payload, 1),
        Diagnostic(payload, "warning", "Spec.tla", 10_000)), payload, payload, 0.5,
        {payload: [payload, {payload: payload}]})
    candidate = Candidate({"Spec.tla": f"{payload}\n{payload}\n", payload: payload},
                          Provenance("prompt", f"openai:{payload}", messages,
                                     Usage(10, 20, 0.01, 2), 1.0, 1, {payload: payload}))
    judged = Sample(SampleKey(payload, "prompt", f"openai:{payload}", 0), Status.FAILURE,
                    candidate, (verdict,), (Score(payload, {payload: 1.0, "passed": 0.0},
                                                  payload),),
                    {payload: 2.0}, None, 1_760_000_000.0, 1.0, "d", (payload, payload))
    failed = Sample(SampleKey(payload, "prompt", f"openai:{payload}", 1), Status.ERROR,
                    error=f"{payload}\nsecond line", log=(payload,))
    return [judged, failed]


SPIN_V1 = """---- MODULE Spin ----
EXTENDS Naturals
CONSTANT N
VARIABLES lock, pc

Init == lock = 0 /\\ pc = [p \\in 1..N |-> "idle"]

Acquire(p) == /\\ pc[p] = "idle"
              /\\ lock' = p
              /\\ pc' = [pc EXCEPT ![p] = "cs"

Release(p) == /\\ pc[p] = "cs"
              /\\ lock' = 0
              /\\ pc' = [pc EXCEPT ![p] = "idle"]

Next == \\E p \\in 1..N : Acquire(p) \\/ Release(p)
====
"""

SPIN_V2 = """---- MODULE Spin ----
EXTENDS Naturals
CONSTANT N
VARIABLES lock, pc

Init == lock = 0 /\\ pc = [p \\in 1..N |-> "idle"]

\\* a process may enter when it sees the lock free
Acquire(p) == /\\ pc[p] = "idle"
              /\\ lock' = p
              /\\ pc' = [pc EXCEPT ![p] = "cs"]

Release(p) == /\\ pc[p] = "cs"
              /\\ lock' = 0
              /\\ pc' = [pc EXCEPT ![p] = "idle"]

Next == \\E p \\in 1..N : Acquire(p) \\/ Release(p)

Mutex == \\A p, q \\in 1..N : (pc[p] = "cs" /\\ pc[q] = "cs") => p = q
====
"""

SPIN_CFG = "CONSTANT N = 2\nINIT Init\nNEXT Next\nINVARIANT Mutex\n"


def tla_demo_samples(model: str = "anthropic:claude-sonnet-4-5") -> list[Sample]:
    """A TLA+ repair transcript as the prompt agent records it: a draft SANY rejects, a fix
    that parses but breaks mutual exclusion under TLC, with located diagnostics."""
    messages = (
        Message("system", "You write formal artifacts that a verifier will check. Answer with "
                          "each file in its own fenced code block whose info string is the file "
                          "name, e.g. ```Spec.tla"),
        Message("user", "Model the spinlock in `spin.c` as a TLA+ module `Spin` with the "
                        "invariant `Mutex`: no two processes in the critical section.\n\n"
                        "Write these files: Spin.tla, Spin.cfg."),
        Message("assistant", f"Here is a first model.\n\n```tla Spin.tla\n{SPIN_V1}```\n\n"
                             f"```Spin.cfg\n{SPIN_CFG}```"),
        Message("user", "The verifier rejected your artifact:\nsany: failure\n"
                        "  error: Spin.tla:10:45: Encountered \"Release\" at line 12, "
                        "expected \"]\"\n\nFix it and answer with the complete files again "
                        "(Spin.cfg, Spin.tla)."),
        Message("assistant", f"The EXCEPT was not closed; I also added the invariant.\n\n"
                             f"```tla Spin.tla\n{SPIN_V2}```\n\n```Spin.cfg\n{SPIN_CFG}```"),
    )
    verdicts = (
        Verdict("tla.sany", Status.SUCCESS, (), "SANY", "2.19 (tla2tools 1.8.0)", 0.84),
        Verdict("tla.tlc", Status.FAILURE, (
            Diagnostic("Invariant Mutex is violated: pc = (1 :> \"cs\" @@ 2 :> \"cs\"), "
                       "lock = 2", "error", "Spin.tla", 19, 1, "TLC-invariant"),
            Diagnostic("Acquire does not test that the lock is free", "warning", "Spin.tla",
                       9, 15)),
            "TLC", "2.19 (tla2tools 1.8.0)", 3.12,
            {"states": 17, "distinct": 9, "trace": ["Init", "Acquire(1)", "Acquire(2)"]}),
    )
    candidate = Candidate({"Spin.tla": SPIN_V2, "Spin.cfg": SPIN_CFG},
                          Provenance("prompt", model, messages, Usage(1840, 612, 0.0147, 2),
                                     9.4, 1))
    return [Sample(SampleKey("spinlock", "prompt", model, 0), Status.FAILURE, candidate,
                   verdicts, (Score("tla.phases", {"syntax": 1.0, "runtime": 1.0,
                                                   "invariants": 0.0, "passed": 0.0}),),
                   {}, None, 1_763_800_000.0, 13.2, "spin-digest",
                   ("model anthropic:claude-sonnet-4-5: 412 in, 301 out, 4.10 s",
                    "verify #1: tla.sany=failure",
                    "model anthropic:claude-sonnet-4-5: 1428 in, 311 out, 4.52 s",
                    "tla.tlc: 17 states generated, 9 distinct, depth 3"))]
