(** * Monotonic Reads, history form (IDS §3, the I_MR star spec).

    Every put is named by its writer and the writer's put count.  A replica
    remembers, per key, the name of every put it applied; a get returns that
    history with the value, and the client remembers, per key, the history it
    has seen.  A later get of the key may only be served by a replica that
    applied every put the client has seen there, so successive reads of a key
    never go back in time.  Puts are applied in any order.  The histories grow
    without bound. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module MR_Spec <: AlgDef.
  (** A put's name: its writer and how many puts the writer issued before it. *)
  Definition PutId : Type := ClientId * nat.
  Definition PutId_eq_dec (x y : PutId) : {x = y} + {x <> y}.
  Proof. decide equality; apply Nat.eq_dec. Defined.
  Definition mem (x : PutId) (l : list PutId) : bool :=
    existsb (fun y => if PutId_eq_dec x y then true else false) l.

  (** Own put count; per key, the puts seen by earlier gets. *)
  Definition CState : Type := nat * (Key -> list PutId).
  (** Per key: the current value and the puts applied so far. *)
  Definition RState : Type := Key -> Val * list PutId.
  Definition cInit (_ : ClientId) : CState := (0, fun _ => []).
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := fun _ => (v0, []).
  (** A get carries the puts the client has seen on the key; its response
      carries the puts the serving replica has applied to it. *)
  Definition GetReqPayload : Type := list PutId.
  Definition GetResPayload : Type := list PutId.
  Definition PutReqPayload : Type := nat.
  Definition GetReqPayload_eq_dec := list_eq_dec PutId_eq_dec.
  Definition GetResPayload_eq_dec := list_eq_dec PutId_eq_dec.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition getReq (k : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (snd cs k, cs).
  Definition getGuard (k : Key) (p : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := forallb (fun x => mem x (snd (rs k))) p.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (rs k), snd (rs k), rs).
  Definition getRes (k : Key) (_ : Val) (q : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := (fst cs, upd (snd cs) k (q ++ snd cs k)).
  Definition putReq (_ : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (fst cs, (S (fst cs), snd cs)).
  Definition putGuard (_ : Key) (_ : Val) (_ : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition put (k : Key) (v : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := upd rs k (v, (c, p) :: snd (rs k)).
End MR_Spec.
