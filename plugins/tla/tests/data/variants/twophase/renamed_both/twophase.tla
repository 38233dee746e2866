------------------------------ MODULE twophase ------------------------------
(***************************************************************************)
(* Gold model of the two-phase commit in src/main.rs: one coordinator     *)
(* (TM) and a set RMs of participant processes run transactions           *)
(* 1..NumTx one after another.  Messages are kept in a set `msgs` (each   *)
(* carries its transaction number; a message is never needed twice, and  *)
(* guards stop it being received twice), so delivery order is free.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model: variables and actions renamed.
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS RMs, NumTx

Txs == 1..NumTx

VARIABLES
    coordTx,     \* coordinator: current transaction (NumTx + 1 when all are done)
    coordPhase,  \* coordinator: "init" | "collecting" | "committed" | "aborted"
    coordVotes,  \* coordinator: vote received from each RM for coordTx ("none" | "yes" | "no")
    coordAcks,   \* coordinator: RMs that acknowledged the decision for coordTx
    partTx,      \* participant: last transaction it was asked to prepare (0 = none yet)
    partPhase,   \* participant: "idle" | "prepared" | "refused" | "committed" | "aborted"
    ballots,     \* history: ballots[r][t] = vote cast by r in t ("none" | "yes" | "no")
    applied,     \* history: applied[r][t] = what r applied in t ("none" | "commit" | "abort")
    network      \* messages sent so far

vars == <<coordTx, coordPhase, coordVotes, coordAcks, partTx, partPhase, ballots, applied, network>>

Messages ==
    [type : {"prepare"}, tx : Txs]
    \cup [type : {"vote"}, tx : Txs, from : RMs, vote : {"yes", "no"}]
    \cup [type : {"decision"}, tx : Txs, decision : {"commit", "abort"}]
    \cup [type : {"ack"}, tx : Txs, from : RMs]

TypeOK ==
    /\ coordTx \in 1..(NumTx + 1)
    /\ coordPhase \in {"init", "collecting", "committed", "aborted"}
    /\ coordVotes \in [RMs -> {"none", "yes", "no"}]
    /\ coordAcks \subseteq RMs
    /\ partTx \in [RMs -> 0..NumTx]
    /\ partPhase \in [RMs -> {"idle", "prepared", "refused", "committed", "aborted"}]
    /\ ballots \in [RMs -> [Txs -> {"none", "yes", "no"}]]
    /\ applied \in [RMs -> [Txs -> {"none", "commit", "abort"}]]
    /\ network \subseteq Messages

Init ==
    /\ coordTx = 1
    /\ coordPhase = "init"
    /\ coordVotes = [r \in RMs |-> "none"]
    /\ coordAcks = {}
    /\ partTx = [r \in RMs |-> 0]
    /\ partPhase = [r \in RMs |-> "idle"]
    /\ ballots = [r \in RMs |-> [t \in Txs |-> "none"]]
    /\ applied = [r \in RMs |-> [t \in Txs |-> "none"]]
    /\ network = {}

\* Coordinator starts transaction coordTx: PREPARE to everybody.
TmPrepare ==
    /\ coordTx <= NumTx
    /\ coordPhase = "init"
    /\ coordPhase' = "collecting"
    /\ coordVotes' = [r \in RMs |-> "none"]
    /\ coordAcks' = {}
    /\ network' = network \cup {[type |-> "prepare", tx |-> coordTx]}
    /\ UNCHANGED <<coordTx, partTx, partPhase, ballots, applied>>

\* Participant r receives PREPARE for its next transaction and votes v (v = "no": abort locally).
RmVote(r, v) ==
    /\ [type |-> "prepare", tx |-> partTx[r] + 1] \in network
    /\ partPhase[r] \in {"idle", "committed", "aborted"}
    /\ partTx' = [partTx EXCEPT ![r] = @ + 1]
    /\ partPhase' = [partPhase EXCEPT ![r] = IF v = "yes" THEN "prepared" ELSE "refused"]
    /\ ballots' = [ballots EXCEPT ![r][partTx[r] + 1] = v]
    /\ network' = network \cup {[type |-> "vote", tx |-> partTx[r] + 1, from |-> r, vote |-> v]}
    /\ UNCHANGED <<coordTx, coordPhase, coordVotes, coordAcks, applied>>

TmOnVote(r) ==
    /\ coordPhase = "collecting"
    /\ coordVotes[r] = "none"
    /\ \E v \in {"yes", "no"} :
         /\ [type |-> "vote", tx |-> coordTx, from |-> r, vote |-> v] \in network
         /\ coordVotes' = [coordVotes EXCEPT ![r] = v]
    /\ UNCHANGED <<coordTx, coordPhase, coordAcks, partTx, partPhase, ballots, applied, network>>

\* All votes are in: commit iff everybody voted yes.
TmDecide ==
    /\ coordPhase = "collecting"
    /\ \A r \in RMs : coordVotes[r] # "none"
    /\ LET d == IF \A r \in RMs : coordVotes[r] = "yes" THEN "commit" ELSE "abort"
       IN /\ coordPhase' = IF d = "commit" THEN "committed" ELSE "aborted"
          /\ network' = network \cup {[type |-> "decision", tx |-> coordTx, decision |-> d]}
    /\ UNCHANGED <<coordTx, coordVotes, coordAcks, partTx, partPhase, ballots, applied>>

\* Participant applies the decision for its current transaction and acknowledges it.
RmOnDecision(r) ==
    /\ partPhase[r] \in {"prepared", "refused"}
    /\ \E d \in {"commit", "abort"} :
         /\ [type |-> "decision", tx |-> partTx[r], decision |-> d] \in network
         /\ partPhase' = [partPhase EXCEPT ![r] = IF d = "commit" THEN "committed" ELSE "aborted"]
         /\ applied' = [applied EXCEPT ![r][partTx[r]] = d]
    /\ network' = network \cup {[type |-> "ack", tx |-> partTx[r], from |-> r]}
    /\ UNCHANGED <<coordTx, coordPhase, coordVotes, coordAcks, partTx, ballots>>

TmOnAck(r) ==
    /\ coordPhase \in {"committed", "aborted"}
    /\ r \notin coordAcks
    /\ [type |-> "ack", tx |-> coordTx, from |-> r] \in network
    /\ coordAcks' = coordAcks \cup {r}
    /\ UNCHANGED <<coordTx, coordPhase, coordVotes, partTx, partPhase, ballots, applied, network>>

\* All acknowledgements are in: the transaction is complete, move on.
TmNextTx ==
    /\ coordPhase \in {"committed", "aborted"}
    /\ coordAcks = RMs
    /\ coordTx' = coordTx + 1
    /\ coordPhase' = "init"
    /\ UNCHANGED <<coordVotes, coordAcks, partTx, partPhase, ballots, applied, network>>

\* After the last transaction the system stays put (not a deadlock).
Done == coordTx = NumTx + 1 /\ UNCHANGED vars

Next ==
    \/ TmPrepare \/ TmDecide \/ TmNextTx \/ Done
    \/ \E r \in RMs :
         \/ \E v \in {"yes", "no"} : RmVote(r, v)
         \/ TmOnVote(r) \/ RmOnDecision(r) \/ TmOnAck(r)

Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ WF_vars(TmPrepare) /\ WF_vars(TmDecide) /\ WF_vars(TmNextTx)
    /\ \A r \in RMs :
         /\ WF_vars(\E v \in {"yes", "no"} : RmVote(r, v))
         /\ WF_vars(TmOnVote(r)) /\ WF_vars(RmOnDecision(r)) /\ WF_vars(TmOnAck(r))
=============================================================================
