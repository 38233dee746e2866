(** * The EC obligation: the candidate's [EC_Impl] refines [EC_Spec] and
    [EC_Convergence] proves that it converges.

    The candidate's file is required, never imported, and every name is written in full:
    nothing the candidate defines, no notation and no tactic of its file, can change what
    this statement says. *)

From Coq Require Lists.List.
From IDS Require KVStore Convergence EC Impl.

Module EC_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.EC_Impl IDS.EC.EC_Spec IDS.Impl.EC_Refinement.
(** [EC_Convergence] has the signature of [Convergent EC_Impl]: its world [W] is the
    framework's world of [EC_Impl], step relation and all. *)
Module EC_Converges <: IDS.Convergence.Convergent IDS.Impl.EC_Impl :=
  IDS.Impl.EC_Convergence.

Theorem ec_impl_refines_spec_and_converges :
  (forall reps a v0 h wi,
     IDS.Impl.EC_Refinement.WI.step_star
       (IDS.Impl.EC_Refinement.WI.initWorld reps a v0) h wi ->
     exists hs ws,
       IDS.Impl.EC_Refinement.WS.step_star
         (IDS.Impl.EC_Refinement.WS.initWorld reps a v0) hs ws /\
       IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs) /\
  (forall reps a v0 h w,
     IDS.Impl.EC_Convergence.W.step_star (IDS.Impl.EC_Convergence.W.initWorld reps a v0) h w ->
     (forall m, Coq.Lists.List.In m (IDS.Impl.EC_Convergence.W.w_network w) ->
        match m with IDS.Impl.EC_Convergence.W.MPutReq _ _ _ _ _ _ => False | _ => True end) ->
     forall k p c r1 r2,
     Coq.Lists.List.In r1 (IDS.Impl.EC_Convergence.W.w_reps w) ->
     Coq.Lists.List.In r2 (IDS.Impl.EC_Convergence.W.w_reps w) ->
     IDS.Impl.EC_Impl.getGuard k p c r1 (IDS.Impl.EC_Convergence.W.w_replicas w r1) =
       Coq.Init.Datatypes.true ->
     IDS.Impl.EC_Impl.getGuard k p c r2 (IDS.Impl.EC_Convergence.W.w_replicas w r2) =
       Coq.Init.Datatypes.true ->
     Coq.Init.Datatypes.fst (Coq.Init.Datatypes.fst
       (IDS.Impl.EC_Impl.get k p c r1 (IDS.Impl.EC_Convergence.W.w_replicas w r1))) =
     Coq.Init.Datatypes.fst (Coq.Init.Datatypes.fst
       (IDS.Impl.EC_Impl.get k p c r2 (IDS.Impl.EC_Convergence.W.w_replicas w r2)))).
Proof. split; [exact EC_TI.trace_inclusion | exact IDS.Impl.EC_Convergence.converges]. Qed.
