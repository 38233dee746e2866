"""The synthesis agents driven by scripted model answers, with the real coqc as the oracle.

A draft with a hole is the reference with its last proof ``Admitted``; a broken draft replaces
that proof with a tactic Coq rejects. The agents run against a context that is the kernel's
sample context reduced to what they use: the scripted model, and ``verify`` running the
benchmark's coqc and audit verifiers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import candidate
from speckernel.components import AgentContext
from speckernel.model import (
    Completion,
    Files,
    GenerateParams,
    Message,
    SampleKey,
    Task,
    Usage,
    Verdict,
)
from speckernel.sandbox.local import LocalSandbox
from speckernel.testing import ScriptedProvider

from speckernel_rocq_ids import plugin
from speckernel_rocq_ids.audit import AuditVerifier
from speckernel_rocq_ids.benchmark import IdsBenchmark
from speckernel_rocq_ids.checker import Checker
from speckernel_rocq_ids.coordinator import (
    BudgetSpent,
    Coordinator,
    MeteredContext,
    Settings,
    Solution,
    Spend,
    StallMonitor,
    fastest,
)
from speckernel_rocq_ids.deductive import ROOT, SYSTEM, DeductiveSearch, parse_answer
from speckernel_rocq_ids.inductive import PROPOSER, RELOADER
from speckernel_rocq_ids.verifiers import CoqcVerifier

pytestmark = pytest.mark.anyio


def last_proof(text: str, body: str) -> str:
    start = text.rindex("Proof.")
    end = text.index("Qed.", start) + len("Qed.")
    return text[:start] + body + text[end:]


def with_hole(text: str) -> str:
    return last_proof(text, "Proof.\n  Admitted.")


def broken(text: str) -> str:
    return last_proof(text, "Proof.\n    exact I.\n  Qed.")


def answer(move: str, text: str | None = None) -> str:
    if text is None:
        return f"MOVE: {move}\n"
    return f"MOVE: {move}\n```Impl.v\n{text if text.endswith(chr(10)) else text + chr(10)}```\n"


class ScriptedContext(AgentContext):
    """Model calls go to a scripted model; ``verify`` runs coqc, then (gated) the audit."""

    def __init__(self, model_id: str, task: Task, make_ctx: Callable[..., Any],
                 options: dict[str, Any] | None = None) -> None:
        self.model = ScriptedProvider().model(model_id.split(":", 1)[1], {})
        self.task, self.vctx = task, make_ctx()
        self.sandbox, self.workers = LocalSandbox(), self.vctx.workers
        self.key = SampleKey(task.id, "ids", model_id, 0)
        self.benchmark, self.model_name = IdsBenchmark(), model_id
        self.benchmark_options = dict(IdsBenchmark.options)
        self.options, self.seed = options or {}, 0
        self.calls: list[list[Message]] = []
        self.lines: list[str] = []

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        self.calls.append(list(messages))
        return await self.model.complete(messages, params or GenerateParams())

    async def verify(self, files: Files) -> list[Verdict]:
        draft = candidate(**files)
        coqc = await CoqcVerifier().verify(draft, self.task, self.vctx)
        if not coqc.passed:
            return [coqc]
        return [coqc, await AuditVerifier().verify(draft, self.task, self.vctx)]

    def log(self, message: str) -> None:
        self.lines.append(message)

    def prompts(self, system: str) -> list[str]:
        return [call[-1].content for call in self.calls if call[0].content == system]


def router(dsa: list[str], proposer: str = "", reloader: str = "") -> Callable[..., str]:
    """A script answering DSA steps from ``dsa`` in order, and the inductive agent's roles."""
    steps = iter(dsa)

    def reply(messages: Sequence[Message]) -> str:
        system = messages[0].content
        if system == PROPOSER:
            return proposer
        if system == RELOADER:
            return reloader
        return next(steps)

    return reply


async def no_harness(files: Files) -> dict[str, float]:
    return {}


def moves(search: DeductiveSearch) -> list[tuple[str, bool, int | None]]:
    return [(a.move, a.accepted, a.holes) for a in search.attempts]


async def test_define_prove_repair_reaches_an_audited_store(
        make_ctx: Callable[..., Any], tasks: dict[str, Task],
        scripted_model: Callable[..., str]) -> None:
    """Define leaves a hole; a prove Coq rejects comes back located, with its goal; the repair
    closes the hole and the audit gate accepts the store."""
    ref = tasks["ryw"].reference["Impl.v"]  # type: ignore[index]
    script = router([answer("define", with_hole(ref)), answer("prove", broken(ref)),
                     answer("repair", ref)])
    ctx = ScriptedContext(scripted_model(script), tasks["ryw"], make_ctx)
    coordinator = Coordinator(Settings(workers=1, steps=5), inductive=False,
                              benchmarker=no_harness)
    files = await coordinator.solve(tasks["ryw"], ctx)
    search = coordinator.searches[0]
    assert moves(search) == [("define", True, 1), ("prove", False, None), ("repair", True, 0)]
    assert files == {"Impl.v": ref} and [s.worker for s in coordinator.solutions] == ["worker0"]
    second, third = ctx.prompts(SYSTEM)[1:]
    assert "1 holes" in second and "hole 1 at line" in second
    line = broken(ref).splitlines().index("    exact I.") + 1
    rejection = third.split("Coq rejected your last draft:")[1]
    assert f"Impl.v:{line}:" in rejection and "Goal at the error:" in rejection
    assert "============================" in rejection
    assert any("audited solution at node 2" in line for line in ctx.lines)


async def test_rejected_drafts_backtrack(make_ctx: Callable[..., Any], tasks: dict[str, Task],
                                         scripted_model: Callable[..., str]) -> None:
    """Three drafts Coq rejects in a row (max_repairs 2) revert to the parent state, whose
    subtree is dead; the model may also revert by itself."""
    ref = tasks["ryw"].reference["Impl.v"]  # type: ignore[index]
    garbage = "Definition x : nat := true."
    script = router([answer("define", with_hole(ref)), answer("define", with_hole(ref)),
                     *[answer("repair", garbage)] * 3, answer("revert")])
    ctx = ScriptedContext(scripted_model(script), tasks["ryw"], make_ctx)
    async with Checker(tasks["ryw"], ctx) as checker:
        search = DeductiveSearch(tasks["ryw"], ctx, checker, max_repairs=2)
        for _ in range(5):
            await search.step()
        assert moves(search)[-2:] == [("repair", False, None), ("revert", True, 1)]
        assert search.current == 1 and 2 in search.tree.dead
        assert search.attempts[-2].reason.startswith("Impl.v:1:")
        await search.step()
    assert search.current == ROOT and search.tree.dead == {1, 2}
    assert search.attempts[-1].reason == "asked by the model"


async def test_stalls_escalate_through_the_inductive_agent(
        make_ctx: Callable[..., Any], tasks: dict[str, Task],
        scripted_model: Callable[..., str]) -> None:
    """Holes that stop going down across polls stall the worker: guidance (level 1), the
    design's proofs redone with guidance (level 2), then a new blueprint from the empty file
    (level 3), which the next step follows from the empty file."""
    ref = tasks["ryw"].reference["Impl.v"]  # type: ignore[index]
    stuck = answer("prove")  # no file: rejected without a Coq run
    redesign = with_hole(ref).replace("(** *", "(** Redesigned. *)\n(** *", 1)
    script = router([answer("define", with_hole(ref)), *[stuck] * 6, answer("define", redesign)],
                    proposer="Prove put_sim by case analysis on the key first.",
                    reloader="Keep per-key counters; relate them to history lengths.")
    ctx = ScriptedContext(scripted_model(script), tasks["ryw"], make_ctx)
    coordinator = Coordinator(Settings(workers=1, steps=8, stall_polls=2, max_repairs=10),
                              benchmarker=no_harness)
    files = await coordinator.solve(tasks["ryw"], ctx)
    systems = [call[0].content for call in ctx.calls]
    roles = ["dsa" if s == SYSTEM else "proposer" if s == PROPOSER else "reloader"
             for s in systems]
    assert roles == ["dsa"] * 3 + ["proposer"] + ["dsa"] * 2 + ["proposer"] + ["dsa"] * 2 + \
        ["reloader", "dsa"]
    assert [line.split(": ")[-1] for line in ctx.lines if "reloader level" in line] == [
        "stalled, reloader level 1", "stalled, reloader level 2", "stalled, reloader level 3"]
    prompts = ctx.prompts(SYSTEM)
    assert "Prove put_sim by case analysis" in prompts[3]
    assert "Design blueprint to follow:\nKeep per-key counters" in prompts[-1]
    assert "node 0, the empty file" in prompts[-1]
    search = coordinator.searches[0]
    assert search.tree.dead == {1} and search.tree.path(search.current)[-1].parent == ROOT
    assert files == {"Impl.v": redesign}


PLANTED = "sk-planted-0123456789abcdef"


async def test_drafts_never_reach_the_host(make_ctx: Callable[..., Any], tasks: dict[str, Task],
                                           scripted_model: Callable[..., str],
                                           monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    """Drafts are compiled in the sandbox: a refused command never reaches coqc, and even run
    directly, ``Load "$OPENAI_API_KEY"`` finds no key to expand (the model would read the
    error) and ``Redirect``/``Extraction`` to a host path write nothing there."""
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    ctx = ScriptedContext(scripted_model(["unused"]), tasks["ryw"], make_ctx)
    outside = tmp_path / "written_by_coq"
    async with Checker(tasks["ryw"], ctx, timeout_s=60) as checker:
        refused = await checker.check('Load "$OPENAI_API_KEY".\n')
        assert not refused.accepted and "'Load' is not allowed" in refused.render()
        code, output = await checker._coqc('Load "$OPENAI_API_KEY".\n')
        assert code != 0 and PLANTED not in output
        for draft in (f'Redirect "{outside}" Check 0.\n',
                      f'From Coq Require Extraction.\nExtraction "{outside}.ml" nat.\n'):
            code, output = await checker._coqc(draft)
            assert code != 0 and PLANTED not in output
        assert not outside.exists() and not Path(f"{outside}.out").exists()
        assert not Path(f"{outside}.ml").exists()
    assert PLANTED not in refused.render()


async def test_wall_clock_budget_stops_the_pool(make_ctx: Callable[..., Any],
                                               tasks: dict[str, Task],
                                               scripted_model: Callable[..., str]) -> None:
    ref = tasks["ryw"].reference["Impl.v"]  # type: ignore[index]

    def slow(messages: Sequence[Message]) -> str:
        time.sleep(1.5)
        return answer("define", with_hole(ref))

    ctx = ScriptedContext(scripted_model(slow), tasks["ryw"], make_ctx)
    coordinator = Coordinator(Settings(workers=2, steps=5, wall_s=1.0), benchmarker=no_harness)
    files = await coordinator.solve(tasks["ryw"], ctx)
    assert coordinator.stopped == "wall-clock budget 1 s spent"
    assert len(ctx.calls) <= 2 and not coordinator.searches[0].tree.nodes.keys() - {ROOT}
    assert files == {"Impl.v": with_hole(ref)}  # the last draft written, never checked


async def test_dollar_budget_stops_before_the_next_call(make_ctx: Callable[..., Any],
                                                        tasks: dict[str, Task],
                                                        scripted_model: Callable[..., str]
                                                        ) -> None:
    spend = Spend(max_usd=0.05)
    spend.charge(Completion("x", "m", Usage(10, 10, 0.03, 1)))
    assert not spend.exhausted
    spend.charge(Completion("y", "m", Usage(10, 10, 0.03, 1)))
    assert spend.exhausted
    ctx = ScriptedContext(scripted_model(["never read"]), tasks["ryw"], make_ctx)
    with pytest.raises(BudgetSpent):
        await MeteredContext(ctx, spend).generate([Message("user", "hi")])
    coordinator = Coordinator(Settings(workers=2, max_usd=0.0), benchmarker=no_harness)
    assert await coordinator.solve(tasks["ryw"], ctx) == {"Impl.v": ""}
    assert coordinator.stopped == "dollar budget $0 spent" and ctx.calls == []


def test_stall_monitor_counts_polls_without_fewer_holes() -> None:
    monitor = StallMonitor(stall_polls=2)
    assert [monitor.poll("w", h) for h in (None, 3, 3, 2, 2, 2, 2, 1)] == [
        False, False, False, False, False, True, False, False]


def test_fastest_audited_solution() -> None:
    slow, quick = Solution("w0", "a", {"throughput_ops_s": 10.0}), Solution("w1", "b", {
        "throughput_ops_s": 30.0})
    assert fastest([slow, quick]) is quick
    assert fastest([Solution("w0", "a", {}), Solution("w1", "b", {})]).worker == "w0"  # type: ignore[union-attr]
    assert fastest([]) is None


def test_answers_are_read_leniently() -> None:
    parsed = parse_answer("**MOVE: Prove**\n```Impl.v\nQed.\n```")
    assert (parsed.move, parsed.text) == ("prove", "Qed.\n")
    assert parse_answer("MOVE: revert 3").target == 3
    assert parse_answer("no move here").move == "define"
    assert Settings.of({"workers": "3", "wall_s": "5"}).workers == 3


def test_one_shot_prompt_baseline(kernel_cli: Callable[..., Any],
                                  kernel_plugins: Callable[..., None],
                                  scripted_model: Callable[..., str], run_dir: Path,
                                  tasks: dict[str, Task]) -> None:
    """The kernel's ``prompt`` agent is the paper's one-shot baseline: one call, Impl.v read
    from the answer, judged as is."""
    kernel_plugins(plugin)
    draft = broken(tasks["ryw"].reference["Impl.v"])  # type: ignore[index]
    model = scripted_model([f"Here it is.\n```Impl.v\n{draft}```"])
    result = kernel_cli("run", "rocq_ids", "--task", "ryw", "--agent", "prompt", "--model",
                        model, "--output", run_dir)
    assert result.exit_code == 0, result.stdout + result.stderr
    sample = json.loads((run_dir / "samples.jsonl").read_text().splitlines()[0])
    assert sample["candidate"]["files"] == {"Impl.v": draft}
    assert len([m for m in sample["candidate"]["provenance"]["messages"]
                if m["role"] == "assistant"]) == 1
    assert sample["verdicts"][0]["status"] == "failure"
    assert sample["scores"][0]["values"] == {"pass": 0.0}


def test_deductive_agent_through_the_kernel(kernel_cli: Callable[..., Any],
                                            kernel_plugins: Callable[..., None],
                                            scripted_model: Callable[..., str], run_dir: Path,
                                            tasks: dict[str, Task]) -> None:
    """``ids-dsa`` under ``kernel run``: agent options reach it, its moves are logged, and with
    no accepted state the last rejected draft is what the kernel judges."""
    kernel_plugins(plugin)
    draft = broken(tasks["ryw"].reference["Impl.v"])  # type: ignore[index]
    model = scripted_model([answer("define", draft), answer("prove")])
    result = kernel_cli("run", "rocq_ids", "--task", "ryw", "--agent", "ids-dsa", "--model",
                        model, "--agent-option", "steps=2", "--output", run_dir)
    assert result.exit_code == 0, result.stdout + result.stderr
    sample = json.loads((run_dir / "samples.jsonl").read_text().splitlines()[0])
    assert sample["candidate"]["files"] == {"Impl.v": draft}
    assert [v["status"] for v in sample["verdicts"]] == ["failure"]
    line = draft.splitlines().index("    exact I.") + 1
    assert f"worker0: define -> rejected: Impl.v:{line}:11: Error:" in sample["log"]
    assert "worker0: prove -> rejected: the answer has no fenced Impl.v" in sample["log"]
