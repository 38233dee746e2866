(* cheat: requires an unqualified library name that the load path could resolve anywhere
   task: ryw
   rejected-by: commands
   reason: may load a library outside Coq's standard library *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Require Import Ltac2.Ltac2.
