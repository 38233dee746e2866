---- MODULE FairValue ----
\* The cfg gives the fairness definition Fair (inlined by SANY into Spec) the value TRUE
\* (CONSTANT Fair = TRUE): TLC then checks a specification without fairness.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Never == FALSE /\ x' = x
Fair == WF_vars(Next)
NoFair == WF_vars(Never)
Spec == Init /\ [][Next]_vars /\ Fair
====
