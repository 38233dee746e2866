(* cheat: an axiom inside a module type
   task: ryw
   rejected-by: commands
   reason: 'Axiom' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Module Type T.
  Axiom cheat : False.
End T.
