(* cheat: a Private inductive type whose eliminator is hidden, the basis of axiomatised types
   task: ryw
   rejected-by: commands
   reason: 'Private' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Private Inductive hidden : Type := Hide : nat -> hidden.
