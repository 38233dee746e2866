---- MODULE InfixOverride ----
\* The cfg replaces a user-defined infix operator (CONSTANT ++ <- Minus, which TLC accepts):
\* TLC then evaluates Next, and the fairness on it that Spec inlines, with another ++ than the
\* one SANY's tree of the model shows, so nothing is shaped.
EXTENDS Integers
VARIABLE x
vars == <<x>>
a ++ b == a + b
Minus(a, b) == a - b
Init == x = 0
Next == x < 2 /\ x > -2 /\ x' = x ++ 1
Fair == WF_vars(Next)
Spec == Init /\ [][Next]_vars /\ Fair
====
