------------------------------- MODULE rwlock -------------------------------
(***************************************************************************)
(* Gold model of the writer-preferring reader-writer lock in rwlock.go,   *)
(* a monitor (mutex + condition variable).  Each action is one critical   *)
(* section of the monitor mutex.  Waiting on the condition variable       *)
(* puts the goroutine in a wait phase; a broadcast (last reader out, or   *)
(* writer release) moves every waiter to a retry phase, from which it     *)
(* re-checks its condition.                                                *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables and actions renamed.
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    nreaders,  \* number of goroutines holding the read lock
    wlocked,   \* TRUE when a goroutine holds the write lock
    wpending,  \* writers that have started Lock() and not yet acquired
    phase      \* per goroutine phase

vars == <<nreaders, wlocked, wpending, phase>>

Phases == {"idle", "reading", "writing", "r_wait", "w_wait", "r_retry", "w_retry"}

TypeOK ==
    /\ nreaders \in 0..Cardinality(Threads)
    /\ wlocked \in BOOLEAN
    /\ wpending \in 0..Cardinality(Threads)
    /\ phase \in [Threads -> Phases]

Init ==
    /\ nreaders = 0
    /\ wlocked = FALSE
    /\ wpending = 0
    /\ phase = [t \in Threads |-> "idle"]

ReadBlocked == wlocked \/ wpending > 0
WriteBlocked == wlocked \/ nreaders > 0

\* Broadcast: every waiter becomes runnable and will re-check.
WakeAll(p) == [t \in Threads |-> CASE p[t] = "r_wait" -> "r_retry"
                                   [] p[t] = "w_wait" -> "w_retry"
                                   [] OTHER -> p[t]]

RLock(t) ==
    /\ phase[t] \in {"idle", "r_retry"}
    /\ ~ReadBlocked
    /\ nreaders' = nreaders + 1
    /\ phase' = [phase EXCEPT ![t] = "reading"]
    /\ UNCHANGED <<wlocked, wpending>>

RWait(t) ==
    /\ phase[t] \in {"idle", "r_retry"}
    /\ ReadBlocked
    /\ phase' = [phase EXCEPT ![t] = "r_wait"]
    /\ UNCHANGED <<nreaders, wlocked, wpending>>

RUnlock(t) ==
    /\ phase[t] = "reading"
    /\ nreaders' = nreaders - 1
    /\ phase' = IF nreaders = 1 THEN WakeAll([phase EXCEPT ![t] = "idle"])
                            ELSE [phase EXCEPT ![t] = "idle"]
    /\ UNCHANGED <<wlocked, wpending>>

WLock(t) ==
    /\ phase[t] \in {"idle", "w_retry"}
    /\ ~WriteBlocked
    /\ wlocked' = TRUE
    /\ wpending' = IF phase[t] = "w_retry" THEN wpending - 1 ELSE wpending
    /\ phase' = [phase EXCEPT ![t] = "writing"]
    /\ UNCHANGED nreaders

WWait(t) ==
    /\ phase[t] \in {"idle", "w_retry"}
    /\ WriteBlocked
    /\ wpending' = IF phase[t] = "idle" THEN wpending + 1 ELSE wpending
    /\ phase' = [phase EXCEPT ![t] = "w_wait"]
    /\ UNCHANGED <<nreaders, wlocked>>

WUnlock(t) ==
    /\ phase[t] = "writing"
    /\ wlocked' = FALSE
    /\ phase' = WakeAll([phase EXCEPT ![t] = "idle"])
    /\ UNCHANGED <<nreaders, wpending>>

Next ==
    \E t \in Threads :
        \/ RLock(t) \/ RWait(t) \/ RUnlock(t)
        \/ WLock(t) \/ WWait(t) \/ WUnlock(t)

\* A runnable goroutine eventually re-checks; holders eventually release.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads :
         /\ WF_vars(RUnlock(t)) /\ WF_vars(WUnlock(t))
         /\ WF_vars(phase[t] = "r_retry" /\ (RLock(t) \/ RWait(t)))
         /\ WF_vars(phase[t] = "w_retry" /\ (WLock(t) \/ WWait(t)))
=============================================================================
