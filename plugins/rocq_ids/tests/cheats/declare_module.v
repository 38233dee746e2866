(* cheat: Declare Module: a module whose body is assumed
   task: ryw
   rejected-by: commands
   reason: 'Declare' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Declare Module RYW_Local : LocalSim RYW_Spec RYW_Spec.
