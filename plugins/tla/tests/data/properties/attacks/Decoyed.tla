---- MODULE Decoyed ----
\* The cfg replaces the fairness definition Fair; a module no one EXTENDS or INSTANCEs
\* (Decoy.tla, among the files) declares a constant Fair.
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
