---- MODULE Strong ----
\* Strong fairness in the specification: a WF restatement is another formula, an SF one the
\* same. Flip toggles between two states where Next is enabled only in one.
EXTENDS Naturals
VARIABLE x, b
vars == <<x, b>>
Init == x = 0 /\ b = 0
Flip == b' = 1 - b /\ UNCHANGED x
Inc == b = 1 /\ x < 2 /\ x' = x + 1 /\ UNCHANGED b
Next == Flip \/ Inc
Spec == Init /\ [][Next]_vars /\ SF_vars(Inc) /\ WF_vars(Flip)
====
