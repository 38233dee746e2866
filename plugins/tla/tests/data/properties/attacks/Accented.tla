---- MODULE Accented ----
\* Non-ASCII text before the fairness condition on its line: SANY's columns must be the ones
\* the copied text is cut at.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Spec == Init /\ [][Next]_vars /\ (* é, ü, ∀ *) WF_vars(Next)
====
