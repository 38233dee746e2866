(* cheat: reads the bundled reference solution from the plugin's install directory (visible read-only in the sandbox) instead of writing one
   task: ryw
   rejected-by: commands
   reason: 'Load' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Load "/usr/lib/python3/dist-packages/speckernel_rocq_ids/coq/reference/RYW_Impl.v".
