(* cheat: an axiom of False that every proof then destructs
   task: ryw
   rejected-by: commands
   reason: 'Axiom' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Axiom cheat : False.
Lemma anything : 1 = 2.
Proof. destruct cheat. Qed.
