(* cheat: changes coqc's directory so that later relative paths leave the work directory
   task: ryw
   rejected-by: commands
   reason: 'Cd' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Cd "/".
