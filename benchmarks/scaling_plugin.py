"""The plugin ``benchmarks/cluster_scaling.py`` measures with (a module, so that Dask workers
can import it): a benchmark of N tasks, a verifier that does nothing and one that burns a fixed
amount of CPU in a sandboxed process, as a real tool would."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from speckernel import hookimpl
from speckernel.components import Benchmark, Phase, Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

BUSY = ("import time\nt = time.process_time()\n"
        "while time.process_time() - t < {seconds}:\n    pass\n")


class Scaling(Benchmark):
    name = "scaling"
    options = {"tasks": 50, "verifier": "scaling.noop", "cpu_s": 1.0}

    def pipeline(self, options: Mapping[str, Any]) -> tuple[Phase, ...]:
        return (Phase("check", (str(options["verifier"]),)),)

    phases = (Phase("check", ("scaling.noop", "scaling.busy")),)

    def tasks(self, options: Mapping[str, Any]) -> Iterable[Task]:
        return (Task(f"t{i}", self.name, reference={"a.txt": str(i)},
                     metadata={"cpu_s": float(options["cpu_s"])})
                for i in range(int(options["tasks"])))


class Noop(Verifier):
    name = "scaling.noop"

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        return Verdict(self.name, Status.SUCCESS)


class Busy(Verifier):
    name = "scaling.busy"
    limits = Limits(wall_s=120)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        script = BUSY.format(seconds=task.metadata["cpu_s"])
        result = await ctx.run([sys.executable, "busy.py"], files={"busy.py": script})
        status = Status.SUCCESS if result.ok else Status.ERROR
        return Verdict(self.name, status, (Diagnostic(result.stderr[-200:]),) if not result.ok
                       else ())


@hookimpl
def register_benchmarks(register: Callable[[Benchmark], None]) -> None:
    register(Scaling())


@hookimpl
def register_verifiers(register: Callable[[Verifier], None]) -> None:
    register(Noop())
    register(Busy())
