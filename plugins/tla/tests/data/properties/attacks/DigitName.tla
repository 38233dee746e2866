---- MODULE DigitName ----
\* The cfg gives the constant Fair a value and replaces the definition 1Fair (a TLA+ name may
\* start with a digit): a scan of names starting with a letter reads only Fair, declared.
EXTENDS Naturals
CONSTANT Fair
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Never == FALSE /\ x' = x
1Fair == WF_vars(Next)
NoFair == WF_vars(Never)
Spec == Init /\ [][Next]_vars /\ 1Fair
====
