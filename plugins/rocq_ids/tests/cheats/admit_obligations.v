(* cheat: Program obligations admitted wholesale
   task: ryw
   rejected-by: commands
   reason: 'Admit' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Program Definition f : {n : nat | n > 5} := 0.
Admit Obligations.
