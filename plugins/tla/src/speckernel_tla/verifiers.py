"""The verifiers this plugin registers (the SANY phase of SysMoBench's pipeline, §3.2)."""

from __future__ import annotations

import time

import attrs
from speckernel.components import Verifier, VerifyContext
from speckernel.model import Candidate, Status, Task, Verdict
from speckernel.sandbox.base import Limits

from speckernel_tla.actions import check_actions
from speckernel_tla.artifact import Deadline, Opening
from speckernel_tla.sany import SanyResult, parse_modules
from speckernel_tla.toolchain import Tla2ToolsToolchain


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
        opening = Opening.of(self.name, candidate, task, ctx, needs_config=False)
        if (model := opening.model) is None:
            return opening.verdict
        timeout = float(ctx.options.get("sany_timeout_s", 30.0))
        deadline = Deadline.after(ctx.limits.wall_s)
        data: dict[str, object] = {"module": model.module}
        if ctx.options.get("per_action"):
            actions, whole = await check_actions(
                ctx, opening.jar, model.module, model.text, limits=ctx.limits,
                deadline=deadline, per_module_s=timeout, extra={model.module: model.text},
                extra_files=model.other_modules)
            result = whole[model.module]
            passed = sum(a.ok for a in actions.values())
            data |= {
                "actions": {name: attrs.asdict(a) for name, a in actions.items()},
                "actions_total": len(actions),
                "actions_passed": passed,
                "action_success_rate": passed / len(actions) if actions else 0.0,
            }
        else:
            parsed = await parse_modules(ctx.sandbox, opening.jar, {model.module: model.text},
                                         limits=ctx.limits, deadline=deadline,
                                         per_module_s=timeout, extra_files=model.other_modules)
            result = parsed[model.module]
        data["ok"] = result.ok
        return attrs.evolve(opening.verdict, status=sany_status(result),
                            diagnostics=result.errors + result.warnings,
                            duration_s=time.monotonic() - started, data=data)


def sany_status(result: SanyResult) -> Status:
    if result.ok:
        return Status.SUCCESS
    return Status.TIMEOUT if result.timed_out else Status.FAILURE
