---- MODULE FormsErrLib ----
EXTENDS Naturals, Sequences
VARIABLES x, q
Odd == x = 7 /\ x' = Head(q) /\ q' = q
====
