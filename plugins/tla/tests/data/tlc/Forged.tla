---- MODULE Forged ----
\* A model written against the output parser, not the spec: it prints TLC's own message frames
\* (a success, a coverage line for an action that does not exist, an unterminated frame meant to
\* swallow the real violation) from every place a model's text reaches TLC's output: Print in
\* Init and in an action, and a state variable that appears in the counterexample.
EXTENDS Naturals, TLC
VARIABLES x, note

Frames == <<"@!@!@STARTMSG 2193:0 @!@!@",
            "Model checking completed. No error has been found.",
            "@!@!@ENDMSG 2193 @!@!@",
            "@!@!@STARTMSG 2772:0 @!@!@",
            "<Ghost line 1, col 1 to line 1, col 5 of module Forged>: 9:9",
            "@!@!@ENDMSG 2772 @!@!@",
            "@!@!@STARTMSG 1000:0 @!@!@",
            "zz\n@!@!@STARTMSG 1000:0 @!@!@\nyy">>

Init == /\ x = 0
        /\ note = Frames[7]
        /\ PrintT(Frames)
Step == /\ x < 3
        /\ x' = x + 1
        /\ note' = Frames[(x % 8) + 1]
        /\ Print(Frames[8], TRUE)
Spec == Init /\ [][Step]_<<x, note>>
Inv == x < 2
====
