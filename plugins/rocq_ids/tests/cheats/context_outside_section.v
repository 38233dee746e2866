(* cheat: a top-level Context binder, an axiom in disguise
   task: ryw
   rejected-by: commands
   reason: 'Context' outside a section declares an axiom *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Context (cheat : False).
