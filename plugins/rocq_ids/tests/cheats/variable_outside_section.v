(* cheat: a top-level Variable, which Coq turns into an axiom
   task: ryw
   rejected-by: commands
   reason: 'Variable' outside a section declares an axiom *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Variable cheat : False.
