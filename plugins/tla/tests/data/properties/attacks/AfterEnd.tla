---- MODULE AfterEnd ----
\* The cfg replaces the fairness definition Fair; the only CONSTANT declaration of Fair stands
\* after the module's end, text SANY never reads.
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
CONSTANT Fair
