(** * The LCC obligation: the candidate's [LCC_Impl] refines [LCC_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.LCC.LCC_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore LCC Impl.

Module LCC_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.LCC_Impl IDS.LCC.LCC_Spec IDS.Impl.LCC_Refinement.

Theorem lcc_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.LCC_Refinement.WI.step_star
    (IDS.Impl.LCC_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.LCC_Refinement.WS.step_star
      (IDS.Impl.LCC_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact LCC_TI.trace_inclusion. Qed.
