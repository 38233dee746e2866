(** * The RYW obligation: the candidate's [RYW_Impl] refines [RYW_Spec]. *)

From IDS Require Import KVStore RYW Impl.

Module RYW_TI := TraceInclusion RYW_Impl RYW_Spec RYW_Refinement.

Theorem ryw_impl_refines_spec : forall reps a v0 h wi,
  RYW_Refinement.WI.step_star (RYW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, RYW_Refinement.WS.step_star (RYW_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact RYW_TI.trace_inclusion. Qed.
