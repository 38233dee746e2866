(** * The RYW obligation: the candidate's [RYW_Impl] refines [RYW_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.RYW.RYW_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore RYW Impl.

Module RYW_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.RYW_Impl IDS.RYW.RYW_Spec IDS.Impl.RYW_Refinement.

Theorem ryw_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.RYW_Refinement.WI.step_star
    (IDS.Impl.RYW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.RYW_Refinement.WS.step_star
      (IDS.Impl.RYW_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact RYW_TI.trace_inclusion. Qed.
