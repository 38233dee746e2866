(* cheat: Abort All to discard a proof state and leave a half-defined file
   task: ryw
   rejected-by: commands
   reason: 'Abort' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Lemma l : False.
Proof.
Abort All.
