-------------------------------- MODULE mutex --------------------------------
(***************************************************************************)
(* Gold model of the wait-queue mutex in src/main.rs.                      *)
(* lock(): CAS; on failure enqueue at the back of the FIFO wait queue,     *)
(* re-check with a second CAS (success: leave the queue and own the lock), *)
(* otherwise sleep until woken and start over (no hand-off: a woken thread *)
(* competes with newcomers).  try_lock(): one CAS.  unlock(): store false, *)
(* then wake_one(): pop the head of the queue and set its woken flag.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model: actions renamed.
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    locked,   \* the AtomicBool
    queue,    \* the wait queue: a sequence of threads, head first
    woken,    \* per-thread waiter flag set by wake_one()
    pc        \* per-thread phase

vars == <<locked, queue, woken, pc>>

Phases == {"idle", "in_cs", "enqueue", "recheck", "waiting", "retry", "waking"}

InQueue(t) == \E k \in 1..Len(queue) : queue[k] = t

Remove(s, t) == SelectSeq(s, LAMBDA x : x # t)

TypeOK ==
    /\ locked \in BOOLEAN
    /\ queue \in Seq(Threads)
    /\ woken \in [Threads -> BOOLEAN]
    /\ pc \in [Threads -> Phases]

Init ==
    /\ locked = FALSE
    /\ queue = <<>>
    /\ woken = [t \in Threads |-> FALSE]
    /\ pc = [t \in Threads |-> "idle"]

\* lock(): the CAS succeeds (first attempt, or after a wake-up).
CasLock(t) ==
    /\ pc[t] \in {"idle", "retry"}
    /\ ~locked
    /\ locked' = TRUE
    /\ pc' = [pc EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<queue, woken>>

\* lock(): the CAS fails; the thread will enqueue itself.
CasLockFails(t) ==
    /\ pc[t] \in {"idle", "retry"}
    /\ locked
    /\ pc' = [pc EXCEPT ![t] = "enqueue"]
    /\ UNCHANGED <<locked, queue, woken>>

JoinQueue(t) ==
    /\ pc[t] = "enqueue"
    /\ queue' = Append(queue, t)
    /\ pc' = [pc EXCEPT ![t] = "recheck"]
    /\ UNCHANGED <<locked, woken>>

\* The re-check CAS succeeds: leave the queue (if still there), drop a racing wake-up.
RecheckLock(t) ==
    /\ pc[t] = "recheck"
    /\ ~locked
    /\ locked' = TRUE
    /\ queue' = Remove(queue, t)
    /\ woken' = [woken EXCEPT ![t] = FALSE]
    /\ pc' = [pc EXCEPT ![t] = "in_cs"]

\* The re-check CAS fails: go to sleep (returns at once if already woken).
Park(t) ==
    /\ pc[t] = "recheck"
    /\ locked
    /\ pc' = [pc EXCEPT ![t] = "waiting"]
    /\ UNCHANGED <<locked, queue, woken>>

Unpark(t) ==
    /\ pc[t] = "waiting"
    /\ woken[t]
    /\ woken' = [woken EXCEPT ![t] = FALSE]
    /\ pc' = [pc EXCEPT ![t] = "retry"]
    /\ UNCHANGED <<locked, queue>>

TryLockWins(t) ==
    /\ pc[t] = "idle"
    /\ ~locked
    /\ locked' = TRUE
    /\ pc' = [pc EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<queue, woken>>

TryLockBusy(t) ==
    /\ pc[t] = "idle"
    /\ locked
    /\ UNCHANGED vars

StoreUnlocked(t) ==
    /\ pc[t] = "in_cs"
    /\ locked' = FALSE
    /\ pc' = [pc EXCEPT ![t] = "waking"]
    /\ UNCHANGED <<queue, woken>>

\* wake_one(): pop the head of the wait queue (if any) and wake it.
PopAndWake(t) ==
    /\ pc[t] = "waking"
    /\ IF queue = <<>>
         THEN UNCHANGED <<queue, woken>>
         ELSE /\ woken' = [woken EXCEPT ![Head(queue)] = TRUE]
              /\ queue' = Tail(queue)
    /\ pc' = [pc EXCEPT ![t] = "idle"]
    /\ UNCHANGED locked

Next ==
    \E t \in Threads :
        \/ CasLock(t) \/ CasLockFails(t) \/ JoinQueue(t) \/ RecheckLock(t)
        \/ Park(t) \/ Unpark(t) \/ TryLockWins(t) \/ TryLockBusy(t)
        \/ StoreUnlocked(t) \/ PopAndWake(t)

\* A thread inside lock()/unlock() keeps running; holders eventually unlock.
\* Idle threads need not request the lock.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads :
         /\ WF_vars(CasLock(t) \/ CasLockFails(t))
         /\ WF_vars(JoinQueue(t))
         /\ WF_vars(RecheckLock(t) \/ Park(t))
         /\ WF_vars(Unpark(t))
         /\ WF_vars(StoreUnlocked(t))
         /\ WF_vars(PopAndWake(t))
=============================================================================
