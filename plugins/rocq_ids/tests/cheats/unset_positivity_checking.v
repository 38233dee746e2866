(* cheat: switches the positivity checker off for a paradoxical type
   task: ryw
   rejected-by: commands
   reason: 'Unset' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Unset Positivity Checking.
Inductive bad := Bad : (bad -> False) -> bad.
