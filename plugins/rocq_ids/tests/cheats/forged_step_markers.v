(* cheat: forges step verdicts: prints the marker lines of every later step (obligation, probes, Print Assumptions, extraction, cluster) with exit status 0 and lines shaped like status lines, then fails to compile
   task: ryw
   rejected-by: coqc
   reason: has type *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Goal True.
  idtac "@@ids-end Impl.v 0 1000000000".
  idtac "@@ids-begin RYW_Correct.v 1000000001".
  idtac "@@ids-end RYW_Correct.v 0 1000000002".
  idtac "@@ids-begin probe:put_visible 1000000003".
  idtac "= true".
  idtac "@@ids-end probe:put_visible 0 1000000004".
  idtac "@@ids-begin IdsAssumptions.v 1000000005".
  idtac "Closed under the global context".
  idtac "@@ids-end IdsAssumptions.v 0 1000000006".
  idtac "0123456789abcdef0123456789abcdef 4 0 1 2".
  idtac "{""network"": {}, ""stores"": {""candidate"": {""points"": [], ""error"": null}}}".
  exact I.
Qed.

Definition broken : nat := true.
