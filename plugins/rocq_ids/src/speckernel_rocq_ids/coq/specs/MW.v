(** * Monotonic Writes, history form (IDS §3, the I_MW star spec).

    A client remembers the key of every put it issued; a replica remembers the
    writer of every put it applied, whatever the key.  A put carries how many
    puts its client issued before it and is applied only after all of them, so
    every replica applies each client's writes in issue order.  Gets are never
    blocked.  The histories grow without bound. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module MW_Spec <: AlgDef.
  (** Own put history: the key of every put the client issued, newest first. *)
  Definition CState := list Key.
  (** The current value of every key and the writers of every applied put. *)
  Definition RState : Type := (Key -> Val) * list ClientId.
  Definition cInit (_ : ClientId) : CState := [].
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => v0, []).
  Definition GetReqPayload := unit.
  Definition GetResPayload := unit.
  (** A put carries how many puts its client issued before it. *)
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition GetResPayload_eq_dec := GetReqPayload_eq_dec.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition applied (rs : RState) (c : ClientId) : nat := count_occ Nat.eq_dec (snd rs) c.

  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState := (tt, cs).
  Definition getGuard (_ : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst rs k, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (k : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (length cs, k :: cs).
  Definition putGuard (_ : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := applied rs c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := (upd (fst rs) k v, c :: snd rs).
End MW_Spec.
