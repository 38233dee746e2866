------------------------------ MODULE spinlock ------------------------------
(***************************************************************************)
(* Gold model of the test-and-test-and-set spinlock in spinlock.c.        *)
(* One atomic boolean, worker threads that call spin_lock() (spin until    *)
(* the CAS succeeds), spin_try_lock() (one CAS, succeed or fail at once)   *)
(* and spin_unlock().  A failed CAS inside spin_lock() changes nothing and *)
(* is a stuttering step, so it is not an action of the model.              *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables renamed.
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    flag,   \* the atomic bool: TRUE when the lock is held
    phase,  \* per thread: "idle" | "spinning" | "locked"
    call    \* per thread: "none" | "lock" | "try_lock" (call that got or wants the lock)

vars == <<flag, phase, call>>

TypeOK ==
    /\ flag \in BOOLEAN
    /\ phase \in [Threads -> {"idle", "spinning", "locked"}]
    /\ call \in [Threads -> {"none", "lock", "try_lock"}]

Init ==
    /\ flag = FALSE
    /\ phase = [t \in Threads |-> "idle"]
    /\ call = [t \in Threads |-> "none"]

\* spin_lock() entered: the thread starts spinning.
LockRequest(t) ==
    /\ phase[t] = "idle"
    /\ phase' = [phase EXCEPT ![t] = "spinning"]
    /\ call' = [call EXCEPT ![t] = "lock"]
    /\ UNCHANGED flag

\* The compare-and-swap false -> true inside spin_lock() succeeds.
Acquire(t) ==
    /\ phase[t] = "spinning"
    /\ flag = FALSE
    /\ flag' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "locked"]
    /\ UNCHANGED call

\* spin_try_lock(): a single compare-and-swap that succeeds ...
TryLockSuccess(t) ==
    /\ phase[t] = "idle"
    /\ flag = FALSE
    /\ flag' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "locked"]
    /\ call' = [call EXCEPT ![t] = "try_lock"]

\* ... or fails because the lock is held; the thread never spins.
TryLockFail(t) ==
    /\ phase[t] = "idle"
    /\ flag = TRUE
    /\ UNCHANGED vars

\* spin_unlock(): release store of false.
Unlock(t) ==
    /\ phase[t] = "locked"
    /\ flag' = FALSE
    /\ phase' = [phase EXCEPT ![t] = "idle"]
    /\ call' = [call EXCEPT ![t] = "none"]

Next ==
    \E t \in Threads :
        \/ LockRequest(t)
        \/ Acquire(t)
        \/ TryLockSuccess(t)
        \/ TryLockFail(t)
        \/ Unlock(t)

\* Holders always release (critical sections terminate); a spinning thread keeps
\* retrying the CAS.  The lock is not fair: a spinning thread may starve.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads : WF_vars(Unlock(t)) /\ WF_vars(Acquire(t))
=============================================================================
