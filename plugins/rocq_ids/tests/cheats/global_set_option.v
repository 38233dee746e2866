(* cheat: sets an option globally so that it leaks into the obligation and the probes
   task: ryw
   rejected-by: commands
   reason: 'Global Set' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Global Set Printing All.
