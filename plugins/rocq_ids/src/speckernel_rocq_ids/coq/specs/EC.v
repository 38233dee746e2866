(** * Eventual consistency (IDS §3): the relaxed store's traces, plus convergence.

    The safety part is [Relaxed]: a get returns some value written to the key
    (or the initial one).  The candidate must also prove [Convergent] for its
    implementation: once no put is in flight, all replicas agree.  The relaxed
    store itself does not converge (replicas apply concurrent puts in different
    orders), so an implementation must order puts, e.g. by timestamps. *)

From IDS Require Import KVStore Relaxed.

Module EC_Spec <: AlgDef := Relaxed.
