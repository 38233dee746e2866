"""The model checked at the scale its system ran at (``speckernel_tla.system_scale``): the
constants the traces fix replace what the candidate's cfg gives them, in the runtime and
invariant phases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from speckernel.model import Candidate, Provenance, Task

from speckernel_tla.artifact import ModelUnderTest
from speckernel_tla.invariants import InvariantVerifier
from speckernel_tla.runtime import RuntimeVerifier
from speckernel_tla.system_scale import system_constants
from speckernel_tla.tasks import Budgets, bundled_root, bundled_task
from speckernel_tla.tlc_config import with_constants
from speckernel_tla.trace_validation import read_config

THREE = '{"t1", "t2", "t3"}'
GUARDED_ACQUIRE = "    /\\ pc[t] = \"spinning\"\n    /\\ lock_state = FALSE\n"
UNGUARDED_ACQUIRE = "    /\\ pc[t] = \"spinning\"\n"
MUTUAL_EXCLUSION = {"invariants": [
    "MutualExclusion == Cardinality({t \\in Threads : pc[t] = \"locked\"}) <= 1"]}


@pytest.fixture(scope="module")
def spinlock() -> Task:
    return bundled_task(bundled_root() / "spinlock", Budgets(depth=30, states=5_000))


def faulty(task: Task, cfg_threads: str) -> Candidate:
    """The spinlock whose acquire ignores the lock (two threads get in), its cfg with
    ``cfg_threads``, judged by the evaluator's mutual exclusion."""
    assert task.reference is not None
    model = task.reference["spinlock.tla"]
    assert GUARDED_ACQUIRE in model
    return Candidate({
        "spinlock.tla": model.replace(GUARDED_ACQUIRE, UNGUARDED_ACQUIRE),
        "spinlock.cfg": task.reference["spinlock.cfg"].replace(THREE, cfg_threads),
        "evaluator/invariants.json": json.dumps(MUTUAL_EXCLUSION)}, Provenance("test", "none"))


@pytest.mark.anyio
@pytest.mark.parametrize("cfg_threads", [THREE, '{"t1"}', "{t1}", "{}", "<- Solo"])
async def test_a_cfg_cannot_check_fewer_threads_than_the_system_ran(
        make_ctx: Any, spinlock: Task, cfg_threads: str) -> None:
    """With one thread, or none, mutual exclusion held for a lock that lets two threads in
    (and runtime coverage only missed the contended actions): the system ran three, and the
    model is checked with the three its traces name, whatever its cfg says, a value or a
    replacement by a definition of the model's (``Threads <- Solo``)."""
    candidate = faulty(spinlock, cfg_threads)
    if cfg_threads.startswith("<-"):
        files = dict(candidate.files)
        files["spinlock.cfg"] = files["spinlock.cfg"].replace("Threads = <- Solo",
                                                              "Threads <- Solo")
        model = files["spinlock.tla"]
        end = model.rindex("====")
        files["spinlock.tla"] = model[:end] + 'Solo == {"t1"}\n' + model[end:]
        candidate = Candidate(files, candidate.provenance)
    invariants = await InvariantVerifier().verify(candidate, spinlock, make_ctx())
    assert invariants.data["invariants"]["MutualExclusion"]["outcome"] == "violated"
    assert invariants.data["system_constants"] == {"Threads": THREE}
    assert invariants.data["constants_unbound"] == 0
    runtime = await RuntimeVerifier().verify(candidate, spinlock, make_ctx())
    assert runtime.data["m_r"] == 1.0 and runtime.data["system_constants"] == {"Threads": THREE}


@pytest.mark.anyio
async def test_a_model_whose_constants_nothing_binds_is_flagged(
        make_ctx: Any, spinlock: Task) -> None:
    """Renamed, with no mapping of its own, the one-thread faulty spinlock's constant is not
    the task mapping's: nothing binds it, it is checked at its cfg's scale, and the verdict
    says one constant the traces fix went unbound (Table 3 then says so)."""
    candidate = faulty(spinlock, '{"t1"}')
    files = {name: text.replace("Threads", "Procs") for name, text in candidate.files.items()}
    renamed = Candidate(files, candidate.provenance)
    invariants = await InvariantVerifier().verify(renamed, spinlock, make_ctx())
    assert invariants.data["invariants"]["MutualExclusion"]["outcome"] == "holds"
    assert invariants.data["system_constants"] == {}
    assert invariants.data["constants_unbound"] == 1


def model_of(text: str, cfg: str) -> ModelUnderTest:
    return ModelUnderTest("spinlock", "spinlock.cfg", {"spinlock.tla": text, "spinlock.cfg": cfg})


@pytest.mark.parametrize(("declaration", "mapping_constant", "bound"), [
    ("CONSTANT Threads", "SetOf(TraceFirst.threads)", {"Threads": THREE}),
    ("CONSTANTS Other,\n    Threads", "SetOf( TraceFirst . threads )", {"Threads": THREE}),
    # SANY's forms the line-anchored reading missed: an indented declaration, names on the
    # next line at the margin (the faulty spinlock so declared kept its cfg's one thread)
    ("  CONSTANT Threads", "SetOf(TraceFirst.threads)", {"Threads": THREE}),
    ("CONSTANT\nThreads", "SetOf(TraceFirst.threads)", {"Threads": THREE}),
    ("VARIABLE x CONSTANTS N, Op(_),\nThreads", "SetOf(TraceFirst.threads)", {"Threads": THREE}),
    # a model in names of its own, read through the task's mapping, has nothing bound
    ("CONSTANT Procs", "SetOf(TraceFirst.threads)", {}),
    # a field the first record lacks, or an expression a cfg cannot hold, is not bound
    ("CONSTANT Threads", "SetOf(TraceFirst.workers)", {}),
    ("CONSTANT Threads", "{TraceFirst.threads[1]}", {}),
    ("CONSTANT Threads", "TraceFirst.threads", {}),
])
def test_what_the_traces_bind(spinlock: Task, declaration: str, mapping_constant: str,
                              bound: dict[str, str]) -> None:
    mapping = {**spinlock.metadata["mapping"], "constants": {"Threads": mapping_constant}}
    task = Task(spinlock.id, spinlock.benchmark, files=spinlock.files,
                metadata={**spinlock.metadata, "mapping": mapping})
    model = model_of(f"---- MODULE spinlock ----\n{declaration}\n====\n", "")
    candidate = Candidate(dict(model.files), Provenance("test", "none"))
    assert system_constants(candidate, task, model) == bound


NAMES = st.sampled_from(["N", "Threads", "Max", "Nil", "Procs"])
VALUES = st.sampled_from(["3", '"a = b"', "{1, 2}", '{"x", "y"}', "TRUE", "Nil", "[x |-> 1]"])


@settings(max_examples=100, deadline=None)
@given(entries=st.dictionaries(NAMES, VALUES, min_size=1),
       bound=st.dictionaries(NAMES, VALUES), split=st.integers(0, 5))
def test_with_constants_replaces_exactly_the_bound_constants(
        entries: dict[str, str], bound: dict[str, str], split: int) -> None:
    """Whatever the cfg gives its constants, in how many CONSTANT sections, the bound ones get
    the bound values and the others keep theirs."""
    items = [f"{name} = {value}" for name, value in entries.items()]
    cut = min(split, len(items))
    cfg = "SPECIFICATION Spec\nCONSTANTS\n    " + "\n    ".join(items[:cut])
    cfg += ("\nCONSTANT " + "\n    ".join(items[cut:]) if items[cut:] else "")
    cfg += "\nINVARIANT TypeOK\n"
    rewritten = with_constants(cfg, bound)
    assert rewritten is not None
    given_values = {name: text.split("=", 1)[1].strip()
                    for name, text in read_config(rewritten).constants}
    assert given_values == {**entries, **bound}
    assert "INVARIANT TypeOK" in rewritten and "SPECIFICATION Spec" in rewritten


def test_an_operators_replacement_stays_beside_a_bound_constant() -> None:
    rewritten = with_constants("CONSTANTS\n    Threads <- Ts\n    P(a) <- Q\n", {"Threads": THREE})
    assert rewritten == f"CONSTANTS\n    P(a) <- Q\nCONSTANTS\n    Threads = {THREE}\n"


def test_text_before_a_sections_first_entry_leaves_the_cfg_as_it_is() -> None:
    assert with_constants("CONSTANTS junk Threads = {1}\n", {"Threads": THREE}) is None
