---- MODULE Eval ----
EXTENDS Naturals, Sequences
VARIABLES q, out
Init == q = <<1>> /\ out = 0
Take == out' = Head(q) /\ q' = Tail(q)
Next == Take
====
