"""What the TLA+ plugin's tests share: data paths, limits, and small TLA+ modules, good and
broken on purpose. (A uniquely named module, so plugin test suites can run in one session.)"""

from pathlib import Path

from speckernel.sandbox.base import Limits

DATA = Path(__file__).parent / "data"
LIMITS = Limits(wall_s=120.0, memory_mb=2048)

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
