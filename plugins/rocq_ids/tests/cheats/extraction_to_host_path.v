(* cheat: extracts its own store to an absolute path, overwriting the file the harness links
   task: ryw
   rejected-by: commands
   reason: 'Extraction' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

From Coq Require Extraction.
Extraction "/tmp/store.ml" nat.
