---- MODULE FormsErr ----
EXTENDS Naturals, Sequences
CONSTANT Procs
VARIABLES x, q
vars == <<x, q>>
Lib == INSTANCE FormsErrLib
Init == x = 0 /\ q = <<>>
Grow ==
    LET n == x + 1 IN
    /\ x < 2
    /\ x' = n
    /\ UNCHANGED q
Take(p) ==
    \E d \in {1} :
    /\ x = 2
    /\ x' = x + d
    /\ q' = Tail(q)
Next == Grow \/ (\E p \in Procs : Take(p)) \/ Lib!Odd
Spec == Init /\ [][Next]_vars
Small == x < 2
====
