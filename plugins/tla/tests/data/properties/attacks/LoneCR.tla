---- MODULE LoneCR ----
\* A lone carriage return ends a line for SANY, not for the copied text: after it, the
\* text copied for a leaf is the line below the leaf's. The fairness is on ovar, whose
\* change Next never makes (WF_ovar(Next) is always true); the line below it reads vars.\* (the line SANY sees after the carriage return)
EXTENDS Naturals
VARIABLES x, y
vars == <<x, y>>
ovar == <<y>>
Init == x = 0 /\ y = 0
Next == x < 2 /\ x' = x + 1 /\ UNCHANGED y
Spec == Init /\ [][Next]_vars /\ WF_ovar(Next)
\*                                  vars
====
