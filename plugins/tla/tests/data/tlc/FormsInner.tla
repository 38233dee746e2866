---- MODULE FormsInner ----
EXTENDS Naturals
VARIABLE y
Halve == y > 1 /\ y' = y \div 2
====
