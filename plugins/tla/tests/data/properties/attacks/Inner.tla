---- MODULE Inner ----
EXTENDS Naturals
VARIABLE y
vars == <<y>>
Next == y < 2 /\ y' = y + 1
Fair == WF_vars(Next)
====
