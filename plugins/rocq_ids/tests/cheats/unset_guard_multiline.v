(* cheat: switches the termination checker off with the command spread over lines
   task: ryw
   rejected-by: commands
   reason: 'Unset' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Unset
  Guard
    Checking.
Fixpoint loop (n : nat) : False := loop n.
