---- MODULE Base ----
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
====
