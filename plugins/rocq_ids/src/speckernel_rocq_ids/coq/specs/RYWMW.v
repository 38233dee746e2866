(** * Read-Your-Writes and Monotonic Writes together, history form (IDS §3).

    The conjunction of [RYW_Spec] and [MW_Spec]: a replica applies each
    client's puts in issue order across all keys (Monotonic Writes), and a get
    is served only by a replica that applied every put the client issued to
    the key (Read-Your-Writes).  A client remembers the key of every put it
    issued; a replica remembers, per key and overall, the writer of every put
    it applied.  The histories grow without bound. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module RYWMW_Spec <: AlgDef.
  (** Own put history: the key of every put the client issued, newest first. *)
  Definition CState := list Key.
  (** Per key: the value and the writers of its applied puts; and the writers
      of every applied put, whatever the key. *)
  Definition RState : Type := (Key -> Val * list ClientId) * list ClientId.
  Definition cInit (_ : ClientId) : CState := [].
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => (v0, []), []).
  (** A get carries how many puts to the key the client has issued. *)
  Definition GetReqPayload := nat.
  Definition GetResPayload := unit.
  (** A put carries how many puts its client issued before it. *)
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec := Nat.eq_dec.
  Definition GetResPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition applied_to (rs : RState) (k : Key) (c : ClientId) : nat :=
    count_occ Nat.eq_dec (snd (fst rs k)) c.
  Definition applied (rs : RState) (c : ClientId) : nat := count_occ Nat.eq_dec (snd rs) c.

  Definition getReq (k : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (count_occ Nat.eq_dec cs k, cs).
  Definition getGuard (k : Key) (p : GetReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := p <=? applied_to rs k c.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (fst rs k), tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (k : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (length cs, k :: cs).
  Definition putGuard (_ : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := applied rs c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState :=
    (upd (fst rs) k (v, c :: snd (fst rs k)), c :: snd rs).
End RYWMW_Spec.
