(* cheat: maps a host tree into the logical namespace, recursively
   task: ryw
   rejected-by: commands
   reason: 'LoadPath' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Add Rec LoadPath "/" as Root.
