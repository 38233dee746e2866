(* cheat: maps a host directory into the logical namespace
   task: ryw
   rejected-by: commands
   reason: 'LoadPath' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Add LoadPath "/usr/lib/python3/dist-packages/speckernel_rocq_ids/coq/reference" as Ref.
