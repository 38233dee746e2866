------------------------------ MODULE locksrv ------------------------------
(***************************************************************************)
(* Gold model of the TCP lock server in locksrv.go.                        *)
(* Clients send ACQUIRE/RELEASE over their own TCP connection (a FIFO      *)
(* channel per client); the server grants at once when the lock is free,  *)
(* otherwise queues the client (FIFO) and hands the lock to the head of   *)
(* the queue on RELEASE.  GRANT travels over the client's connection back. *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* coarser granularity, RecvAcquire and RecvRelease merged into ServerRecv.
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

\* The server reads the next line from client c's connection: ACQUIRE grants a free lock or
\* queues c; RELEASE hands the lock to the head of the queue or frees it.
ServerRecv(c) ==
    /\ c2s[c] # <<>>
    /\ c2s' = [c2s EXCEPT ![c] = Tail(@)]
    /\ CASE Head(c2s[c]) = "acquire" /\ holder = None ->
              /\ holder' = c
              /\ s2c' = [s2c EXCEPT ![c] = Append(@, "grant")]
              /\ UNCHANGED queue
         [] Head(c2s[c]) = "acquire" /\ holder # None ->
              /\ queue' = Append(queue, c)
              /\ UNCHANGED <<holder, s2c>>
         [] Head(c2s[c]) = "release" /\ queue # <<>> ->
              /\ holder' = Head(queue)
              /\ queue' = Tail(queue)
              /\ s2c' = [s2c EXCEPT ![Head(queue)] = Append(@, "grant")]
         [] Head(c2s[c]) = "release" /\ queue = <<>> ->
              /\ holder' = None
              /\ UNCHANGED <<queue, s2c>>
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

Next ==
    \E c \in Clients :
        \/ SendAcquire(c) \/ ServerRecv(c) \/ RecvGrant(c) \/ SendRelease(c)

\* The server and the network are fair, holders release; idle clients need not ask.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A c \in Clients :
         /\ WF_vars(ServerRecv(c))
         /\ WF_vars(RecvGrant(c)) /\ WF_vars(SendRelease(c))
=============================================================================
