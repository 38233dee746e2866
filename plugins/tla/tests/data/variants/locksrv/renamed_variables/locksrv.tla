------------------------------ MODULE locksrv ------------------------------
(***************************************************************************)
(* Gold model of the TCP lock server in locksrv.go.                        *)
(* Clients send ACQUIRE/RELEASE over their own TCP connection (a FIFO      *)
(* channel per client); the server grants at once when the lock is free,  *)
(* otherwise queues the client (FIFO) and hands the lock to the head of   *)
(* the queue on RELEASE.  GRANT travels over the client's connection back. *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables renamed.
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANT Clients

None == "none"

VARIABLES
    owner,     \* server: the client holding the lock, or None
    waitq,     \* server: FIFO of waiting clients
    toServer,  \* per client: messages in flight to the server, <<"acquire">>, <<"release", "acquire">>, ...
    toClient,  \* per client: GRANT messages in flight to the client
    cstate     \* per client: "idle" | "waiting" | "holding"

vars == <<owner, waitq, toServer, toClient, cstate>>

TypeOK ==
    /\ owner \in Clients \cup {None}
    /\ waitq \in Seq(Clients)
    /\ toServer \in [Clients -> Seq({"acquire", "release"})]
    /\ toClient \in [Clients -> Seq({"grant"})]
    /\ cstate \in [Clients -> {"idle", "waiting", "holding"}]

Init ==
    /\ owner = None
    /\ waitq = <<>>
    /\ toServer = [c \in Clients |-> <<>>]
    /\ toClient = [c \in Clients |-> <<>>]
    /\ cstate = [c \in Clients |-> "idle"]

SendAcquire(c) ==
    /\ cstate[c] = "idle"
    /\ cstate' = [cstate EXCEPT ![c] = "waiting"]
    /\ toServer' = [toServer EXCEPT ![c] = Append(@, "acquire")]
    /\ UNCHANGED <<owner, waitq, toClient>>

RecvAcquire(c) ==
    /\ toServer[c] # <<>>
    /\ Head(toServer[c]) = "acquire"
    /\ toServer' = [toServer EXCEPT ![c] = Tail(@)]
    /\ IF owner = None
         THEN /\ owner' = c
              /\ toClient' = [toClient EXCEPT ![c] = Append(@, "grant")]
              /\ UNCHANGED waitq
         ELSE /\ waitq' = Append(waitq, c)
              /\ UNCHANGED <<owner, toClient>>
    /\ UNCHANGED cstate

RecvGrant(c) ==
    /\ toClient[c] # <<>>
    /\ toClient' = [toClient EXCEPT ![c] = Tail(@)]
    /\ cstate' = [cstate EXCEPT ![c] = "holding"]
    /\ UNCHANGED <<owner, waitq, toServer>>

SendRelease(c) ==
    /\ cstate[c] = "holding"
    /\ cstate' = [cstate EXCEPT ![c] = "idle"]
    /\ toServer' = [toServer EXCEPT ![c] = Append(@, "release")]
    /\ UNCHANGED <<owner, waitq, toClient>>

RecvRelease(c) ==
    /\ toServer[c] # <<>>
    /\ Head(toServer[c]) = "release"
    /\ toServer' = [toServer EXCEPT ![c] = Tail(@)]
    /\ IF waitq # <<>>
         THEN /\ owner' = Head(waitq)
              /\ waitq' = Tail(waitq)
              /\ toClient' = [toClient EXCEPT ![Head(waitq)] = Append(@, "grant")]
         ELSE /\ owner' = None
              /\ UNCHANGED <<waitq, toClient>>
    /\ UNCHANGED cstate

Next ==
    \E c \in Clients :
        \/ SendAcquire(c) \/ RecvAcquire(c) \/ RecvGrant(c)
        \/ SendRelease(c) \/ RecvRelease(c)

\* The server and the network are fair, holders release; idle clients need not ask.
Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ \A c \in Clients :
         /\ WF_vars(RecvAcquire(c)) /\ WF_vars(RecvRelease(c))
         /\ WF_vars(RecvGrant(c)) /\ WF_vars(SendRelease(c))
=============================================================================
