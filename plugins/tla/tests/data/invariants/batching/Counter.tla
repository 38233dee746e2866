---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Zero == 0
Yes == TRUE
NoneOf(S) == 0
Small == 0..1
Never == x > 5
Stuck == x' < 0
Spec == Init /\ [][Next]_x /\ WF_x(Next)
====
