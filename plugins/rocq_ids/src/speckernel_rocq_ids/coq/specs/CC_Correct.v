(** * The CC obligation: the candidate's [CC_Impl] refines [CC_Spec]. *)

From IDS Require Import KVStore CC Impl.

Module CC_TI := TraceInclusion CC_Impl CC_Spec CC_Refinement.

Theorem cc_impl_refines_spec : forall reps a v0 h wi,
  CC_Refinement.WI.step_star (CC_Refinement.WI.initWorld reps a v0) h wi ->
  exists hs ws, CC_Refinement.WS.step_star (CC_Refinement.WS.initWorld reps a v0) hs ws /\
                obs_proj h = obs_proj hs.
Proof. exact CC_TI.trace_inclusion. Qed.
