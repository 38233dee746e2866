"""``tla.runtime``: SysMoBench's runtime phase, M_r = actions covered without a runtime error /
all actions, on the gold spinlock, a seeded type error and input that must end as a verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Status, Task
from speckernel.sandbox.base import Limits

from speckernel_tla.runtime import RuntimeVerifier, blamed_actions, simulation_seeds
from speckernel_tla.tasks import Budgets, bundled_root, bundled_task
from speckernel_tla.tlc_config import IDENTIFIER, replaced_names, sections, with_checks
from speckernel_tla.tlc_output import Outcome, TlcResult, TraceStep

BUG_SPECS = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "sysmobench" / (
    "bug_specs")
SMALL = Budgets(depth=20, states=5_000, simulate_runs=1, simulate_depth=30, wall_s=60.0)
UNLOCK = "/\\ lock_state' = FALSE\n    /\\ pc' = [pc EXCEPT ![t] = \"idle\"]"
TYPE_ERROR = "/\\ lock_state' = lock_state + 1\n    /\\ pc' = [pc EXCEPT ![t] = \"idle\"]"
COUNTER = """---- MODULE spinlock ----
EXTENDS Naturals
VARIABLE x
Init == x \\in 0..{top}
Step == x' = x + 1
Next == Step
====
"""


def spinlock(budgets: Budgets = SMALL) -> Task:
    task = bundled_task(bundled_root() / "spinlock", budgets)
    return task


def gold_text(task: Task) -> str:
    assert task.reference is not None
    return task.reference["spinlock.tla"]


def gold(task: Task, **changes: str) -> Candidate:
    assert task.reference is not None
    return Candidate({**task.reference, **changes}, Provenance("test", "none"))


@pytest.mark.anyio
async def test_gold_model_covers_every_action(make_ctx: Any) -> None:
    task = spinlock()
    verdict = await RuntimeVerifier().verify(gold(task), task, make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.data["m_r"] == 1.0
    assert list(verdict.data["per_action"]) == ["LockRequest", "Acquire", "TryLockSuccess",
                                                "TryLockFail", "Unlock"]
    runs = verdict.data["runs"]
    assert [(r["mode"], r["seed"]) for r in runs] == [
        ("bfs", None), ("simulate", simulation_seeds("spinlock", 1)[0])]
    assert all(r["outcome"] == "ok" for r in runs)


@pytest.mark.anyio
async def test_simulations_share_one_jvm(make_ctx: Any) -> None:
    # Upstream runs -simulate num=50 once per simulation; here 3 x 50 behaviours are one run.
    task = spinlock(attrs.evolve(SMALL, simulate_runs=3))
    verdict = await RuntimeVerifier().verify(gold(task), task, make_ctx())
    assert verdict.status is Status.SUCCESS and verdict.data["m_r"] == 1.0
    assert [(r["mode"], r["seed"], r["behaviours"]) for r in verdict.data["runs"]] == [
        ("bfs", None, None), ("simulate", simulation_seeds("spinlock", 3)[0], 150)]


@pytest.mark.anyio
async def test_actions_with_let_bodies_are_covered(make_ctx: Any) -> None:
    # Issue 16: TLC prints the body's span after the module name when an action's body is a
    # LET; those actions vanished from the coverage, and M_r was 0 with every run clean.
    task = spinlock()
    text = gold_text(task)
    for action in ("LockRequest", "Acquire", "TryLockSuccess", "TryLockFail", "Unlock"):
        text = text.replace(f"{action}(t) ==\n", f"{action}(t) ==\n    LET me == t IN\n", 1)
    assert text.count("LET me == t IN") == 5
    verdict = await RuntimeVerifier().verify(gold(task, **{"spinlock.tla": text}), task,
                                             make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.data["m_r"] == 1.0 and len(verdict.data["per_action"]) == 5


@pytest.mark.anyio
@pytest.mark.skipif(not BUG_SPECS.is_dir(), reason=f"SysMoBench data not found at {BUG_SPECS}")
async def test_upstream_rwmutex_bug_spec_has_its_actions(make_ctx: Any) -> None:
    # Issue 16: TLC names its actions with their LET/\E bodies' spans; M_r was 0 with an empty
    # per-action table while every TLC run was clean.
    folder = BUG_SPECS / "rwmutex"
    task = Task("rwmutex", "tla", metadata={"module": "1_rwmutex", "budgets": SMALL.to_json()})
    candidate = Candidate({f"1_rwmutex.{ext}": (folder / f"1_rwmutex.{ext}").read_text()
                           for ext in ("tla", "cfg")}, Provenance("test", "none"))
    verdict = await RuntimeVerifier().verify(candidate, task, make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert len(verdict.data["per_action"]) == 18 and verdict.data["m_r"] == 1.0


@pytest.mark.anyio
async def test_seeded_type_error_lowers_m_r_and_fails(make_ctx: Any) -> None:
    task = spinlock()
    broken = task.reference["spinlock.tla"].replace(UNLOCK, TYPE_ERROR)  # type: ignore[index]
    assert broken != task.reference["spinlock.tla"]  # type: ignore[index]
    verdict = await RuntimeVerifier().verify(gold(task, **{"spinlock.tla": broken}), task,
                                             make_ctx())
    assert verdict.status is Status.FAILURE
    assert verdict.data["error_actions"] == ["Unlock"]
    # the merged simulation hit the error: the simulations also ran one seed per run
    assert [r["mode"] for r in verdict.data["runs"]] == ["bfs", "simulate", "simulate"]
    assert verdict.data["per_action"]["Unlock"]["runtime_error"] is True
    assert verdict.data["m_r"] < 1.0
    first = verdict.diagnostics[0]
    assert (first.file, first.line) == ("spinlock.tla", 61) and "evaluation_error" in first.message


@pytest.mark.anyio
async def test_infinite_state_space_is_bounded_by_the_budgets(make_ctx: Any) -> None:
    task = spinlock(attrs.evolve(SMALL, depth=10, states=100))
    files = {"spinlock.tla": COUNTER.format(top=0), "spinlock.cfg": "INIT Init\nNEXT Next\n"}
    verdict = await RuntimeVerifier().verify(gold(task, **files), task, make_ctx())
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert verdict.data["runs"][0]["truncated"] is True
    assert verdict.data["m_r"] == 1.0


@pytest.mark.anyio
async def test_tlc_that_never_finishes_is_a_timeout(make_ctx: Any) -> None:
    task = spinlock(attrs.evolve(SMALL, wall_s=6.0))
    slow = COUNTER.format(top=0).replace("Init == x \\in 0..0",
                                         "Init == x = 0 /\\ \\A i \\in 1..2000000000 : i > 0")
    files = {"spinlock.tla": slow, "spinlock.cfg": "INIT Init\nNEXT Next\n"}
    ctx = attrs.evolve(make_ctx(), limits=Limits(wall_s=10.0, memory_mb=2048))
    verdict = await RuntimeVerifier().verify(gold(task, **files), task, ctx)
    assert verdict.status is Status.TIMEOUT, verdict.summary()
    assert verdict.duration_s < 20
    assert [r["outcome"] for r in verdict.data["runs"]] == ["timeout"]


@pytest.mark.anyio
@pytest.mark.parametrize(("files", "needle"), [
    ({"spinlock.cfg": "SPECIFICATION Spec\n"}, "config_error"),
    ({"spinlock.tla": "Here is your model: a spinlock.\n"}, "parse_error"),
    ({"spinlock.tla": "---- MODULE spinlock ----\nVARIABLE x\nInit == x ∈ {1}\n"
                      "Next == x' = x\n====\n", "spinlock.cfg": "INIT Init\nNEXT Next\n"},
     "parse_error"),
])
async def test_bad_input_ends_as_a_failure(make_ctx: Any, files: dict[str, str],
                                           needle: str) -> None:
    task = spinlock()
    verdict = await RuntimeVerifier().verify(gold(task, **files), task, make_ctx())
    assert verdict.status is Status.FAILURE
    assert needle in verdict.summary()
    assert verdict.data["m_r"] == 0.0


@pytest.mark.anyio
async def test_missing_config_is_a_failure(make_ctx: Any) -> None:
    task = spinlock()
    candidate = Candidate({"spinlock.tla": "x"}, Provenance("test", "none"))
    verdict = await RuntimeVerifier().verify(candidate, task, make_ctx())
    assert verdict.status is Status.FAILURE
    assert "no TLC configuration spinlock.cfg" in verdict.summary()


def test_seeds_are_reproducible_per_task() -> None:
    assert simulation_seeds("spinlock", 3) == simulation_seeds("spinlock", 3)
    assert simulation_seeds("spinlock", 2) != simulation_seeds("mutex", 2)
    assert all(1 <= s <= 1_000_000 for s in simulation_seeds("twophase", 20))


def test_unlocated_errors_borrow_a_located_blame_or_take_the_last_step() -> None:
    step = TraceStep(2, "<Acquire line 3>", "Acquire", "")
    located = TlcResult(Outcome.EVALUATION_ERROR, "boom\ndetail", error_action="Unlock")
    same = TlcResult(Outcome.EVALUATION_ERROR, "boom\nother", trace=(step,))
    other = TlcResult(Outcome.EVALUATION_ERROR, "bang", trace=(step,))
    clean = TlcResult(Outcome.TIMEOUT)
    assert blamed_actions([located, same, other, clean]) == [
        ("Unlock", True), ("Unlock", True), ("Acquire", False), (None, False)]


def test_config_rewriting_keeps_behaviour_and_replaces_checks() -> None:
    cfg = Path(bundled_root() / "twophase" / "gold" / "twophase.cfg").read_text()
    assert [k for k, _ in sections(cfg)] == ["SPECIFICATION", "CONSTANTS", "INVARIANTS",
                                             "PROPERTIES"]
    rewritten = with_checks(cfg, ["Inv"], ["Live"])
    assert [k for k, _ in sections(rewritten)] == ["SPECIFICATION", "CONSTANTS", "INVARIANT",
                                                   "PROPERTY"]
    assert 'RMs = {"p1", "p2", "p3"}' in rewritten and "TypeOK" not in rewritten
    tricky = '\\* INVARIANT Gone\nINIT Init (* PROPERTY P *) NEXT Next\nCONSTANT N = "VIEW"\n'
    assert sections(tricky) == [("INIT", "Init"), ("NEXT", "Next"), ("CONSTANT", 'N = "VIEW"')]
    # TLC ends a line comment at a lone carriage return too: what follows is a section
    assert sections("SPECIFICATION Spec \\* note\rCONSTANT Fair <- NoFair\n") == [
        ("SPECIFICATION", "Spec"), ("CONSTANT", "Fair <- NoFair")]
    # every keyword of TLC's grammar ends the section before it
    assert sections("CONSTANT N = 3\nTYPE_CONSTRAINT T\nTYPE U\nINIT Init") == [
        ("CONSTANT", "N = 3"), ("TYPE_CONSTRAINT", "T"), ("TYPE", "U"), ("INIT", "Init")]
    assert replaced_names("CONSTANTS N = 3 1Fair <- NoFair\nCONSTANT F(x) <- G") == {
        "N", "1Fair", "F"}
    # operator symbols TLC lets a cfg replace (checked on TLC 2.18: ``++ <- Minus`` makes a
    # model's ``a ++ b == a + b`` subtract), and a string value's ``=`` that is no assignment
    assert replaced_names('CONSTANTS ++ <- Minus\n  -.= 3 \\oplus<-F\n  x = "a=b" (+) <- G') >= {
        "++", "-.", "\\oplus", "(+)", "x"}
    assert "a" not in replaced_names('CONSTANT x = "a=b"')
    # each assignment reads only the text since the one before (this took minutes when each
    # read the whole section before it)
    assert replaced_names("CONSTANT " + "x=" * 200_000) == {"x"}
    # a comment or string never closed is read once, not rescanned from every later opener
    assert sections("INIT Init " + "(*" * 200_000) == [("INIT", "Init")]
    unclosed = 'CONSTANT x = "' + '\\"' * 200_000
    assert sections(unclosed + "\nNEXT N") == [("CONSTANT", unclosed[9:]), ("NEXT", "N")]
    assert replaced_names(unclosed + "\r") == {"x"}


CFG_NAMES = st.from_regex(r"[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*", fullmatch=True) | st.sampled_from(
    ["++", "-.", "\\oplus", "(+)", "%%", "^^", "|-"])
CFG_VALUES = st.sampled_from(["3", "-1", "{p1, p2}", "{}", '"a = b <- c"', '"x\\"y"', "Def",
                              "[Model]D", "TRUE"])
CFG_NOISE = st.sampled_from(["", "\\* X <- Y\n", "(* Z = 1 *)", "\n", "\r", "\t"])


@given(st.lists(st.tuples(CFG_NAMES, st.booleans(), st.booleans(), CFG_VALUES, CFG_NOISE),
                min_size=1, max_size=8))
@example([("A", False, False, "Def", ""), ("(+)", False, False, "3", "")])  # (+) as Def's params
def test_every_name_a_constant_section_assigns_is_found(
        entries: list[tuple[str, bool, bool, str, str]]) -> None:
    """Whatever a CONSTANT section gives a value or replaces, spaced or not, with parameters or
    not, among strings holding ``=`` and ``<-`` and comments holding assignments: every
    identifier is among replaced_names, and every operator symbol shows as some name that is
    not an identifier (which stops all shaping)."""
    lines = []
    for name, replaces, spaced, value, noise in entries:
        params = "(a, b)" if replaces and IDENTIFIER.fullmatch(name) and spaced else ""
        gap = " " if spaced else ""
        lines.append(f"{name}{params}{gap}{'<-' if replaces else '='}{gap}{value}{noise}")
    cfg = "CONSTANTS\n  " + "\n  ".join(lines) + "\nSPECIFICATION Spec\n"
    found = replaced_names(cfg)
    assert {n for n, *_ in entries if IDENTIFIER.fullmatch(n)} <= found
    assert "X" not in found - {n for n, *_ in entries}
    if any(not IDENTIFIER.fullmatch(n) for n, *_ in entries):
        assert any(not IDENTIFIER.fullmatch(n) for n in found)


@pytest.mark.anyio
@pytest.mark.parametrize("constraint", ["", "CONSTRAINT Hide\n", "ACTION_CONSTRAINT HideNext\n"])
async def test_a_constraint_cannot_hide_a_runtime_error(make_ctx: Any, constraint: str) -> None:
    """Unlock fails for thread t3 only; a constraint that keeps TLC out of the states where t3
    holds the lock hid the error while Unlock stayed covered by the other threads (M_r 1, and
    the gate to the other phases open). The cfg's reductions are not used: the error counts."""
    task = spinlock()
    broken = gold_text(task).replace(
        "    /\\ call_type' = [call_type EXCEPT ![t] = \"none\"]",
        "    /\\ call_type' = [call_type EXCEPT ![t] = "
        "IF t = \"t3\" THEN call_type[\"nobody\"] ELSE \"none\"]")
    end = broken.rindex("\n====") + 1
    broken = (broken[:end] + "Hide == pc[\"t3\"] # \"locked\"\n"
              "HideNext == pc'[\"t3\"] # \"locked\"\n" + broken[end:])
    assert task.reference is not None
    candidate = gold(task, **{"spinlock.tla": broken,
                              "spinlock.cfg": task.reference["spinlock.cfg"] + constraint})
    verdict = await RuntimeVerifier().verify(candidate, task, make_ctx())
    assert verdict.status is Status.FAILURE
    assert verdict.data["error_actions"] == ["Unlock"] and verdict.data["m_r"] == 0.8
    noted = [d for d in verdict.diagnostics if "not used" in d.message]
    assert bool(noted) is bool(constraint)


@pytest.mark.anyio
@pytest.mark.parametrize("decoy", ["", "Assert(c, m) == TRUE\n"])
async def test_a_cfg_replacing_a_standard_operator_starts_no_run(
        make_ctx: Any, decoy: str) -> None:
    """``Assert <- NoAssert`` hid the model's failing assertion (M_r 1, found by an attacker):
    a cfg that tampers with the run fails the phase, as it does the others; a decoy definition
    of ``Assert`` after the module's end, which SANY never reads, changes nothing (found by a
    second attacker)."""
    task = spinlock()
    assert task.reference is not None
    end = gold_text(task).rindex("\n====") + 1
    model = gold_text(task)[:end] + "NoAssert(c, m) == TRUE\n" + gold_text(task)[end:] + decoy
    candidate = gold(task, **{"spinlock.tla": model, "spinlock.cfg":
                              task.reference["spinlock.cfg"] + "CONSTANT Assert <- NoAssert\n"})
    verdict = await RuntimeVerifier().verify(candidate, task, make_ctx())
    assert verdict.status is Status.FAILURE and verdict.data["m_r"] == 0.0
    assert "the cfg replaces Assert, an operator of a standard module" in verdict.summary()
