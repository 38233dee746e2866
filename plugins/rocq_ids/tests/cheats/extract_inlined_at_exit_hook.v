(* cheat: an at_exit hook that rewrites the latency and RSS files the cluster used to read
   task: ryw
   rejected-by: commands
   reason: 'Extract' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Extract Inlined Constant RYW_Impl.cInit =>
  "(at_exit (fun () -> let oc = open_out \"client1.lat\" in output_string oc \"0 1\\n\"; close_out oc); fun _ -> RYW_Impl.cInit 0)".
