(* cheat: switches the guard checker off from inside a proof
   task: ryw
   rejected-by: commands
   reason: 'Unset' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Lemma l : True.
Proof.
  Unset Guard Checking.
  exact I.
Qed.
