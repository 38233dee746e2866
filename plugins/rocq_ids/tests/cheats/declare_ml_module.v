(* cheat: loads an OCaml plugin into coqc
   task: ryw
   rejected-by: commands
   reason: 'Declare' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Declare ML Module "unix".
