---- MODULE Forms ----
EXTENDS Naturals
CONSTANT Procs
VARIABLES x, pc
vars == <<x, pc>>
Inner == INSTANCE FormsInner WITH y <- x
INSTANCE FormsLib
Lib == INSTANCE FormsLib
Init == x = 0 /\ pc = [p \in Procs |-> "a"]
\* the body of a LET action: TLC prints the body's location first
Bump ==
    LET me == 1 IN
    /\ x < 3
    /\ x' = x + me
    /\ UNCHANGED pc
\* an existential body
Pick == \E d \in {1, 2} : x + d <= 4 /\ x' = x + d /\ UNCHANGED pc
\* a parameterised action
Move(p) == pc[p] = "a" /\ pc' = [pc EXCEPT ![p] = "b"] /\ UNCHANGED x
\* a parameterised action whose body is a LET
Back(p) == LET q == p IN pc[q] = "b" /\ pc' = [pc EXCEPT ![q] = "a"] /\ UNCHANGED x
\* never enabled
Never == x > 10 /\ UNCHANGED vars
Next == \/ Bump
        \/ Pick
        \/ \E p \in Procs : Move(p) \/ Back(p)
        \/ Inner!Halve /\ UNCHANGED pc
        \/ Never
        \/ Wrap
        \/ Lib!Twice(1)
        \/ x = 4 /\ x' = 0 /\ UNCHANGED pc
Spec == Init /\ [][Next]_vars
Small == x <= 4
====
