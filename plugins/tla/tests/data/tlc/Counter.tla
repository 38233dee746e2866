---- MODULE Counter ----
EXTENDS Naturals, Sequences
CONSTANT Limit
VARIABLES x, log
vars == <<x, log>>
Init == x = 0 /\ log = <<>>
Inc == x < Limit /\ x' = x + 1 /\ log' = Append(log, "inc")
Reset == x = Limit /\ x' = 0 /\ log' = <<>>
Stuck == x > Limit + 5 /\ UNCHANGED vars
Next == Inc \/ Reset \/ Stuck
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
Small == x < Limit
TypeOK == x \in 0..Limit
EventuallyBig == <>(x = Limit + 1)
====
