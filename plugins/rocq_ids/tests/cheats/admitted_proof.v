(* cheat: the last simulation lemma Admitted
   task: ryw
   rejected-by: commands
   reason: 'Admitted' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Lemma put_sim : forall n : nat, n + 0 = n.
Proof.
  intros.
Admitted.
