(** * The MW obligation: the candidate's [MW_Impl] refines [MW_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.MW.MW_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore MW Impl.

Module MW_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.MW_Impl IDS.MW.MW_Spec IDS.Impl.MW_Refinement.

Theorem mw_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.MW_Refinement.WI.step_star
    (IDS.Impl.MW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.MW_Refinement.WS.step_star
      (IDS.Impl.MW_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact MW_TI.trace_inclusion. Qed.
