(* cheat: a top-level Hypothesis, an axiom in disguise
   task: ryw
   rejected-by: commands
   reason: 'Hypothesis' outside a section declares an axiom *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Hypothesis cheat : forall n : nat, n = 0.
