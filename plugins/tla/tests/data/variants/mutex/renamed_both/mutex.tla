-------------------------------- MODULE mutex --------------------------------
(***************************************************************************)
(* Gold model of the wait-queue mutex in src/main.rs.                      *)
(* lock(): CAS; on failure enqueue at the back of the FIFO wait queue,     *)
(* re-check with a second CAS (success: leave the queue and own the lock), *)
(* otherwise sleep until woken and start over (no hand-off: a woken thread *)
(* competes with newcomers).  try_lock(): one CAS.  unlock(): store false, *)
(* then wake_one(): pop the head of the queue and set its woken flag.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables and actions renamed.
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
CasLock(t) ==
    /\ phase[t] \in {"idle", "retry"}
    /\ ~held
    /\ held' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<waiters, signalled>>

\* lock(): the CAS fails; the thread will enqueue itself.
CasLockFails(t) ==
    /\ phase[t] \in {"idle", "retry"}
    /\ held
    /\ phase' = [phase EXCEPT ![t] = "enqueue"]
    /\ UNCHANGED <<held, waiters, signalled>>

JoinQueue(t) ==
    /\ phase[t] = "enqueue"
    /\ waiters' = Append(waiters, t)
    /\ phase' = [phase EXCEPT ![t] = "recheck"]
    /\ UNCHANGED <<held, signalled>>

\* The re-check CAS succeeds: leave the queue (if still there), drop a racing wake-up.
RecheckLock(t) ==
    /\ phase[t] = "recheck"
    /\ ~held
    /\ held' = TRUE
    /\ waiters' = Remove(waiters, t)
    /\ signalled' = [signalled EXCEPT ![t] = FALSE]
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]

\* The re-check CAS fails: go to sleep (returns at once if already woken).
Park(t) ==
    /\ phase[t] = "recheck"
    /\ held
    /\ phase' = [phase EXCEPT ![t] = "waiting"]
    /\ UNCHANGED <<held, waiters, signalled>>

Unpark(t) ==
    /\ phase[t] = "waiting"
    /\ signalled[t]
    /\ signalled' = [signalled EXCEPT ![t] = FALSE]
    /\ phase' = [phase EXCEPT ![t] = "retry"]
    /\ UNCHANGED <<held, waiters>>

TryLockWins(t) ==
    /\ phase[t] = "idle"
    /\ ~held
    /\ held' = TRUE
    /\ phase' = [phase EXCEPT ![t] = "in_cs"]
    /\ UNCHANGED <<waiters, signalled>>

TryLockBusy(t) ==
    /\ phase[t] = "idle"
    /\ held
    /\ UNCHANGED vars

StoreUnlocked(t) ==
    /\ phase[t] = "in_cs"
    /\ held' = FALSE
    /\ phase' = [phase EXCEPT ![t] = "waking"]
    /\ UNCHANGED <<waiters, signalled>>

\* wake_one(): pop the head of the wait queue (if any) and wake it.
PopAndWake(t) ==
    /\ phase[t] = "waking"
    /\ IF waiters = <<>>
         THEN UNCHANGED <<waiters, signalled>>
         ELSE /\ signalled' = [signalled EXCEPT ![Head(waiters)] = TRUE]
              /\ waiters' = Tail(waiters)
    /\ phase' = [phase EXCEPT ![t] = "idle"]
    /\ UNCHANGED held

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
