(** * The EC obligation: the candidate's [EC_Impl] refines [EC_Spec] and
    [EC_Convergence] proves that it converges. *)

From Coq Require Import List.
From IDS Require Import KVStore Convergence EC Impl.

Module EC_TI := TraceInclusion EC_Impl EC_Spec EC_Refinement.

Theorem ec_impl_refines_spec_and_converges :
  (forall reps a v0 h wi,
     EC_Refinement.WI.step_star (EC_Refinement.WI.initWorld reps a v0) h wi ->
     exists hs ws, EC_Refinement.WS.step_star (EC_Refinement.WS.initWorld reps a v0) hs ws /\
                   obs_proj h = obs_proj hs) /\
  (forall reps a v0 h w,
     EC_Convergence.W.step_star (EC_Convergence.W.initWorld reps a v0) h w ->
     (forall m, In m (EC_Convergence.W.w_network w) ->
        match m with EC_Convergence.W.MPutReq _ _ _ _ _ _ => False | _ => True end) ->
     forall k p c r1 r2, In r1 (EC_Convergence.W.w_reps w) -> In r2 (EC_Convergence.W.w_reps w) ->
     EC_Impl.getGuard k p c r1 (EC_Convergence.W.w_replicas w r1) = true ->
     EC_Impl.getGuard k p c r2 (EC_Convergence.W.w_replicas w r2) = true ->
     fst (fst (EC_Impl.get k p c r1 (EC_Convergence.W.w_replicas w r1))) =
     fst (fst (EC_Impl.get k p c r2 (EC_Convergence.W.w_replicas w r2)))).
Proof. split; [exact EC_TI.trace_inclusion | exact EC_Convergence.converges]. Qed.
