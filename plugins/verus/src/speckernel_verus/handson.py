"""The hands-on agent (VeruSAGE, notes B4): a fixed repair loop around Verus.

Each step takes one error of the current file (by upstream's priority), lets the planner choose
proof techniques for a failed assertion or takes the fixed repair for any other kind, asks the
model for search-and-replace edits, and keeps a candidate only if it passes the cheat checker and
the action's acceptance rule. Rejections go into the failure history that later prompts show.
The loop stops when the file verifies, after ``max_steps`` steps (20) or ``max_minutes`` (20).
"""

from __future__ import annotations

import json
import re
import time
from typing import ClassVar

import attrs
from speckernel.components import Agent, AgentContext
from speckernel.model import Files, Message, Task

from speckernel_verus.acceptance import accepts, best
from speckernel_verus.actions import (
    ACTIONS,
    PLANNED,
    PLANNER_ACTIONS,
    Action,
    pick_error,
    plan_order,
    repair_for,
    static_suggestions,
)
from speckernel_verus.artifact import task_file
from speckernel_verus.edits import EditError, apply_edits, parse_edits, unified_diff
from speckernel_verus.feedback import Check, read_check
from speckernel_verus.history import History
from speckernel_verus.output import VerusError, VerusResult

SYSTEM = (
    "You complete proofs in Verus, the verifier for Rust. Add only proof code: assertions, "
    "proof blocks, loop invariants, decreases clauses, lemma calls and new spec or proof "
    "functions. Never change specifications (requires/ensures), executable code or existing "
    "items, and never use assume(...), admit(), #[verifier::external_body] or axioms: such "
    "edits are rejected.")

EDIT_FORMAT = (
    "Answer with one or more edits of the file, each in this exact form:\n"
    "<<<<<<< SEARCH\n(lines copied exactly from the file, enough to be unique)\n=======\n"
    "(the lines that replace them)\n>>>>>>> REPLACE")

PLAN_FORMAT = (
    'Answer with your root-cause analysis, then a JSON object: {"primary_action": "NAME", '
    '"secondary_actions": ["NAME", ...]} with at most 5 secondary actions.')

JSON_OBJECT = re.compile(r"\{[^{}]*\"primary_action\"[^{}]*\}", re.DOTALL)


@attrs.frozen
class State:
    """The current file and what the pipeline said about it."""

    code: str
    check: Check

    @property
    def result(self) -> VerusResult | None:
        return self.check.result


@attrs.frozen
class Outcome:
    """One action's result: the accepted state (None if every candidate was rejected)."""

    accepted: State | None
    history: History


def parse_plan(answer: str) -> tuple[str, ...]:
    """The planner's chosen actions, primary first; empty when no plan can be read."""
    for match in reversed(JSON_OBJECT.findall(answer)):
        try:
            plan = json.loads(match)
        except json.JSONDecodeError:
            continue
        secondary = plan.get("secondary_actions") or []
        names = [plan.get("primary_action"), *(secondary if isinstance(secondary, list) else [])]
        return tuple(str(n).strip().upper() for n in names if isinstance(n, str))
    return ()


def rejection(action: Action, before: VerusResult, after: VerusResult) -> str:
    """Why ``after`` was not kept, in the terms of the action's rule."""
    if after.timed_out:
        return "Verus timed out on it"
    if after.compile_error:
        return f"it does not compile ({after.reason})"
    return (f"not accepted under {action.acceptance.value}: verified {before.verified} -> "
            f"{after.verified}, errors {before.errors} -> {after.errors}")


class HandsOnAgent(Agent):
    """VeruSAGE's hands-on agent. Options: ``max_steps`` (20), ``max_minutes`` (20),
    ``candidates`` per action (1; upstream asks for 3 but only gpt-oss returns more than 1)."""

    name = "verus-hands-on"
    description = "VeruSAGE hands-on: planner + proof actions as search/replace edits"
    benchmarks = ("verus",)
    MAX_STEPS: ClassVar[int] = 20
    MAX_MINUTES: ClassVar[float] = 20.0

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        file = task_file(task)
        state = State(task.files[file], read_check(await ctx.verify({file: task.files[file]})))
        history = History()
        max_steps = int(ctx.options.get("max_steps", self.MAX_STEPS))
        deadline = time.monotonic() + 60 * float(ctx.options.get("max_minutes", self.MAX_MINUTES))
        steps = 0
        while not state.check.solved and steps < max_steps and time.monotonic() < deadline:
            before = state.result
            if state.check.infrastructure or before is None:
                ctx.log(f"hands-on: stopping, no Verus feedback ({state.check.summary()})")
                break
            error = pick_error(before)
            names = await self._choose(ctx, state, error, history)
            names = tuple(n for n in names if not history.exhausted(n))
            if not names:
                ctx.log("hands-on: every applicable action has used its attempts")
                break
            steps += 1
            for name in names:
                if time.monotonic() >= deadline:
                    break
                outcome = await self._attempt(ctx, task, ACTIONS[name], state, before, error,
                                              history)
                history = outcome.history
                if outcome.accepted is not None:
                    ctx.log(f"step {steps}: {name} accepted")
                    state = outcome.accepted
                    break
                ctx.log(f"step {steps}: {name} rejected ({history.attempts[-1].reason})")
        return {file: state.code}

    async def _choose(self, ctx: AgentContext, state: State, error: VerusError | None,
                      history: History) -> tuple[str, ...]:
        """The actions for one step: planned ones for a failed assertion, else the repair."""
        if error is None or error.kind not in PLANNED:
            return (repair_for(error, state.check.result is not None
                               and state.check.result.compile_error),)
        menu = "\n".join(f"- {a.name}: {a.guidance}" for a in PLANNER_ACTIONS)
        prompt = "\n\n".join(p for p in (
            f"This Verus file fails to verify:\n```rust\n{state.code}\n```",
            f"The assertion to fix:\n{error.render()}",
            f"Choose proof techniques from these actions:\n{menu}",
            history.render(), PLAN_FORMAT) if p)
        answer = await ctx.generate([Message("system", SYSTEM), Message("user", prompt)])
        return plan_order(parse_plan(answer.text), static_suggestions(error, state.code))

    async def _attempt(self, ctx: AgentContext, task: Task, action: Action, state: State,
                       before: VerusResult, error: VerusError | None,
                       history: History) -> Outcome:
        """Ask for ``candidates`` edits under ``action``; keep the best acceptable one."""
        file = task_file(task)
        kept: list[tuple[str, VerusResult]] = []
        checks: dict[str, Check] = {}
        for _ in range(max(1, int(ctx.options.get("candidates", 1)))):
            answer = await ctx.generate(self._messages(task, action, state, error, history))
            try:
                code = apply_edits(state.code, parse_edits(answer.text))
            except EditError as exc:
                history = history.record(action.name, str(exc))
                continue
            if code == state.code:
                history = history.record(action.name, "the edits leave the file unchanged")
                continue
            check = read_check(await ctx.verify({file: code}))
            if check.result is not None and check.result.compile_error and not kept:
                repaired = await self._repair_syntax(ctx, task, State(code, check),
                                                     pick_error(check.result), history)
                code, check = (repaired.code, repaired.check) if repaired else (code, check)
            diff = unified_diff(state.code, code, file)
            if check.solved:
                return Outcome(State(code, check), history)
            if check.infrastructure or check.cheat or check.result is None:
                reason = (f"verifier error: {check.infrastructure}" if check.infrastructure
                          else f"the cheat checker rejected it: {check.cheat}")
                history = history.record(action.name, reason, diff)
                continue
            if accepts(action.acceptance, before, check.result):
                kept.append((code, check.result))
                checks[code] = check
            else:
                history = history.record(action.name,
                                         rejection(action, before, check.result), diff)
        chosen = best(kept)
        return Outcome(State(chosen[0], checks[chosen[0]]) if chosen else None, history)

    async def _repair_syntax(self, ctx: AgentContext, task: Task, broken: State,
                             error: VerusError | None, history: History) -> State | None:
        """One syntax-repair call on a candidate that does not compile (upstream makes it while
        the action has no acceptable candidate yet); None when its edits do not apply."""
        answer = await ctx.generate(self._messages(task, ACTIONS["SYNTAX_REPAIR"], broken,
                                                   error, history))
        try:
            code = apply_edits(broken.code, parse_edits(answer.text))
        except EditError:
            return None
        return State(code, read_check(await ctx.verify({task_file(task): code})))

    @staticmethod
    def _messages(task: Task, action: Action, state: State, error: VerusError | None,
                  history: History) -> list[Message]:
        failing = error.render() if error else state.check.summary()
        parts = [
            task.prompt.strip(),
            f"File {task_file(task)}:\n```rust\n{state.code}\n```",
            f"Verus reports:\n{state.check.summary()}",
            f"Fix this error first:\n{failing}",
            f"Action {action.name}: {action.guidance}",
            history.render(),
            EDIT_FORMAT + "\nPlease don't use assume(...).",
        ]
        return [Message("system", SYSTEM), Message("user", "\n\n".join(p for p in parts if p))]
