(* cheat: a command spelled with a Cyrillic letter, which no keyword list knows
   task: ryw
   rejected-by: commands
   reason: command 'Аxiom' is not allowed *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Аxiom cheat : False.
