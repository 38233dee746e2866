(** * The RYWMW obligation: the candidate's [RYWMW_Impl] refines [RYWMW_Spec].

    The candidate's file is required, never imported, and every name is written in full
    ([IDS.KVStore.obs_proj], [IDS.RYWMW.RYWMW_Spec]): nothing the candidate defines, no notation
    and no tactic of its file, can change what this statement says. *)

From IDS Require KVStore RYWMW Impl.

Module RYWMW_TI := IDS.KVStore.TraceInclusion
  IDS.Impl.RYWMW_Impl IDS.RYWMW.RYWMW_Spec IDS.Impl.RYWMW_Refinement.

Theorem rywmw_impl_refines_spec : forall reps a v0 h wi,
  IDS.Impl.RYWMW_Refinement.WI.step_star
    (IDS.Impl.RYWMW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws,
    IDS.Impl.RYWMW_Refinement.WS.step_star
      (IDS.Impl.RYWMW_Refinement.WS.initWorld reps a v0) hs ws /\
    IDS.KVStore.obs_proj h = IDS.KVStore.obs_proj hs.
Proof. exact RYWMW_TI.trace_inclusion. Qed.
