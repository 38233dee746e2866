(** * Chapar's algorithm interface and its port to the IDS client/replica world.

    Chapar (Lesani, Bell, Chlipala) writes a causal store as five methods of
    a replica that has its client on board: [get_method] and [put_method] run
    locally at the client's node, a put yields an update that is sent to every
    other node, and a node applies a received update with [update_method] once
    [guard_method] allows it.  [ChaparAlg] is that interface as Chapar states
    it: state and update are type constructors applied to the value type.

    IDS's [AlgDef] (KVStore.v) has no node-to-node messages: a client sends get
    requests to one replica and put requests to every replica, and waits only
    for get responses.  [Port] therefore does not run a Chapar node at an IDS
    replica; it makes every IDS client [c] the Chapar node [c] and carries that
    node's execution as a history:

    - the client keeps a log of what its node did (puts, gets, updates
      applied) and the logs of the nodes whose updates it applied (its
      knowledge); a put appends [EPut k v] to its own log and gossips the
      whole knowledge to every replica (the put request);
    - a replica stores the initial value and everything it has been told;
      a get sends the client's knowledge to one replica, which replays the
      node's Chapar state from the logs ([replay]: the five methods, run
      again in the order the logs record), applies every update it knows of
      that the node has not applied and whose [guard_method] holds, as long as
      one does ([catch_up]), answers with [get_method], and returns the node's
      extended log;
    - an update is never a message: it is recomputed from its writer's log as
      [put_method] produced it, so payloads are plain data (events over
      naturals) with decidable equality, whatever Chapar's [Update] is.

    What the port keeps: every node runs Chapar's own methods on Chapar's own
    state; an update is applied at most once, never at its writer, only after
    its put was issued, and only when [guard_method] holds at the applying
    node; puts never wait and gets wait for nothing (both guards are [true],
    as Chapar's operations are local); values are those [get_method] returns.
    Delivery delay is the network's: a replica that has not received a put
    does not offer its update, and a client may ask any replica.

    What it does not keep: a node applies updates only while serving one of
    its own gets (Chapar may apply them at any time, e.g. between two puts,
    which then depend on them); at a get, every offered update that is enabled
    is applied, in the order the knowledge lists them (Chapar may leave an
    enabled update pending or pick another order); Chapar's per-node program
    counter and its well-reception obligation [CauseObl] are not ported. The
    history grows without bound: [Port] is a specification store, like the
    history specs of this suite, not something to extract.

    Replay is fuel-bounded: [fuel] is one more than the number of events the
    knowledge holds, which bounds every chain of updates that depend on
    updates in a reachable world. *)

From Coq Require Import List Arith Bool.
From IDS Require Import KVStore.
Import ListNotations.

(** Chapar's node identifiers: node [c] is the node of IDS client [c]. *)
Definition NId := nat.

(** Chapar's algorithm interface (its [AlgDef]), five methods over a
    value-polymorphic state and update. *)
Module Type ChaparAlg.
  Parameter State Update : Type -> Type.
  Parameter dummy_update : Update Val.
  Parameter init_method : Val -> State Val.
  Parameter get_method : NId -> State Val -> Key -> Val * State Val.
  Parameter put_method : NId -> State Val -> Key -> Val -> State Val * Update Val.
  Parameter guard_method : NId -> State Val -> Key -> Val -> Update Val -> bool.
  Parameter update_method : NId -> State Val -> Key -> Val -> Update Val -> State Val.
End ChaparAlg.

(** What one node did: a put, a get, or applying the update of the [i]-th
    put (counted from 0) of node [o]. *)
Inductive Event : Type :=
| EPut (k : Key) (v : Val)
| EGet (k : Key)
| EApply (o : NId) (i : nat).

Definition Event_eq_dec (x y : Event) : {x = y} + {x <> y}.
Proof. decide equality; apply Nat.eq_dec. Defined.

(** A node's events, oldest first. *)
Definition Log : Type := list Event.

(** The longest log known of each node (one entry per node). *)
Definition Knowledge : Type := list (NId * Log).

Definition Knowledge_eq_dec : forall x y : Knowledge, {x = y} + {x <> y}.
Proof.
  apply list_eq_dec. intros [a l] [b m].
  destruct (Nat.eq_dec a b), (list_eq_dec Event_eq_dec l m); subst; auto;
    right; intro H; inversion H; auto.
Defined.

Definition log_of (K : Knowledge) (n : NId) : Log :=
  match find (fun e => Nat.eqb (fst e) n) K with Some (_, l) => l | None => [] end.

(** [K] with node [n]'s log set to [l]. *)
Definition set_log (K : Knowledge) (n : NId) (l : Log) : Knowledge :=
  (n, l) :: filter (fun e => negb (Nat.eqb (fst e) n)) K.

(** [K] told [K']: logs of one node are prefixes of each other, the longer wins. *)
Definition merge (K K' : Knowledge) : Knowledge :=
  fold_left (fun acc e => if length (log_of acc (fst e)) <? length (snd e)
                          then set_log acc (fst e) (snd e) else acc) K' K.

Definition size (K : Knowledge) : nat := fold_left (fun n e => n + length (snd e)) K 0.

(** The events before the [i]-th put of a log, and that put's key and value. *)
Fixpoint nth_put (i : nat) (l : Log) : option (Log * Key * Val) :=
  match l with
  | [] => None
  | e :: l' =>
      let later := option_map (fun '(pre, k, v) => (e :: pre, k, v)) in
      match e, i with
      | EPut k v, 0 => Some ([], k, v)
      | EPut _ _, S j => later (nth_put j l')
      | _, _ => later (nth_put i l')
      end
  end.

Fixpoint puts (l : Log) : nat :=
  match l with [] => 0 | EPut _ _ :: l' => S (puts l') | _ :: l' => puts l' end.

Definition applied (l : Log) (o i : nat) : bool :=
  existsb (fun e => match e with EApply o' i' => Nat.eqb o' o && Nat.eqb i' i | _ => false end) l.

(** The updates node [n] could apply: every put of another node that [K]
    records and [n]'s log [l] has not applied, in the order of [K]. *)
Definition offered (K : Knowledge) (n : NId) (l : Log) : list (NId * nat) :=
  filter (fun '(o, i) => negb (applied l o i))
         (flat_map (fun e => if Nat.eqb (fst e) n then []
                             else map (pair (fst e)) (seq 0 (puts (snd e)))) K).

Module Port (A : ChaparAlg) <: AlgDef.

  Section Replay.
    Variable v0 : Val.
    Variable K : Knowledge.

    (** The state of node [n] after the events [l]; an [EApply] recomputes the
        update from its writer's log, one unit of fuel down. *)
    Fixpoint replay (fuel : nat) (n : NId) (l : Log) : A.State Val :=
      match fuel with
      | 0 => A.init_method v0
      | S f =>
          fold_left (fun s e =>
            match e with
            | EPut k v => fst (A.put_method n s k v)
            | EGet k => snd (A.get_method n s k)
            | EApply o i =>
                match nth_put i (log_of K o) with
                | Some (pre, k, v) =>
                    A.update_method n s k v (snd (A.put_method o (replay f o pre) k v))
                | None => s
                end
            end) l (A.init_method v0)
      end.

    Definition fuel : nat := S (size K).

    (** The update of the [i]-th put of node [o], with that put's key and value. *)
    Definition update_of (o i : nat) : option (Key * Val * A.Update Val) :=
      match nth_put i (log_of K o) with
      | Some (pre, k, v) => Some (k, v, snd (A.put_method o (replay fuel o pre) k v))
      | None => None
      end.

    Definition enabled (n : NId) (s : A.State Val) (oi : NId * nat) : bool :=
      match update_of (fst oi) (snd oi) with
      | Some (k, v, u) => A.guard_method n s k v u
      | None => false
      end.

    (** Node [n] in state [s] after log [l] applies the first enabled offered
        update, and again, until none is enabled (at most [rounds] times). *)
    Fixpoint catch_up (rounds : nat) (n : NId) (s : A.State Val) (l : Log)
        : A.State Val * Log :=
      match rounds with
      | 0 => (s, l)
      | S r =>
          match find (enabled n s) (offered K n l) with
          | Some (o, i) =>
              match update_of o i with
              | Some (k, v, u) => catch_up r n (A.update_method n s k v u) (l ++ [EApply o i])
              | None => (s, l)
              end
          | None => (s, l)
          end
      end.
  End Replay.

  (** A client holds its node's knowledge; a replica the initial value and
      what it has been told. *)
  Definition CState : Type := Knowledge.
  Definition RState : Type := Val * Knowledge.
  Definition cInit (_ : ClientId) : CState := [].
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (v0, []).
  Definition GetReqPayload : Type := Knowledge.
  Definition GetResPayload : Type := Knowledge.
  Definition PutReqPayload : Type := Knowledge.
  Definition GetReqPayload_eq_dec := Knowledge_eq_dec.
  Definition GetResPayload_eq_dec := Knowledge_eq_dec.
  Definition PutReqPayload_eq_dec := Knowledge_eq_dec.

  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState := (cs, cs).
  Definition getGuard (_ : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  (** Node [c] catches up with what the client and the replica know, then
      reads locally. *)
  Definition get (k : Key) (p : GetReqPayload) (c : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState :=
    let K := merge (snd rs) p in
    let l := log_of K c in
    let '(s, l') := catch_up (fst rs) K (length (offered K c l)) c
                             (replay (fst rs) K (fuel K) c l) l in
    (fst (A.get_method c s k), set_log K c (l' ++ [EGet k]), rs).
  Definition getRes (_ : Key) (_ : Val) (q : GetResPayload) (_ : ClientId) (_ : CState)
    : CState := q.
  Definition putReq (k : Key) (v : Val) (c : ClientId) (cs : CState) : PutReqPayload * CState :=
    let cs' := set_log cs c (log_of cs c ++ [EPut k v]) in (cs', cs').
  Definition putGuard (_ : Key) (_ : Val) (_ : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition put (_ : Key) (_ : Val) (p : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := (fst rs, merge (snd rs) p).
End Port.
