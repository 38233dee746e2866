(* cheat: switches universe checking off locally
   task: ryw
   rejected-by: commands
   reason: 'Unset' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Local Unset Universe Checking.
