(* cheat: drops coqc into its OCaml toplevel
   task: ryw
   rejected-by: commands
   reason: 'Drop' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Drop.
