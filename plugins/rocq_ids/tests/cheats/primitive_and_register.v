(* cheat: rebinds a kernel primitive
   task: ryw
   rejected-by: commands
   reason: 'Primitive' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Primitive myint := #int63_type.
