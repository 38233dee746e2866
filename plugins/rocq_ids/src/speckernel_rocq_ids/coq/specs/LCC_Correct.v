(** * The LCC obligation: the candidate's [LCC_Impl] refines [LCC_Spec]. *)

From IDS Require Import KVStore LCC Impl.

Module LCC_TI := TraceInclusion LCC_Impl LCC_Spec LCC_Refinement.

Theorem lcc_impl_refines_spec : forall reps a v0 h wi,
  LCC_Refinement.WI.step_star (LCC_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, LCC_Refinement.WS.step_star (LCC_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact LCC_TI.trace_inclusion. Qed.
