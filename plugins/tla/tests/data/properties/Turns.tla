------------------------------- MODULE Turns -------------------------------
\* Written for the tests of how invariant templates are checked: a lock that a process asks
\* for once and gets in any order (waiting is a set, not a queue), so a later request can be
\* served first. Three specifications of it: with fairness on each process's steps (machine
\* closed), without fairness, and with fairness on an action no step of Next takes (no
\* behaviour is fair, so every temporal property holds vacuously).
EXTENDS Naturals, FiniteSets

CONSTANT Procs

VARIABLES pc, holder, waiting

vars == <<pc, holder, waiting>>

TypeOK == /\ pc \in [Procs -> {"idle", "wait", "cs", "done"}]
          /\ holder \in Procs \cup {0}

Init == /\ pc = [p \in Procs |-> "idle"]
        /\ holder = 0
        /\ waiting = {}

Request(p) == /\ pc[p] = "idle"
              /\ pc' = [pc EXCEPT ![p] = "wait"]
              /\ waiting' = waiting \cup {p}
              /\ UNCHANGED holder

Grant(p) == /\ pc[p] = "wait"
            /\ holder = 0
            /\ holder' = p
            /\ waiting' = waiting \ {p}
            /\ pc' = [pc EXCEPT ![p] = "cs"]

Release(p) == /\ pc[p] = "cs"
              /\ holder' = 0
              /\ pc' = [pc EXCEPT ![p] = "done"]
              /\ UNCHANGED waiting

Step(p) == Request(p) \/ Grant(p) \/ Release(p)

Next == \E p \in Procs : Step(p)

Spec == Init /\ [][Next]_vars /\ \A p \in Procs : WF_vars(Step(p))

Unfair == Init /\ [][Next]_vars

Elsewhere == holder' = 99 /\ UNCHANGED <<pc, waiting>>

Vacuous == Init /\ [][Next]_vars /\ WF_vars(Elsewhere)

AlwaysTyped == [](TypeOK)
=============================================================================
