(* cheat: adds a host directory to coqc's OCaml path
   task: ryw
   rejected-by: commands
   reason: 'Add ML' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Add ML Path "/tmp".
