(* cheat: a string holding an opening comment bracket inside a comment: a scanner that nests comments without reading strings sees the axiom as commented out; coqc runs it
   task: ryw
   rejected-by: commands
   reason: 'Axiom' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

(* "(*" *) Axiom cheat : False.
