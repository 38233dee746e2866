(* cheat: Declare Instance: a typeclass instance with no proof
   task: ryw
   rejected-by: commands
   reason: 'Declare' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Class Proved := { proof : False }.
Declare Instance p : Proved.
