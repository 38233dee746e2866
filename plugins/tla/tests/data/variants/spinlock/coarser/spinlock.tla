------------------------------ MODULE spinlock ------------------------------
(***************************************************************************)
(* Gold model of the test-and-test-and-set spinlock in spinlock.c.        *)
(* One atomic boolean, worker threads that call spin_lock() (spin until    *)
(* the CAS succeeds), spin_try_lock() (one CAS, succeed or fail at once)   *)
(* and spin_unlock().  A failed CAS inside spin_lock() changes nothing and *)
(* is a stuttering step, so it is not an action of the model.              *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* coarser granularity, TryLockSuccess and TryLockFail merged into TryLock.
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    lock_state,   \* the atomic bool: TRUE when the lock is held
    pc,           \* per thread: "idle" | "spinning" | "locked"
    call_type     \* per thread: "none" | "lock" | "try_lock" (call that got or wants the lock)

vars == <<lock_state, pc, call_type>>

TypeOK ==
    /\ lock_state \in BOOLEAN
    /\ pc \in [Threads -> {"idle", "spinning", "locked"}]
    /\ call_type \in [Threads -> {"none", "lock", "try_lock"}]

Init ==
    /\ lock_state = FALSE
    /\ pc = [t \in Threads |-> "idle"]
    /\ call_type = [t \in Threads |-> "none"]

\* spin_lock() entered: the thread starts spinning.
LockRequest(t) ==
    /\ pc[t] = "idle"
    /\ pc' = [pc EXCEPT ![t] = "spinning"]
    /\ call_type' = [call_type EXCEPT ![t] = "lock"]
    /\ UNCHANGED lock_state

\* The compare-and-swap false -> true inside spin_lock() succeeds.
Acquire(t) ==
    /\ pc[t] = "spinning"
    /\ lock_state = FALSE
    /\ lock_state' = TRUE
    /\ pc' = [pc EXCEPT ![t] = "locked"]
    /\ UNCHANGED call_type

\* spin_try_lock(): a single compare-and-swap that takes a free lock, or changes nothing
\* when the lock is held; the thread never spins.
TryLock(t) ==
    /\ pc[t] = "idle"
    /\ IF lock_state
         THEN UNCHANGED vars
         ELSE /\ lock_state' = TRUE
              /\ pc' = [pc EXCEPT ![t] = "locked"]
              /\ call_type' = [call_type EXCEPT ![t] = "try_lock"]

\* spin_unlock(): release store of false.
Unlock(t) ==
    /\ pc[t] = "locked"
    /\ lock_state' = FALSE
    /\ pc' = [pc EXCEPT ![t] = "idle"]
    /\ call_type' = [call_type EXCEPT ![t] = "none"]

Next ==
    \E t \in Threads :
        \/ LockRequest(t)
        \/ Acquire(t)
        \/ TryLock(t)
        \/ Unlock(t)

\* Holders always release (critical sections terminate); a spinning thread keeps
\* retrying the CAS.  The lock is not fair: a spinning thread may starve.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads : WF_vars(Unlock(t)) /\ WF_vars(Acquire(t))
=============================================================================
