(** * Causal Consistency with explicit dependency sets, history form (IDS §3).

    Every put is named by its writer and the writer's put count, and carries
    the set of puts it causally depends on: the client's own earlier puts and
    the puts whose values it has read.  A replica applies a put only after all
    of its dependencies, and serves a get only once it has applied every
    dependency of the asking client; a get returns the name of the put that
    wrote the value, which joins the client's dependencies.  So every client
    sees puts in an order consistent with causality.  The dependency sets grow
    without bound. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module CC_Spec <: AlgDef.
  (** A put's name: its writer and how many puts the writer issued before it. *)
  Definition PutId : Type := ClientId * nat.
  Definition PutId_eq_dec (x y : PutId) : {x = y} + {x <> y}.
  Proof. decide equality; apply Nat.eq_dec. Defined.
  Definition mem (x : PutId) (l : list PutId) : bool :=
    existsb (fun y => if PutId_eq_dec x y then true else false) l.
  Definition all_in (deps applied : list PutId) : bool :=
    forallb (fun x => mem x applied) deps.

  (** Own put count and the client's dependencies. *)
  Definition CState : Type := nat * list PutId.
  (** Per key: the value and the put that wrote it (none for the initial
      value); and every put applied so far. *)
  Definition RState : Type := (Key -> Val * option PutId) * list PutId.
  Definition cInit (_ : ClientId) : CState := (0, []).
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => (v0, None), []).
  (** A get carries the client's dependencies; its response names the put it
      read; a put carries its count and its dependencies. *)
  Definition GetReqPayload : Type := list PutId.
  Definition GetResPayload : Type := option PutId.
  Definition PutReqPayload : Type := nat * list PutId.
  Definition GetReqPayload_eq_dec := list_eq_dec PutId_eq_dec.
  Definition GetResPayload_eq_dec (x y : option PutId) : {x = y} + {x <> y}.
  Proof. decide equality; apply PutId_eq_dec. Defined.
  Definition PutReqPayload_eq_dec (x y : PutReqPayload) : {x = y} + {x <> y}.
  Proof. decide equality; [apply GetReqPayload_eq_dec | apply Nat.eq_dec]. Defined.

  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (snd cs, cs).
  Definition getGuard (_ : Key) (p : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := all_in p (snd rs).
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (fst rs k), snd (fst rs k), rs).
  Definition getRes (_ : Key) (_ : Val) (q : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := match q with Some w => (fst cs, w :: snd cs) | None => cs end.
  Definition putReq (_ : Key) (_ : Val) (c : ClientId) (cs : CState) : PutReqPayload * CState :=
    ((fst cs, snd cs), (S (fst cs), (c, fst cs) :: snd cs)).
  Definition putGuard (_ : Key) (_ : Val) (p : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := all_in (snd p) (snd rs).
  Definition put (k : Key) (v : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState :=
    (upd (fst rs) k (v, Some (c, fst p)), (c, fst p) :: snd rs).
End CC_Spec.
