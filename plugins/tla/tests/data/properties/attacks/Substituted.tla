---- MODULE Substituted ----
\* As Subexpr, the fairness condition cannot be evaluated (ENABLED Weird divides by zero at
\* x = 2). W!AlwaysPos is [](x >= 0) under a substitution: SANY shows the substitution, TLC
\* takes it off and checks the formula as an invariant, without a tableau.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x' = (x + 1) % 3
Weird == x' = x /\ (1 \div (x - 2)) = 0
Spec == Init /\ [][Next]_vars /\ WF_vars(Weird)
W == INSTANCE Watcher WITH y <- x
====
