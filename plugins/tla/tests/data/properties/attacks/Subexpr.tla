---- MODULE Subexpr ----
\* The fairness condition cannot be evaluated (ENABLED Weird divides by zero at x = 2), so
\* any run that searches a tableau fails. Q!1 is [](x >= 0): SANY calls it $Nop, TLC checks
\* it as an invariant, without a tableau.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x' = (x + 1) % 3
Weird == x' = x /\ (1 \div (x - 2)) = 0
Spec == Init /\ [][Next]_vars /\ WF_vars(Weird)
Q == [](x >= 0) /\ <>(x = 1)
====
