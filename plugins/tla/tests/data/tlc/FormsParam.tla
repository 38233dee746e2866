---- MODULE FormsParam ----
EXTENDS Naturals, Sequences
CONSTANT Procs
VARIABLES x, q
vars == <<x, q>>
Lib == INSTANCE FormsErrLib
Init == x = 7 /\ q = <<>>
Move(p) == x = 7 /\ x' = 8 /\ q' = Append(q, p)
Drop(p) == x = 8 /\ x' = 7 /\ q' = Tail(Tail(q))
Next == (\E p \in Procs : Move(p) \/ Drop(p)) \/ Lib!Odd
Spec == Init /\ [][Next]_vars
Short == Len(q) < 1
====
