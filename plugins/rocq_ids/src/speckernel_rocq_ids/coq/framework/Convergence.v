(** * Convergence (IDS §2): replicas that have applied every put agree.

    A separate file, so that the framework's pinned [KVStore.v] stays as it is.
    A world is settled when no put request is in flight.  An algorithm
    converges when, in every reachable settled world, any two replicas answer
    every get they are willing to serve with the same value.  [Convergent] is
    the obligation a candidate discharges next to its [Refinement]. *)

From Coq Require Import List.
From IDS Require Import KVStore.

Module Type Convergent (Alg : AlgDef).
  Module W := World Alg.
  Parameter converges : forall reps a v0 h w,
    W.step_star (W.initWorld reps a v0) h w ->
    (forall m, In m (W.w_network w) ->
       match m with W.MPutReq _ _ _ _ _ _ => False | _ => True end) ->
    forall k p c r1 r2, In r1 (W.w_reps w) -> In r2 (W.w_reps w) ->
    Alg.getGuard k p c r1 (W.w_replicas w r1) = true ->
    Alg.getGuard k p c r2 (W.w_replicas w r2) = true ->
    fst (fst (Alg.get k p c r1 (W.w_replicas w r1))) =
    fst (fst (Alg.get k p c r2 (W.w_replicas w r2))).
End Convergent.
