(** * The MR obligation: the candidate's [MR_Impl] refines [MR_Spec]. *)

From IDS Require Import KVStore MR Impl.

Module MR_TI := TraceInclusion MR_Impl MR_Spec MR_Refinement.

Theorem mr_impl_refines_spec : forall reps a v0 h wi,
  MR_Refinement.WI.step_star (MR_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, MR_Refinement.WS.step_star (MR_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact MR_TI.trace_inclusion. Qed.
