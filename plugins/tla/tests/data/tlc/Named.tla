---- MODULE Named ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Spec == Init /\ [][Next]_x /\ WF_x(Next)
BoxP == [](x < 3)
BoxA == [][x' > x + 5]_x
InitP == x = 1
Live == <>(x = 7)
Both == [](x < 3) /\ <>(x = 7)
QBox == \A k \in {1, 2} : [](x < 2 + k)
====
