-------------------------------- MODULE mutex --------------------------------
(***************************************************************************)
(* Gold model of the wait-queue mutex in src/main.rs.                      *)
(* lock(): CAS; on failure enqueue at the back of the FIFO wait queue,     *)
(* re-check with a second CAS (success: leave the queue and own the lock), *)
(* otherwise sleep until woken and start over (no hand-off: a woken thread *)
(* competes with newcomers).  try_lock(): one CAS.  unlock(): store false, *)
(* then wake_one(): pop the head of the queue and set its woken flag.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables renamed.
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANT Threads

VARIABLES
    held,       \* the AtomicBool
    waiters,    \* the wait queue: a sequence of threads, head first
    signalled,  \* per-thread waiter flag set by wake_one()
    phase       \* per-thread phase

vars == <<held, waiters, signalled, phase>>

Phases == {"idle", "in_cs", "enqueue", "recheck", "waiting", "retry", "waking"}

InQueue(t) == \E k \in 1..Len(waiters) : waiters[k] = t

Remove(s, t) == SelectSeq(s, LAMBDA x : x # t)

TypeOK ==
    /\ held \in BOOLEAN
    /\ waiters \in Seq(Threads)
    /\ signalled \in [Threads -> BOOLEAN]
    /\ phase \in [Threads -> Phases]

Init ==
    /\ held = FALSE
    /\ waiters = <<>>
    /\ signalled = [t \in Threads |-> FALSE]
    /\ phase = [t \in Threads |-> "idle"]

\* lock(): the CAS succeeds (first attempt, or after a wake-up).
Acquire(t) ==
    /\ phase[t] \in {"idle", "retry"}
    /\ ~held
    /\ held' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<waiters, signalled>>

\* lock(): the CAS fails; the thread will enqueue itself.
AcquireFail(t) ==
    /\ phase[t] \in {"idle", "retry"}
    /\ held
    /\ phase' = [phase EXCEPT ![t] = "enqueue"]
    /\ UNCHANGED <<held, waiters, signalled>>

Enqueue(t) ==
    /\ phase[t] = "enqueue"
    /\ waiters' = Append(waiters, t)
    /\ phase' = [phase EXCEPT ![t] = "recheck"]
    /\ UNCHANGED <<held, signalled>>

\* The re-check CAS succeeds: leave the queue (if still there), drop a racing wake-up.
RecheckAcquire(t) ==
    /\ phase[t] = "recheck"
    /\ ~held
    /\ held' = TRUE
    /\ waiters' = Remove(waiters, t)
    /\ signalled' = [signalled EXCEPT ![t] = FALSE]
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]

\* The re-check CAS fails: go to sleep (returns at once if already woken).
Sleep(t) ==
    /\ phase[t] = "recheck"
    /\ held
    /\ phase' = [phase EXCEPT ![t] = "waiting"]
    /\ UNCHANGED <<held, waiters, signalled>>

Wakeup(t) ==
    /\ phase[t] = "waiting"
    /\ signalled[t]
    /\ signalled' = [signalled EXCEPT ![t] = FALSE]
    /\ phase' = [phase EXCEPT ![t] = "retry"]
    /\ UNCHANGED <<held, waiters>>

TryLockSuccess(t) ==
    /\ phase[t] = "idle"
    /\ ~held
    /\ held' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<waiters, signalled>>

TryLockFail(t) ==
    /\ phase[t] = "idle"
    /\ held
    /\ UNCHANGED vars

Unlock(t) ==
    /\ phase[t] = "in_cs"
    /\ held' = FALSE
    /\ phase' = [phase EXCEPT ![t] = "waking"]
    /\ UNCHANGED <<waiters, signalled>>

\* wake_one(): pop the head of the wait queue (if any) and wake it.
WakeOne(t) ==
    /\ phase[t] = "waking"
    /\ IF waiters = <<>>
         THEN UNCHANGED <<waiters, signalled>>
         ELSE /\ signalled' = [signalled EXCEPT ![Head(waiters)] = TRUE]
              /\ waiters' = Tail(waiters)
    /\ phase' = [phase EXCEPT ![t] = "idle"]
    /\ UNCHANGED held

Next ==
    \E t \in Threads :
        \/ Acquire(t) \/ AcquireFail(t) \/ Enqueue(t) \/ RecheckAcquire(t)
        \/ Sleep(t) \/ Wakeup(t) \/ TryLockSuccess(t) \/ TryLockFail(t)
        \/ Unlock(t) \/ WakeOne(t)

\* A thread inside lock()/unlock() keeps running; holders eventually unlock.
\* Idle threads need not request the lock.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A t \in Threads :
         /\ WF_vars(Acquire(t) \/ AcquireFail(t))
         /\ WF_vars(Enqueue(t))
         /\ WF_vars(RecheckAcquire(t) \/ Sleep(t))
         /\ WF_vars(Wakeup(t))
         /\ WF_vars(Unlock(t))
         /\ WF_vars(WakeOne(t))
=============================================================================
