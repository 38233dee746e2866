------------------------------ MODULE spinlock ------------------------------
(***************************************************************************)
(* Gold model of the test-and-test-and-set spinlock in spinlock.c.        *)
(* One atomic boolean, worker threads that call spin_lock() (spin until    *)
(* the CAS succeeds), spin_try_lock() (one CAS, succeed or fail at once)   *)
(* and spin_unlock().  A failed CAS inside spin_lock() changes nothing and *)
(* is a stuttering step, so it is not an action of the model.              *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables and actions renamed.
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
BeginSpin(t) ==
    /\ phase[t] = "idle"
    /\ phase' = [phase EXCEPT ![t] = "spinning"]
    /\ call' = [call EXCEPT ![t] = "lock"]
    /\ UNCHANGED flag

\* The compare-and-swap false -> true inside spin_lock() succeeds.
CasAcquire(t) ==
    /\ phase[t] = "spinning"
    /\ flag = FALSE
    /\ flag' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "locked"]
    /\ UNCHANGED call

\* spin_try_lock(): a single compare-and-swap that succeeds ...
TryLockWins(t) ==
    /\ phase[t] = "idle"
    /\ flag = FALSE
    /\ flag' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "locked"]
    /\ call' = [call EXCEPT ![t] = "try_lock"]

\* ... or fails because the lock is held; the thread never spins.
TryLockBusy(t) ==
    /\ phase[t] = "idle"
    /\ flag = TRUE
    /\ UNCHANGED vars

\* spin_unlock(): release store of false.
Release(t) ==
    /\ phase[t] = "locked"
    /\ flag' = FALSE
    /\ phase' = [phase EXCEPT ![t] = "idle"]
    /\ call' = [call EXCEPT ![t] = "none"]

Next ==
    \E t \in Threads :
        \/ BeginSpin(t)
        \/ CasAcquire(t)
        \/ TryLockWins(t)
        \/ TryLockBusy(t)
        \/ Release(t)

\* Holders always release (critical sections terminate); a spinning thread keeps
\* retrying the CAS.  The lock is not fair: a spinning thread may starve.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads : WF_vars(Release(t)) /\ WF_vars(CasAcquire(t))
=============================================================================
