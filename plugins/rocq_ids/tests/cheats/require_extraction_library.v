(* cheat: loads a standard-library extraction mapping (nat as big integers) that changes the extracted code
   task: ryw
   rejected-by: commands
   reason: 'ExtrOcamlNatBigInt' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

From Coq Require Import ExtrOcamlNatBigInt.
