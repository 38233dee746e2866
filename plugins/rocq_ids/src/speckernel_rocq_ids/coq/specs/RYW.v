(** * Read-Your-Writes, history form (IDS §3, the I_RYW star spec).

    A client remembers every key it ever wrote; a replica remembers, per key,
    the writer of every put it applied.  A client's puts to one key are applied
    in issue order at every replica (the put carries how many of the client's
    puts to that key precede it), and a get may only be served by a replica
    that applied all of the client's own puts to the key.  So a get returns the
    client's last write to the key or a write applied after it.

    The histories grow without bound: an implementation is expected to
    compress them (IDS's design rule). *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module RYW_Spec <: AlgDef.
  (** Own put history: the key of every put the client issued, newest first. *)
  Definition CState := list Key.
  (** Per key: the current value and the writers of every applied put. *)
  Definition RState := Key -> Val * list ClientId.
  Definition cInit (_ : ClientId) : CState := [].
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := fun _ => (v0, []).
  (** A get carries how many puts to the key the client has issued. *)
  Definition GetReqPayload := nat.
  Definition GetResPayload := unit.
  (** A put carries how many of the client's puts to the key precede it. *)
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec := Nat.eq_dec.
  Definition GetResPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition applied (rs : RState) (k : Key) (c : ClientId) : nat :=
    count_occ Nat.eq_dec (snd (rs k)) c.

  Definition getReq (k : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (count_occ Nat.eq_dec cs k, cs).
  Definition getGuard (k : Key) (p : GetReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := p <=? applied rs k c.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (rs k), tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (k : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (count_occ Nat.eq_dec cs k, k :: cs).
  Definition putGuard (k : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := applied rs k c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := upd rs k (v, c :: snd (rs k)).
End RYW_Spec.
