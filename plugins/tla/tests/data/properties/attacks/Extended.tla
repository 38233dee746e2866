---- MODULE Extended ----
\* The specification and its fairness are defined in the EXTENDed module Base.
EXTENDS Base
Done == x = 2
====
