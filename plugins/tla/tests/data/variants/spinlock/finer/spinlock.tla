------------------------------ MODULE spinlock ------------------------------
(***************************************************************************)
(* Gold model of the test-and-test-and-set spinlock in spinlock.c.        *)
(* One atomic boolean, worker threads that call spin_lock() (spin until    *)
(* the CAS succeeds), spin_try_lock() (one CAS, succeed or fail at once)   *)
(* and spin_unlock().  A failed CAS inside spin_lock() changes nothing and *)
(* is a stuttering step, so it is not an action of the model.              *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* finer granularity, Unlock split by the call that took the lock.
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

\* spin_try_lock(): a single compare-and-swap that succeeds ...
TryLockSuccess(t) ==
    /\ pc[t] = "idle"
    /\ lock_state = FALSE
    /\ lock_state' = TRUE
    /\ pc' = [pc EXCEPT ![t] = "locked"]
    /\ call_type' = [call_type EXCEPT ![t] = "try_lock"]

\* ... or fails because the lock is held; the thread never spins.
TryLockFail(t) ==
    /\ pc[t] = "idle"
    /\ lock_state = TRUE
    /\ UNCHANGED vars

\* spin_unlock(): release store of false, by a thread that took the lock in spin_lock() ...
UnlockAfterLock(t) ==
    /\ pc[t] = "locked"
    /\ call_type[t] = "lock"
    /\ lock_state' = FALSE
    /\ pc' = [pc EXCEPT ![t] = "idle"]
    /\ call_type' = [call_type EXCEPT ![t] = "none"]

\* ... or in spin_try_lock().
UnlockAfterTryLock(t) ==
    /\ pc[t] = "locked"
    /\ call_type[t] = "try_lock"
    /\ lock_state' = FALSE
    /\ pc' = [pc EXCEPT ![t] = "idle"]
    /\ call_type' = [call_type EXCEPT ![t] = "none"]

Next ==
    \E t \in Threads :
        \/ LockRequest(t)
        \/ Acquire(t)
        \/ TryLockSuccess(t)
        \/ TryLockFail(t)
        \/ UnlockAfterLock(t)
        \/ UnlockAfterTryLock(t)

\* Holders always release (critical sections terminate); a spinning thread keeps
\* retrying the CAS.  The lock is not fair: a spinning thread may starve.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads : WF_vars(UnlockAfterLock(t) \/ UnlockAfterTryLock(t)) /\ WF_vars(Acquire(t))
=============================================================================
