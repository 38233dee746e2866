------------------------------ MODULE locksrv ------------------------------
(***************************************************************************)
(* Gold model of the TCP lock server in locksrv.go.                        *)
(* Clients send ACQUIRE/RELEASE over their own TCP connection (a FIFO      *)
(* channel per client); the server grants at once when the lock is free,  *)
(* otherwise queues the client (FIFO) and hands the lock to the head of   *)
(* the queue on RELEASE.  GRANT travels over the client's connection back. *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* finer granularity, RecvRelease split into hand-over and freeing the lock.
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANT Clients

None == "none"

VARIABLES
    holder,   \* server: the client holding the lock, or None
    queue,    \* server: FIFO of waiting clients
    c2s,      \* per client: messages in flight to the server, <<"acquire">>, <<"release", "acquire">>, ...
    s2c,      \* per client: GRANT messages in flight to the client
    pc        \* per client: "idle" | "waiting" | "holding"

vars == <<holder, queue, c2s, s2c, pc>>

TypeOK ==
    /\ holder \in Clients \cup {None}
    /\ queue \in Seq(Clients)
    /\ c2s \in [Clients -> Seq({"acquire", "release"})]
    /\ s2c \in [Clients -> Seq({"grant"})]
    /\ pc \in [Clients -> {"idle", "waiting", "holding"}]

Init ==
    /\ holder = None
    /\ queue = <<>>
    /\ c2s = [c \in Clients |-> <<>>]
    /\ s2c = [c \in Clients |-> <<>>]
    /\ pc = [c \in Clients |-> "idle"]

SendAcquire(c) ==
    /\ pc[c] = "idle"
    /\ pc' = [pc EXCEPT ![c] = "waiting"]
    /\ c2s' = [c2s EXCEPT ![c] = Append(@, "acquire")]
    /\ UNCHANGED <<holder, queue, s2c>>

RecvAcquire(c) ==
    /\ c2s[c] # <<>>
    /\ Head(c2s[c]) = "acquire"
    /\ c2s' = [c2s EXCEPT ![c] = Tail(@)]
    /\ IF holder = None
         THEN /\ holder' = c
              /\ s2c' = [s2c EXCEPT ![c] = Append(@, "grant")]
              /\ UNCHANGED queue
         ELSE /\ queue' = Append(queue, c)
              /\ UNCHANGED <<holder, s2c>>
    /\ UNCHANGED pc

RecvGrant(c) ==
    /\ s2c[c] # <<>>
    /\ s2c' = [s2c EXCEPT ![c] = Tail(@)]
    /\ pc' = [pc EXCEPT ![c] = "holding"]
    /\ UNCHANGED <<holder, queue, c2s>>

SendRelease(c) ==
    /\ pc[c] = "holding"
    /\ pc' = [pc EXCEPT ![c] = "idle"]
    /\ c2s' = [c2s EXCEPT ![c] = Append(@, "release")]
    /\ UNCHANGED <<holder, queue, s2c>>

\* RELEASE while clients are queued: the lock passes to the head of the queue ...
RecvReleaseHandOver(c) ==
    /\ c2s[c] # <<>>
    /\ Head(c2s[c]) = "release"
    /\ queue # <<>>
    /\ c2s' = [c2s EXCEPT ![c] = Tail(@)]
    /\ holder' = Head(queue)
    /\ queue' = Tail(queue)
    /\ s2c' = [s2c EXCEPT ![Head(queue)] = Append(@, "grant")]
    /\ UNCHANGED pc

\* ... and with nobody queued the lock becomes free.
RecvReleaseFree(c) ==
    /\ c2s[c] # <<>>
    /\ Head(c2s[c]) = "release"
    /\ queue = <<>>
    /\ c2s' = [c2s EXCEPT ![c] = Tail(@)]
    /\ holder' = None
    /\ UNCHANGED <<queue, s2c, pc>>

Next ==
    \E c \in Clients :
        \/ SendAcquire(c) \/ RecvAcquire(c) \/ RecvGrant(c)
        \/ SendRelease(c) \/ RecvReleaseHandOver(c) \/ RecvReleaseFree(c)

\* The server and the network are fair, holders release; idle clients need not ask.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A c \in Clients :
         /\ WF_vars(RecvAcquire(c)) /\ WF_vars(RecvReleaseHandOver(c) \/ RecvReleaseFree(c))
         /\ WF_vars(RecvGrant(c)) /\ WF_vars(SendRelease(c))
=============================================================================
