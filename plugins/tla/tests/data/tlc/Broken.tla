---- MODULE Broken ----
EXTENDS Naturals
VARIABLE x
Init == x = 
Next == x' = x
====
