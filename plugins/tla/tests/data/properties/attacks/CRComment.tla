---- MODULE CRComment ----
\* The cfg replaces the fairness definition Fair after a cfg line comment that TLC ends at
\* a lone carriage return; a reader ending it at a newline drops the override.
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
