(* cheat: an extraction directive that persists into the plugin's extraction file
   task: ryw
   rejected-by: commands
   reason: 'Extraction' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Extraction Inline RYW_Impl.count.
