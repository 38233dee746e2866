(* cheat: replaces the verified getGuard by 'fun _ -> true' in the OCaml that is run and measured
   task: ryw
   rejected-by: commands
   reason: 'Extract' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Extract Constant RYW_Impl.getGuard => "fun _ _ _ _ _ -> true".
