"""Verifier ``rocq_ids.extract``: the verified store extracts, links, stays bounded, serves
every key, and its clients see only what the spec allows.

IDS's design rule asks for state bounded by keys x clients (or replicas), never by the number of
operations; upstream leaves it to an LLM critic. Here it is checked on the running store: the
extracted executable runs the whole world in one process (seeded delivery, a random replica
consuming its deliverable messages after every operation) for ``ops`` operations per client and
then for ``factor`` times as many, and reports the size of the largest client and replica state
(``Obj.reachable_words``) at both points. The keys are few, so every key and client has been
seen by the first point and a bounded state has reached its size there; a history log, or a
function built by ``upd`` whose extracted closures nest with every put, grows with the
operations. The check fails when a state grew by more than ``GROWTH`` (x 1.5 plus ``SLACK``
words).

The keys are drawn from a wide range (small ones, and others up to 2^61): trace inclusion
forbids wrong answers, not missing ones, so a store whose guard never lets a get of some keys
through (``k <? 1000``) proves its theorem; here no client can proceed, and the verdict says
``liveness``. Every operation of the run is then checked against the spec's observable
behaviour (:mod:`runtime.histories`, in a kernel worker).

The same run is a smoke test: an extraction that does not link with the runtime, a store that
raises, or a world where no client can proceed is a failure verdict naming it; a probe that
outlives its ``timeout_s`` is a timeout, one the OOM killer ends a failure naming memory. The
probe (under ``timeout``, which stops it with SIGTERM and reports 124) replaces the build's shell
as the sandbox call's last command, so a SIGKILL that ``timeout`` did not send is the sandbox's,
and the sandbox's own account (its memory cgroup's OOM count) says which limit it was.
"""

from __future__ import annotations

import random
import re
import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.errors import CandidateError
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_rocq_ids import commands
from speckernel_rocq_ids.coqbuild import Step, run_build
from speckernel_rocq_ids.runtime import histories
from speckernel_rocq_ids.storebuild import EXECUTABLE, OcamlToolchain, StoreBuild
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain

EXTRACT = "rocq_ids.extract"
PROBE = "probe"
GROWTH, SLACK = 1.5, 64
_TIMED_OUT = 124
"""``timeout``'s exit status when the probe ran out of time."""
_CHECKPOINT = re.compile(r"^checkpoint ops=(\d+) replica_words=(\d+) client_words=(\d+)",
                         re.MULTILINE)
_STUCK = re.compile(r"^stuck ops=(\d+) blocked=(\d+)", re.MULTILINE)
_STATUS = re.compile(r"^[0-9a-f]{32} ")
"""A build status line (:mod:`coqbuild`), not the probe's."""
_KEY_RANGES = ((0, 8), (0, 8), (1 << 10, 1 << 16), (1 << 16, 1 << 20), (1 << 20, 1 << 32),
               (1 << 32, 1 << 40), (1 << 40, 1 << 48), ((1 << 61) - 4096, 1 << 61))
"""Where the probe's eight keys are drawn: two small, the others up to 2^61 (OCaml's ints hold
63 bits; a candidate's arithmetic on keys stays clear of overflow)."""


def wide_keys(seed: int) -> tuple[int, ...]:
    """Eight distinct keys, one drawn from each of :data:`_KEY_RANGES`."""
    rng = random.Random(seed)
    keys: list[int] = []
    for low, high in _KEY_RANGES:
        key = rng.randrange(low, high)
        while key in keys:
            key = rng.randrange(low, high)
        keys.append(key)
    return tuple(keys)


@attrs.frozen
class ProbeConfig:
    """The in-process world the extraction check runs (seeded, so reproducible)."""

    replicas: int = 3
    clients: int = 3
    ops: int = 300
    factor: int = 10
    put_rate: float = 0.5
    seed: int = 1
    timeout_s: float = 120.0

    @property
    def keys(self) -> tuple[int, ...]:
        return wide_keys(self.seed)

    def argv(self, executable: str) -> tuple[str, ...]:
        return ("timeout", "-s", "TERM", "-k", "5", f"{self.timeout_s:g}", f"./{executable}",
                "probe",
                *(str(v) for v in (self.replicas, self.clients,
                                   ",".join(map(str, self.keys)), self.ops, self.factor,
                                   self.put_rate, self.seed)))


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


def probe_findings(returncode: int | None, output: str, config: ProbeConfig,
                   errors: str = "") -> tuple[Status, list[Diagnostic]]:
    """The verdict status and diagnostics of one probe run that ended on its own (``output``
    its stdout, ``errors`` its stderr)."""
    stuck = _STUCK.search(output)
    if stuck is not None:
        return Status.FAILURE, [Diagnostic(
            f"no client can proceed after {stuck[1]} operations: {stuck[2]} gets wait for a "
            f"guard that never holds (keys {', '.join(map(str, config.keys))})",
            file=CANDIDATE_FILE, code="liveness")]
    points = checkpoints(output)
    if returncode != 0 or len(points) != 2:
        lines = [line for line in (output + "\n" + errors).strip().splitlines()
                 if line.strip() and not line.startswith("op ") and not _STATUS.match(line)]
        tail = " | ".join(lines[-4:]) or "no output"
        return Status.FAILURE, [Diagnostic(f"the extracted store crashed (exit {returncode}): "
                                           f"{tail}", file=CANDIDATE_FILE, code="store_crash")]
    found = bounded_findings(points)
    return (Status.FAILURE if found else Status.SUCCESS), found


def history_violations(output: str, profile: str) -> tuple[int, list[str]]:
    """The probe's operations checked against ``profile`` (runs in a kernel worker)."""
    return histories.check(histories.parse(output), profile)


def profile_of(task: Task) -> str:
    """The history profile of a task's guarantee (:data:`histories.PROFILES`); provenance only
    for a spec the plugin does not know."""
    return task.id if task.id in histories.PROFILES else "relaxed"


class ExtractionVerifier(Verifier):
    """Extracts ``Impl.v`` to OCaml, links it with the replica runtime and runs the bounded-state
    probe; ``data`` holds the probe's checkpoints and the build's step times."""

    name = EXTRACT
    version = "2"
    description = "Coq extraction to OCaml, link with the replica runtime, bounded-state probe"
    tools = (CoqIdsToolchain.name, OcamlToolchain.name)
    limits = Limits(wall_s=300.0, memory_mb=2048)
    config = ProbeConfig()
    proved = True
    """Compile the obligation and extract only after it (False: tests of the runtime's checks
    on stores that need no proof to be wrong)."""

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(CoqIdsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        impl = candidate.files.get(CANDIDATE_FILE, "")
        refused = commands.check(impl, CANDIDATE_FILE)
        if refused:
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=tuple(refused))
        store = StoreBuild("store", Obligation.of(task), proved=self.proved)
        probe = Step(PROBE, ("sh", "-c", 'cd store && exec "$@"', "sh",
                             *self.config.argv(EXECUTABLE)))
        limits = attrs.evolve(ctx.limits, wall_s=max(ctx.limits.wall_s, self.config.timeout_s
                                                     + 120), memory_mb=2048,
                               output_bytes=16_000_000)
        build = await run_build(ctx, store.files(dict(task.files), impl), store.steps(),
                                last=probe, limits=limits)
        timing = {name: step.duration_s for name, step in build.steps.items()}
        verdict = attrs.evolve(verdict, duration_s=time.monotonic() - started,
                               data={"step_s": timing})
        process = build.process
        if not build.last_started:
            if process.limit is not None:
                return attrs.evolve(verdict, status=Status.TIMEOUT if process.limit == "wall"
                                    else Status.FAILURE, diagnostics=(Diagnostic(
                                        f"extraction was stopped by the sandbox's "
                                        f"{process.limit} limit"),))
            broken = store.failure(dict(build.steps))
            return attrs.evolve(verdict, status=Status.FAILURE if broken else Status.ERROR,
                                diagnostics=(Diagnostic(broken or f"the build stopped early: "
                                             f"{process.stderr[-2000:]}", code="extraction"),))
        if process.limit == "wall" or process.returncode == _TIMED_OUT:
            return attrs.evolve(verdict, status=Status.TIMEOUT, diagnostics=(Diagnostic(
                f"the extracted store did not finish {self.config.factor * self.config.ops} "
                f"operations per client within {self.config.timeout_s:g} s", code="timeout"),))
        if process.limit == "memory":
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(Diagnostic(
                f"the extracted store ran out of memory ({limits.memory_mb} MB; the OOM "
                f"killer ended it)", file=CANDIDATE_FILE, code="memory"),))
        output = process.stdout
        status, found = probe_findings(process.returncode, output, self.config, process.stderr)
        data = {"step_s": timing, "keys": list(self.config.keys),
                "checkpoints": [attrs.asdict(p) for p in checkpoints(output)]}
        if status is Status.SUCCESS:
            try:
                count, examples = await ctx.run_sync(history_violations, output,
                                                     profile_of(task))
            except CandidateError as exc:
                count, examples = 1, [f"the history could not be checked: {exc}"]
            if count:
                status = Status.FAILURE
                found = [Diagnostic(f"{count} gets break {profile_of(task)}: "
                                    + "; ".join(examples), file=CANDIDATE_FILE,
                                    code="consistency")]
        return attrs.evolve(verdict, status=status, diagnostics=tuple(found), data=data)
