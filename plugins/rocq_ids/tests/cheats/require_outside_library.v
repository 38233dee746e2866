(* cheat: requires a library outside Coq's standard library (an ML plugin that runs provers)
   task: ryw
   rejected-by: commands
   reason: Require only from Coq's standard library *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

From Hammer Require Import Hammer.
