------------------------------ MODULE twophase ------------------------------
(***************************************************************************)
(* Gold model of the two-phase commit in src/main.rs: one coordinator     *)
(* (TM) and a set RMs of participant processes run transactions           *)
(* 1..NumTx one after another.  Messages are kept in a set `msgs` (each   *)
(* carries its transaction number; a message is never needed twice, and  *)
(* guards stop it being received twice), so delivery order is free.      *)
(***************************************************************************)
\* Metric-validation variant of the gold model:
\* coarser granularity, RecvVote and RecvAck merged into TmRecv.
EXTENDS Naturals, FiniteSets, TLC

CONSTANTS RMs, NumTx

Txs == 1..NumTx

VARIABLES
    tmTx,      \* coordinator: current transaction (NumTx + 1 when all are done)
    tmState,   \* coordinator: "init" | "collecting" | "committed" | "aborted"
    tmVotes,   \* coordinator: vote received from each RM for tmTx ("none" | "yes" | "no")
    tmAcks,    \* coordinator: RMs that acknowledged the decision for tmTx
    rmTx,      \* participant: last transaction it was asked to prepare (0 = none yet)
    rmState,   \* participant: "idle" | "prepared" | "refused" | "committed" | "aborted"
    votes,     \* history: votes[r][t] = vote cast by r in t ("none" | "yes" | "no")
    outcome,   \* history: outcome[r][t] = what r applied in t ("none" | "commit" | "abort")
    msgs       \* messages sent so far

vars == <<tmTx, tmState, tmVotes, tmAcks, rmTx, rmState, votes, outcome, msgs>>

Messages ==
    [type : {"prepare"}, tx : Txs]
    \cup [type : {"vote"}, tx : Txs, from : RMs, vote : {"yes", "no"}]
    \cup [type : {"decision"}, tx : Txs, decision : {"commit", "abort"}]
    \cup [type : {"ack"}, tx : Txs, from : RMs]

TypeOK ==
    /\ tmTx \in 1..(NumTx + 1)
    /\ tmState \in {"init", "collecting", "committed", "aborted"}
    /\ tmVotes \in [RMs -> {"none", "yes", "no"}]
    /\ tmAcks \subseteq RMs
    /\ rmTx \in [RMs -> 0..NumTx]
    /\ rmState \in [RMs -> {"idle", "prepared", "refused", "committed", "aborted"}]
    /\ votes \in [RMs -> [Txs -> {"none", "yes", "no"}]]
    /\ outcome \in [RMs -> [Txs -> {"none", "commit", "abort"}]]
    /\ msgs \subseteq Messages

Init ==
    /\ tmTx = 1
    /\ tmState = "init"
    /\ tmVotes = [r \in RMs |-> "none"]
    /\ tmAcks = {}
    /\ rmTx = [r \in RMs |-> 0]
    /\ rmState = [r \in RMs |-> "idle"]
    /\ votes = [r \in RMs |-> [t \in Txs |-> "none"]]
    /\ outcome = [r \in RMs |-> [t \in Txs |-> "none"]]
    /\ msgs = {}

\* Coordinator starts transaction tmTx: PREPARE to everybody.
SendPrepare ==
    /\ tmTx <= NumTx
    /\ tmState = "init"
    /\ tmState' = "collecting"
    /\ tmVotes' = [r \in RMs |-> "none"]
    /\ tmAcks' = {}
    /\ msgs' = msgs \cup {[type |-> "prepare", tx |-> tmTx]}
    /\ UNCHANGED <<tmTx, rmTx, rmState, votes, outcome>>

\* Participant r receives PREPARE for its next transaction and votes v (v = "no": abort locally).
Vote(r, v) ==
    /\ [type |-> "prepare", tx |-> rmTx[r] + 1] \in msgs
    /\ rmState[r] \in {"idle", "committed", "aborted"}
    /\ rmTx' = [rmTx EXCEPT ![r] = @ + 1]
    /\ rmState' = [rmState EXCEPT ![r] = IF v = "yes" THEN "prepared" ELSE "refused"]
    /\ votes' = [votes EXCEPT ![r][rmTx[r] + 1] = v]
    /\ msgs' = msgs \cup {[type |-> "vote", tx |-> rmTx[r] + 1, from |-> r, vote |-> v]}
    /\ UNCHANGED <<tmTx, tmState, tmVotes, tmAcks, outcome>>

\* The coordinator takes the next message from participant r: a vote while it collects votes,
\* an ACK once it has decided.
TmRecv(r) ==
    \/ /\ tmState = "collecting"
       /\ tmVotes[r] = "none"
       /\ \E v \in {"yes", "no"} :
            /\ [type |-> "vote", tx |-> tmTx, from |-> r, vote |-> v] \in msgs
            /\ tmVotes' = [tmVotes EXCEPT ![r] = v]
       /\ UNCHANGED <<tmTx, tmState, tmAcks, rmTx, rmState, votes, outcome, msgs>>
    \/ /\ tmState \in {"committed", "aborted"}
       /\ r \notin tmAcks
       /\ [type |-> "ack", tx |-> tmTx, from |-> r] \in msgs
       /\ tmAcks' = tmAcks \cup {r}
       /\ UNCHANGED <<tmTx, tmState, tmVotes, rmTx, rmState, votes, outcome, msgs>>

\* All votes are in: commit iff everybody voted yes.
Decide ==
    /\ tmState = "collecting"
    /\ \A r \in RMs : tmVotes[r] # "none"
    /\ LET d == IF \A r \in RMs : tmVotes[r] = "yes" THEN "commit" ELSE "abort"
       IN /\ tmState' = IF d = "commit" THEN "committed" ELSE "aborted"
          /\ msgs' = msgs \cup {[type |-> "decision", tx |-> tmTx, decision |-> d]}
    /\ UNCHANGED <<tmTx, tmVotes, tmAcks, rmTx, rmState, votes, outcome>>

\* Participant applies the decision for its current transaction and acknowledges it.
RecvDecision(r) ==
    /\ rmState[r] \in {"prepared", "refused"}
    /\ \E d \in {"commit", "abort"} :
         /\ [type |-> "decision", tx |-> rmTx[r], decision |-> d] \in msgs
         /\ rmState' = [rmState EXCEPT ![r] = IF d = "commit" THEN "committed" ELSE "aborted"]
         /\ outcome' = [outcome EXCEPT ![r][rmTx[r]] = d]
    /\ msgs' = msgs \cup {[type |-> "ack", tx |-> rmTx[r], from |-> r]}
    /\ UNCHANGED <<tmTx, tmState, tmVotes, tmAcks, rmTx, votes>>

\* All acknowledgements are in: the transaction is complete, move on.
Complete ==
    /\ tmState \in {"committed", "aborted"}
    /\ tmAcks = RMs
    /\ tmTx' = tmTx + 1
    /\ tmState' = "init"
    /\ UNCHANGED <<tmVotes, tmAcks, rmTx, rmState, votes, outcome, msgs>>

\* After the last transaction the system stays put (not a deadlock).
Finished == tmTx = NumTx + 1 /\ UNCHANGED vars

Next ==
    \/ SendPrepare \/ Decide \/ Complete \/ Finished
    \/ \E r \in RMs :
         \/ \E v \in {"yes", "no"} : Vote(r, v)
         \/ TmRecv(r) \/ RecvDecision(r)

Spec ==
    /\ Init
    /\ [][Next]_vars
    /\ WF_vars(SendPrepare) /\ WF_vars(Decide) /\ WF_vars(Complete)
    /\ \A r \in RMs :
         /\ WF_vars(\E v \in {"yes", "no"} : Vote(r, v))
         /\ WF_vars(TmRecv(r)) /\ WF_vars(RecvDecision(r))
=============================================================================
