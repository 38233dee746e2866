(** * The RYWMW obligation: the candidate's [RYWMW_Impl] refines [RYWMW_Spec]. *)

From IDS Require Import KVStore RYWMW Impl.

Module RYWMW_TI := TraceInclusion RYWMW_Impl RYWMW_Spec RYWMW_Refinement.

Theorem rywmw_impl_refines_spec : forall reps a v0 h wi,
  RYWMW_Refinement.WI.step_star (RYWMW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, RYWMW_Refinement.WS.step_star (RYWMW_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact RYWMW_TI.trace_inclusion. Qed.
