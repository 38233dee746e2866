(* cheat: the bypass_check attribute on a non-terminating fixpoint
   task: ryw
   rejected-by: commands
   reason: 'bypass_check' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

#[bypass_check(guard)]
Fixpoint loop (n : nat) : False := loop n.
