(* cheat: hides Load behind command prefixes (Time, Fail, Timeout)
   task: ryw
   rejected-by: commands
   reason: 'Load' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Time Fail Timeout 5 Load "/etc/hostname".
