---- MODULE Forever ----
EXTENDS Naturals
VARIABLES a, b
Init == a = 0 /\ b = 0
IncA == a' = a + 1 /\ UNCHANGED b
IncB == b' = b + 1 /\ UNCHANGED a
Next == IncA \/ IncB
====
