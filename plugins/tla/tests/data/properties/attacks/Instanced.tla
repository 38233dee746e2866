---- MODULE Instanced ----
\* The fairness comes from an instance with a substitution.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
I == INSTANCE Inner WITH y <- x
Spec == Init /\ [][Next]_vars /\ I!Fair
====
