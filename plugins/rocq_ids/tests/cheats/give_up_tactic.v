(* cheat: give_up leaves a shelved goal
   task: ryw
   rejected-by: commands
   reason: 'give_up' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Lemma put_sim : forall n : nat, n + 0 = n.
Proof.
  intros. give_up.
Qed.
