---- MODULE SpecOverride ----
\* The cfg replaces Spec by Unfair (CONSTANT Spec <- Unfair): SANY's Spec has the fairness
\* WF_vars(Next), TLC's has none.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
Unfair == Init /\ [][Next]_vars
====
