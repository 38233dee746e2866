(* cheat: a conjecture used as a lemma
   task: ryw
   rejected-by: commands
   reason: 'Conjecture' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Conjecture put_sim : forall n : nat, n + 0 = n.
