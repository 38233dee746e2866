(** * The MW obligation: the candidate's [MW_Impl] refines [MW_Spec]. *)

From IDS Require Import KVStore MW Impl.

Module MW_TI := TraceInclusion MW_Impl MW_Spec MW_Refinement.

Theorem mw_impl_refines_spec : forall reps a v0 h wi,
  MW_Refinement.WI.step_star (MW_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, MW_Refinement.WS.step_star (MW_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact MW_TI.trace_inclusion. Qed.
