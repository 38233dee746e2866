(* cheat: a parameter standing for the whole simulation
   task: ryw
   rejected-by: commands
   reason: 'Parameter' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Parameter step_sim_proof : forall n : nat, n = 0.
