(* cheat: maps Coq's bool to an OCaml type whose constructors are swapped
   task: ryw
   rejected-by: commands
   reason: 'Extract' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Extract Inductive bool => "bool" [ "false" "true" ].
