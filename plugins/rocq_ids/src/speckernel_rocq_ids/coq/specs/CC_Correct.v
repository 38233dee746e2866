(** * The CC obligation: the candidate's [CC_Impl] refines [CC_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.CC.CC_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore CC Impl.

Module CC_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.CC_Impl IDS.CC.CC_Spec IDS.Impl.CC_Refinement.

Theorem cc_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.CC_Refinement.WI.step_star
    (IDS.Impl.CC_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.CC_Refinement.WS.step_star
      (IDS.Impl.CC_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact CC_TI.trace_inclusion. Qed.
