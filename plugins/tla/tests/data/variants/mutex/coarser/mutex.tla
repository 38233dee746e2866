-------------------------------- MODULE mutex --------------------------------
(***************************************************************************)
(* Gold model of the wait-queue mutex in src/main.rs.                      *)
(* lock(): CAS; on failure enqueue at the back of the FIFO wait queue,     *)
(* re-check with a second CAS (success: leave the queue and own the lock), *)
(* otherwise sleep until woken and start over (no hand-off: a woken thread *)
(* competes with newcomers).  try_lock(): one CAS.  unlock(): store false, *)
(* then wake_one(): pop the head of the queue and set its woken flag.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* coarser granularity, Acquire and AcquireFail merged into Cas.
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

\* lock(): the CAS (first attempt, or after a wake-up) takes a free lock; when the lock is
\* held, the thread goes on to enqueue itself.
Cas(t) ==
    /\ pc[t] \in {"idle", "retry"}
    /\ IF locked
         THEN /\ pc' = [pc EXCEPT ![t] = "enqueue"]
              /\ UNCHANGED <<locked, queue, woken>>
         ELSE /\ locked' = TRUE
              /\ pc' = [pc EXCEPT ![t] = "in_cs"]
              /\ UNCHANGED <<queue, woken>>

Enqueue(t) ==
    /\ pc[t] = "enqueue"
    /\ queue' = Append(queue, t)
    /\ pc' = [pc EXCEPT ![t] = "recheck"]
    /\ UNCHANGED <<locked, woken>>

\* The re-check CAS succeeds: leave the queue (if still there), drop a racing wake-up.
RecheckAcquire(t) ==
    /\ pc[t] = "recheck"
    /\ ~locked
    /\ locked' = TRUE
    /\ queue' = Remove(queue, t)
    /\ woken' = [woken EXCEPT ![t] = FALSE]
    /\ pc' = [pc EXCEPT ![t] = "in_cs"]

\* The re-check CAS fails: go to sleep (returns at once if already woken).
Sleep(t) ==
    /\ pc[t] = "recheck"
    /\ locked
    /\ pc' = [pc EXCEPT ![t] = "waiting"]
    /\ UNCHANGED <<locked, queue, woken>>

Wakeup(t) ==
    /\ pc[t] = "waiting"
    /\ woken[t]
    /\ woken' = [woken EXCEPT ![t] = FALSE]
    /\ pc' = [pc EXCEPT ![t] = "retry"]
    /\ UNCHANGED <<locked, queue>>

TryLockSuccess(t) ==
    /\ pc[t] = "idle"
    /\ ~locked
    /\ locked' = TRUE
    /\ pc' = [pc EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<queue, woken>>

TryLockFail(t) ==
    /\ pc[t] = "idle"
    /\ locked
    /\ UNCHANGED vars

Unlock(t) ==
    /\ pc[t] = "in_cs"
    /\ locked' = FALSE
    /\ pc' = [pc EXCEPT ![t] = "waking"]
    /\ UNCHANGED <<queue, woken>>

\* wake_one(): pop the head of the wait queue (if any) and wake it.
WakeOne(t) ==
    /\ pc[t] = "waking"
    /\ IF queue = <<>>
         THEN UNCHANGED <<queue, woken>>
         ELSE /\ woken' = [woken EXCEPT ![Head(queue)] = TRUE]
              /\ queue' = Tail(queue)
    /\ pc' = [pc EXCEPT ![t] = "idle"]
    /\ UNCHANGED locked

Next ==
    \E t \in Threads :
        \/ Cas(t) \/ Enqueue(t) \/ RecheckAcquire(t)
        \/ Sleep(t) \/ Wakeup(t) \/ TryLockSuccess(t) \/ TryLockFail(t)
        \/ Unlock(t) \/ WakeOne(t)

\* A thread inside lock()/unlock() keeps running; holders eventually unlock.
\* Idle threads need not request the lock.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads :
         /\ WF_vars(Cas(t))
         /\ WF_vars(Enqueue(t))
         /\ WF_vars(RecheckAcquire(t) \/ Sleep(t))
         /\ WF_vars(Wakeup(t))
         /\ WF_vars(Unlock(t))
         /\ WF_vars(WakeOne(t))
=============================================================================
