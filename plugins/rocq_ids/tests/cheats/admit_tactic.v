(* cheat: an admit inside a tactic combinator
   task: ryw
   rejected-by: commands
   reason: 'admit' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Lemma put_sim : forall n : nat, n + 0 = n.
Proof.
  intros; try admit; auto.
Qed.
