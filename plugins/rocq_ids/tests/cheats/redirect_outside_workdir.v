(* cheat: writes a file outside the work directory with Redirect
   task: ryw
   rejected-by: commands
   reason: 'Redirect' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Redirect "/tmp/../root/owned" Print nat.
