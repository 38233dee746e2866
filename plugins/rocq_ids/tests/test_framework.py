"""The packaged framework and every spec, Relaxed included, compile on their own; the tasks pin
exactly the packaged files."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from speckernel.model import Status, Task, Verdict

from speckernel_rocq_ids.coqbuild import compile_step, run_build
from speckernel_rocq_ids.scoring import PassScorer
from speckernel_rocq_ids.sources import FRAMEWORK, coq_source, sha256
from speckernel_rocq_ids.tasks import Obligation
from speckernel_rocq_ids.toolchain import CoqIdsToolchain

SPECS = ("Relaxed.v", "RYW.v", "MW.v")


@pytest.mark.anyio
async def test_framework_and_specs_compile(make_ctx: Callable[..., Any]) -> None:
    files = {FRAMEWORK: coq_source("framework", FRAMEWORK)}
    files |= {name: coq_source("specs", name) for name in SPECS}
    build = await run_build(make_ctx(), files, [compile_step(f) for f in (FRAMEWORK, *SPECS)])
    assert build.succeeded((FRAMEWORK, *SPECS)), build.process.output


def test_tasks_pin_the_packaged_files(tasks: dict[str, Task]) -> None:
    for task in tasks.values():
        obligation = Obligation.of(task)
        assert set(obligation.pinned) == set(task.files)
        assert all(sha256(task.files[n]) == digest for n, digest in obligation.pinned.items())
        assert obligation.build_order[-1] == obligation.obligation_file


def test_toolchain_reports_coq_and_ocaml() -> None:
    status = CoqIdsToolchain().detect()
    assert status.found and status.version.startswith("8.")
    assert "ocaml" in status.detail


@pytest.mark.parametrize(("coqc", "audit", "extract", "expected"), [
    (Status.SUCCESS, Status.SUCCESS, Status.SUCCESS, 1.0),
    (Status.SUCCESS, Status.SUCCESS, None, 0.0),  # extraction did not run
    (Status.SUCCESS, Status.SUCCESS, Status.FAILURE, 0.0),  # state grows with the operations
    (Status.SUCCESS, Status.SUCCESS, Status.TIMEOUT, 0.0),
    (Status.SUCCESS, Status.FAILURE, None, 0.0),
    (Status.TIMEOUT, None, None, 0.0),
    (Status.SUCCESS, Status.ERROR, None, None),
    (Status.SUCCESS, Status.SUCCESS, Status.ERROR, None),
])
def test_pass_scorer(tasks: dict[str, Task], coqc: Status, audit: Status | None,
                     extract: Status | None, expected: float | None) -> None:
    verdicts = [Verdict("rocq_ids.coqc", coqc)]
    verdicts += [Verdict(name, status) for name, status in
                 (("rocq_ids.audit", audit), ("rocq_ids.extract", extract)) if status is not None]
    score = PassScorer().score(tasks["ryw"], None, verdicts)
    assert score.values == {"pass": expected}
