"""The verifiers this plugin registers (the SANY phase of SysMoBench's pipeline, §3.2)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Diagnostic, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.actions import check_actions
from speckernel_tla.sany import SanyResult, parse_modules
from speckernel_tla.toolchain import Tla2ToolsToolchain

MODULE_KEY = "module"
"""Task metadata naming the model's module (SysMoBench's ``specModule``)."""


def tla_modules(candidate: Candidate) -> dict[str, str]:
    """The candidate's ``.tla`` files by module name (file stem), wherever they sit."""
    return {PurePosixPath(path).stem: text for path, text in candidate.files.items()
            if path.endswith(".tla")}


def model_module(task: Task, modules: Mapping[str, str]) -> str | None:
    """The module under test: the task's ``module``, else the candidate's only module."""
    named = task.metadata.get(MODULE_KEY)
    if isinstance(named, str):
        return named
    return next(iter(modules)) if len(modules) == 1 else None


class SanyVerifier(Verifier):
    """Parses the model with SANY (syntax and semantic errors both fail it).

    With option ``per_action`` it also scores each top-level definition alone, SysMoBench's
    action decomposition (:mod:`speckernel_tla.actions`); ``data["actions"]`` then holds one entry
    per definition and ``data["action_success_rate"]`` their pass rate. The status reflects the
    whole model only.
    """

    name = "tla.sany"
    version = "1"
    description = "SANY parse of the TLA+ model, with optional per-action partial credit"
    tools = (Tla2ToolsToolchain.name,)
    limits = Limits(wall_s=300.0, memory_mb=2048)

    async def verify(self, candidate: Candidate, task: Task, ctx: VerifyContext) -> Verdict:
        started = time.monotonic()
        tool = ctx.tools.status(Tla2ToolsToolchain.name)
        verdict = Verdict(self.name, Status.ERROR, tool=tool.name, tool_version=tool.version)
        modules = tla_modules(candidate)
        module = model_module(task, modules)
        if module is None or module not in modules:
            wanted = f"module {module}" if module else "one TLA+ module"
            found = ", ".join(sorted(modules)) or "none"
            return attrs.evolve(verdict, status=Status.FAILURE, diagnostics=(
                Diagnostic(f"expected {wanted} in the artifact; found: {found}"),))
        timeout = float(ctx.options.get("sany_timeout_s", 30.0))
        others = {f"{name}.tla": text for name, text in modules.items() if name != module}
        data: dict[str, object] = {"module": module}
        if ctx.options.get("per_action"):
            actions, whole = await check_actions(
                ctx.sandbox, Path(tool.path), module, modules[module], limits=ctx.limits,
                per_module_s=timeout, extra={module: modules[module]}, extra_files=others)
            result = whole[module]
            passed = sum(a.ok for a in actions.values())
            data |= {
                "actions": {name: attrs.asdict(a) for name, a in actions.items()},
                "actions_total": len(actions),
                "actions_passed": passed,
                "action_success_rate": passed / len(actions) if actions else 0.0,
            }
        else:
            parsed = await parse_modules(ctx.sandbox, Path(tool.path),
                                         {module: modules[module]}, limits=ctx.limits,
                                         per_module_s=timeout, extra_files=others)
            result = parsed[module]
        data["ok"] = result.ok
        return attrs.evolve(verdict, status=sany_status(result),
                            diagnostics=result.errors + result.warnings,
                            duration_s=time.monotonic() - started, data=data)


def sany_status(result: SanyResult) -> Status:
    if result.ok:
        return Status.SUCCESS
    return Status.TIMEOUT if result.timed_out else Status.FAILURE
