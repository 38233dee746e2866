"""What the TLA+ plugin's tests share: data paths, limits, and small TLA+ modules, good and
broken on purpose. (A uniquely named module, so plugin test suites can run in one session.)"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from speckernel.components import EvaluatorContext
from speckernel.model import Completion, GenerateParams, Message, Task, Usage
from speckernel.sandbox.base import Limits
from speckernel.yamlio import load_yaml, plain

from speckernel_tla.tasks import Budgets

DATA = Path(__file__).parent / "data"
LIMITS = Limits(wall_s=120.0, memory_mb=2048)


def invariant_task(name: str, module: str, templates: Mapping[str, tuple[str, str]],
                   budgets: Budgets) -> Task:
    """A task whose invariant templates are ``templates`` (name: (type, body)), written the
    way upstream's invariants.yaml gives an example: ``Name == body``."""
    return Task(name, "tla", metadata={
        "module": module, "budgets": budgets.to_json(),
        "invariants": [{"name": n, "type": kind, "tla_example": f"{n} =={body}"}
                       for n, (kind, body) in templates.items()]})


class Evaluator(EvaluatorContext):
    """The run's evaluator model as a benchmark's ``prepare`` sees it, answering ``answer``."""

    def __init__(self, answer: str | None, options: Mapping[str, Any] | None = None) -> None:
        self.model_name = None if answer is None else "scripted:evaluator"
        self.options = options or {}
        self.answer = answer
        self.asked: list[str] = []
        self.systems: list[str] = []

    async def generate(self, messages: Sequence[Message],
                       params: GenerateParams | None = None) -> Completion:
        assert self.answer is not None
        self.asked.append(messages[-1].content)
        self.systems.append(messages[0].content)
        return Completion(self.answer, "scripted:evaluator", Usage(), 0.0, "stop")

    def log(self, message: str) -> None:
        pass


def attacks(path: Path) -> list[dict[str, Any]]:
    """The ``attacks`` listed by an adversarial corpus file."""
    return list(plain(load_yaml(path.read_text(), path.name))["attacks"])


def corpus_files(directory: Path, names: Iterable[str]) -> dict[str, str]:
    """Files of a corpus, by base name, decoded from their bytes as they are (reading them as
    text would make a lone carriage return a newline)."""
    return {Path(name).name: (directory / name).read_bytes().decode() for name in names}

GOOD = """---- MODULE Good ----
EXTENDS Naturals, Sequences
VARIABLE x
Init == x = 0
Next == x' = x + 1
====
"""

SEMANTIC = """---- MODULE Semantic ----
EXTENDS Naturals
VARIABLE x
Init == x = y
Next == x' = Foo(x, 1) /\\ Bar
Twice == Init /\\ Init(1)
====
"""

SYNTAX = """---- MODULE Syntax ----
EXTENDS Naturals
VARIABLE x
Init == x =
Next == /\\ x' = x + 1 )
====
"""

PROSE = "Here is the specification you asked for. It models a spinlock.\n"

UNICODE = """---- MODULE Unicode ----
EXTENDS Naturals
VARIABLE x
Init == x ∈ {1, 2} ∧ x ≥ 1
====
"""

MISSING_IMPORT = """---- MODULE MissingImport ----
EXTENDS Naturals, NoSuchModule
VARIABLE x
Init == x = 0
====
"""

WRONG_NAME = """---- MODULE NotTheFileName ----
VARIABLE x
====
"""

COMMUNITY = """---- MODULE Community ----
EXTENDS Naturals, Sequences, SequencesExt, FiniteSetsExt, TLC
VARIABLE q
Init == q = <<>>
Push == Len(q) < 2 /\\ q' = Append(q, Max({1, 2}))
Pop == q # <<>> /\\ q' = Front(q)
Next == Push \\/ Pop
Seen == ToSet(q) \\subseteq {2}
====
"""

SPIN = """---------------------------- MODULE spin ----------------------------
EXTENDS TLC, Sequences, Naturals, FiniteSets
CONSTANT Threads
VARIABLES locked, pc

vars == <<locked, pc>>

\\* A thread tries to take the lock.
TryAcquire(t) ==
    /\\ pc[t] = "idle"
    /\\ IF ~locked
       THEN /\\ locked' = TRUE
            /\\ pc' = [pc EXCEPT ![t] = "held"]
       ELSE UNCHANGED vars

Release(t) ==
    /\\ pc[t] = "held"
    /\\ locked' = FALSE
    /\\ pc' = [pc EXCEPT ![t] = "idle"]

Holders == { t \\in Threads : pc[t] = "held" }

Broken(t) == pc[t] = "held" /\\ locked' = = FALSE

Init == locked = FALSE /\\ pc = [t \\in Threads |-> "idle"]
Next == \\E t \\in Threads : TryAcquire(t) \\/ Release(t)
Spec == Init /\\ [][Next]_vars /\\ WF_vars(Next)
MutualExclusion == Cardinality(Holders) <= 1
=============================================================================
"""
