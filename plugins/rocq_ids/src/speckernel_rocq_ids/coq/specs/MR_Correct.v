(** * The MR obligation: the candidate's [MR_Impl] refines [MR_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.MR.MR_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore MR Impl.

Module MR_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.MR_Impl IDS.MR.MR_Spec IDS.Impl.MR_Refinement.

Theorem mr_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.MR_Refinement.WI.step_star
    (IDS.Impl.MR_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.MR_Refinement.WS.step_star
      (IDS.Impl.MR_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact MR_TI.trace_inclusion. Qed.
