---- MODULE Registers ----
\* A fairness condition whose value depends on how often TLC evaluates it: each evaluation of
\* ENABLED A flips TLC register 1. TLC evaluates the specification's copy of WF_vars(A) and a
\* property's copy separately, so the two disagree and a property restating the fairness is
\* violated (deterministically, one worker), while the property without it holds.
EXTENDS Naturals, TLC
VARIABLE x
vars == <<x>>
Init == x = 0 /\ TLCSet(1, 0)
Coin == LET c == TLCGet(1) IN TLCSet(1, c + 1) /\ c % 2 = 0
A == Coin /\ x' = (x + 1) % 4
Next == x' = (x + 1) % 4
Spec == Init /\ [][Next]_vars /\ WF_vars(A)
====
