---- MODULE Shadowed ----
\* The cfg replaces the definition Fair; the module it INSTANCEs (Holder) declares a constant
\* of the same name, substituted here: declared somewhere, but not the name the cfg overrides.
EXTENDS Naturals
VARIABLE x
vars == <<x>>
Init == x = 0
Next == x < 2 /\ x' = x + 1
Never == FALSE /\ x' = x
Fair == WF_vars(Next)
NoFair == WF_vars(Never)
H == INSTANCE Holder WITH Fair <- 0
Spec == Init /\ [][Next]_vars /\ Fair
====
