------------------------------- MODULE rwlock -------------------------------
(***************************************************************************)
(* Gold model of the writer-preferring reader-writer lock in rwlock.go,   *)
(* a monitor (mutex + condition variable).  Each action is one critical   *)
(* section of the monitor mutex.  Waiting on the condition variable       *)
(* puts the goroutine in a wait phase; a broadcast (last reader out, or   *)
(* writer release) moves every waiter to a retry phase, from which it     *)
(* re-checks its condition.                                                *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* coarser granularity, AcquireRead and ReadWait merged into ReadLock.
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    readers,          \* number of goroutines holding the read lock
    writer,           \* TRUE when a goroutine holds the write lock
    waiting_writers,  \* writers that have started Lock() and not yet acquired
    pc                \* per goroutine phase

vars == <<readers, writer, waiting_writers, pc>>

Phases == {"idle", "reading", "writing", "r_wait", "w_wait", "r_retry", "w_retry"}

TypeOK ==
    /\ readers \in 0..Cardinality(Threads)
    /\ writer \in BOOLEAN
    /\ waiting_writers \in 0..Cardinality(Threads)
    /\ pc \in [Threads -> Phases]

Init ==
    /\ readers = 0
    /\ writer = FALSE
    /\ waiting_writers = 0
    /\ pc = [t \in Threads |-> "idle"]

ReadBlocked == writer \/ waiting_writers > 0
WriteBlocked == writer \/ readers > 0

\* Broadcast: every waiter becomes runnable and will re-check.
WakeAll(p) == [t \in Threads |-> CASE p[t] = "r_wait" -> "r_retry"
                                   [] p[t] = "w_wait" -> "w_retry"
                                   [] OTHER -> p[t]]

\* RLock(), one critical section of the monitor: take the read lock, or wait on the
\* condition variable while a writer holds or wants the lock.
ReadLock(t) ==
    /\ pc[t] \in {"idle", "r_retry"}
    /\ IF ReadBlocked
         THEN /\ pc' = [pc EXCEPT ![t] = "r_wait"]
              /\ UNCHANGED <<readers, writer, waiting_writers>>
         ELSE /\ readers' = readers + 1
              /\ pc' = [pc EXCEPT ![t] = "reading"]
              /\ UNCHANGED <<writer, waiting_writers>>

ReleaseRead(t) ==
    /\ pc[t] = "reading"
    /\ readers' = readers - 1
    /\ pc' = IF readers = 1 THEN WakeAll([pc EXCEPT ![t] = "idle"])
                            ELSE [pc EXCEPT ![t] = "idle"]
    /\ UNCHANGED <<writer, waiting_writers>>

AcquireWrite(t) ==
    /\ pc[t] \in {"idle", "w_retry"}
    /\ ~WriteBlocked
    /\ writer' = TRUE
    /\ waiting_writers' = IF pc[t] = "w_retry" THEN waiting_writers - 1 ELSE waiting_writers
    /\ pc' = [pc EXCEPT ![t] = "writing"]
    /\ UNCHANGED readers

WriteWait(t) ==
    /\ pc[t] \in {"idle", "w_retry"}
    /\ WriteBlocked
    /\ waiting_writers' = IF pc[t] = "idle" THEN waiting_writers + 1 ELSE waiting_writers
    /\ pc' = [pc EXCEPT ![t] = "w_wait"]
    /\ UNCHANGED <<readers, writer>>

ReleaseWrite(t) ==
    /\ pc[t] = "writing"
    /\ writer' = FALSE
    /\ pc' = WakeAll([pc EXCEPT ![t] = "idle"])
    /\ UNCHANGED <<readers, waiting_writers>>

Next ==
    \E t \in Threads :
        \/ ReadLock(t) \/ ReleaseRead(t)
        \/ AcquireWrite(t) \/ WriteWait(t) \/ ReleaseWrite(t)

\* A runnable goroutine eventually re-checks; holders eventually release.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads :
         /\ WF_vars(ReleaseRead(t)) /\ WF_vars(ReleaseWrite(t))
         /\ WF_vars(pc[t] = "r_retry" /\ ReadLock(t))
         /\ WF_vars(pc[t] = "w_retry" /\ (AcquireWrite(t) \/ WriteWait(t)))
=============================================================================
