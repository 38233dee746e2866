---- MODULE FormsLib ----
EXTENDS Naturals
VARIABLES x, pc
\* an action of an instanced module, used by name (INSTANCE without a name)
Wrap == x = 3 /\ x' = 4 /\ UNCHANGED pc
\* a parameterised action of a named instance
Twice(k) == x = k /\ x' = 2 * k /\ UNCHANGED pc
====
