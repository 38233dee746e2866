"""Verifier ``rocq_ids.extract``: the store extracts, links and keeps its state bounded.

IDS's design rule asks for state bounded by keys x clients (or replicas), never by the number of
operations; upstream leaves it to an LLM critic. Here it is checked on the running store: the
extracted executable runs the whole world in one process (seeded delivery, a random replica
consuming its deliverable messages after every operation) for ``ops`` operations per client and
then for ``factor`` times as many, and reports the size of the largest client and replica state
(``Obj.reachable_words``) at both points. With few keys and clients, every key and client has
been seen by the first point, so a bounded state has reached its size there; a history log, or
a function built by ``upd`` whose extracted closures nest with every put, grows with the
operations. The check fails when a state grew by more than ``GROWTH`` (x 1.5 plus ``SLACK``
words).

The same run is a smoke test: an extraction that does not link with the runtime, a store that
raises, or a world where no client can proceed (a guard that never holds) is a failure verdict
naming it; a probe that outlives its ``timeout_s`` is a timeout.
"""

from __future__ import annotations

import re
import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_rocq_ids.coqbuild import run_build
from speckernel_rocq_ids.storebuild import EXECUTABLE, OcamlToolchain, StoreBuild
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain
from speckernel_rocq_ids.verifiers import limit_verdict

EXTRACT = "rocq_ids.extract"
PROBE = "probe"
GROWTH, SLACK = 1.5, 64
_CHECKPOINT = re.compile(r"^checkpoint ops=(\d+) replica_words=(\d+) client_words=(\d+)",
                         re.MULTILINE)
_STUCK = re.compile(r"^stuck ops=(\d+) blocked=(\d+)", re.MULTILINE)


@attrs.frozen
class ProbeConfig:
    """The in-process world the bounded-state check runs (seeded, so reproducible)."""

    replicas: int = 3
    clients: int = 3
    keys: int = 8
    ops: int = 300
    factor: int = 10
    put_rate: float = 0.5
    seed: int = 1
    timeout_s: int = 120

    def argv(self, executable: str) -> tuple[str, ...]:
        return ("timeout", "-s", "KILL", str(self.timeout_s), f"./{executable}", "probe",
                *(str(v) for v in (self.replicas, self.clients, self.keys, self.ops,
                                   self.factor, self.put_rate, self.seed)))


@attrs.frozen
class Checkpoint:
    """State sizes (OCaml words) after ``ops`` operations in all."""

    ops: int
    replica_words: int
    client_words: int


def checkpoints(output: str) -> list[Checkpoint]:
    return [Checkpoint(*map(int, m.groups())) for m in _CHECKPOINT.finditer(output)]


def grew(small: int, large: int) -> bool:
    """Whether a state size measured at n and at factor x n operations grew with them."""
    return large > GROWTH * small + SLACK


def bounded_findings(points: list[Checkpoint]) -> list[Diagnostic]:
    """One error per side (replica, client) whose state grew between the two checkpoints."""
    first, last = points[0], points[-1]
    found = []
    for side, small, large in (("replica", first.replica_words, last.replica_words),
                               ("client", first.client_words, last.client_words)):
        if grew(small, large):
            found.append(Diagnostic(
                f"{side} state is not bounded: {small} words after {first.ops} operations, "
                f"{large} after {last.ops} (a history log, or functions built by upd whose "
                f"extracted closures nest with every put)", file=CANDIDATE_FILE,
                code="bounded_state"))
    return found


def probe_findings(returncode: int, output: str, config: ProbeConfig) -> tuple[Status,
                                                                               list[Diagnostic]]:
    """The verdict status and diagnostics of one probe run."""
    if returncode == 137:
        return Status.TIMEOUT, [Diagnostic(
            f"the extracted store did not finish {config.factor * config.ops} operations per "
            f"client within {config.timeout_s} s", code="timeout")]
    stuck = _STUCK.search(output)
    if stuck is not None:
        return Status.FAILURE, [Diagnostic(
            f"no client can proceed after {stuck[1]} operations: {stuck[2]} gets wait for a "
            f"guard that never holds", file=CANDIDATE_FILE, code="liveness")]
    points = checkpoints(output)
    if returncode != 0 or len(points) != 2:
        tail = " | ".join(output.strip().splitlines()[-4:]) or "no output"
        return Status.FAILURE, [Diagnostic(f"the extracted store crashed (exit {returncode}): "
                                           f"{tail}", file=CANDIDATE_FILE, code="store_crash")]
    found = bounded_findings(points)
    return (Status.FAILURE if found else Status.SUCCESS), found


class ExtractionVerifier(Verifier):
    """Extracts ``Impl.v`` to OCaml, links it with the replica runtime and runs the bounded-state
    probe; ``data`` holds the probe's checkpoints and the build's step times."""

    name = EXTRACT
    version = "1"
    description = "Coq extraction to OCaml, link with the replica runtime, bounded-state probe"
    tools = (CoqIdsToolchain.name, OcamlToolchain.name)
    limits = Limits(wall_s=300.0, memory_mb=4096)
    config = ProbeConfig()

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(CoqIdsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        store = StoreBuild("store", Obligation.of(task))
        probe = store.command(PROBE, *self.config.argv(EXECUTABLE), keep_going=True)
        build = await run_build(ctx, store.files(dict(task.files),
                                                 candidate.files.get(CANDIDATE_FILE, "")),
                                [*store.steps(), probe])
        timing = {name: step.duration_s for name, step in build.steps.items()}
        verdict = attrs.evolve(verdict, duration_s=time.monotonic() - started,
                               data={"step_s": timing})
        limited = limit_verdict(verdict, build, "extraction and the bounded-state probe")
        if limited is not None:
            return limited
        broken = store.failure(dict(build.steps))
        if broken is not None:
            return attrs.evolve(verdict, status=Status.FAILURE,
                                diagnostics=(Diagnostic(broken, code="extraction"),))
        result = build.steps.get(probe.name)
        if result is None:
            return attrs.evolve(verdict, diagnostics=(
                Diagnostic(f"the probe did not run: {build.process.output[-2000:]}"),))
        status, found = probe_findings(result.returncode, result.output, self.config)
        data = {"step_s": timing,
                "checkpoints": [attrs.asdict(p) for p in checkpoints(result.output)]}
        return attrs.evolve(verdict, status=status, diagnostics=tuple(found), data=data)
