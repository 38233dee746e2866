(** * Labeled Causal Consistency, history form (IDS §3).

    Causal consistency with explicit dependency sets ([CC_Spec]), restricted
    by labels: every key carries a label and every client an interest mask,
    the set of labels it cares about.  A client tracks causality only through
    keys whose label is in its mask: its puts and reads of those keys join its
    dependencies, and its gets of those keys wait for its dependencies.  Gets
    of other keys are served by any replica.  Puts always wait for the
    dependencies they carry.  The dependency sets grow without bound. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore.
Import ListNotations.

Module LCC_Spec <: AlgDef.
  (** Two labels; a key's label is its parity. *)
  Definition labels := 2.
  Definition label (k : Key) : nat := k mod labels.
  (** Client [c]'s interest mask: a nonempty set of labels as bits (1, 2 or 3). *)
  Definition interest_mask (c : ClientId) : nat := S (c mod 3).
  Definition interested (c : ClientId) (k : Key) : bool :=
    Nat.testbit (interest_mask c) (label k).

  (** A put's name: its writer and how many puts the writer issued before it. *)
  Definition PutId : Type := ClientId * nat.
  Definition PutId_eq_dec (x y : PutId) : {x = y} + {x <> y}.
  Proof. decide equality; apply Nat.eq_dec. Defined.
  Definition mem (x : PutId) (l : list PutId) : bool :=
    existsb (fun y => if PutId_eq_dec x y then true else false) l.
  Definition all_in (deps applied : list PutId) : bool :=
    forallb (fun x => mem x applied) deps.

  (** Own put count and the client's dependencies (through keys it is
      interested in). *)
  Definition CState : Type := nat * list PutId.
  (** Per key: the value and the put that wrote it; and every applied put. *)
  Definition RState : Type := (Key -> Val * option PutId) * list PutId.
  Definition cInit (_ : ClientId) : CState := (0, []).
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => (v0, None), []).
  Definition GetReqPayload : Type := list PutId.
  Definition GetResPayload : Type := option PutId.
  Definition PutReqPayload : Type := nat * list PutId.
  Definition GetReqPayload_eq_dec := list_eq_dec PutId_eq_dec.
  Definition GetResPayload_eq_dec (x y : option PutId) : {x = y} + {x <> y}.
  Proof. decide equality; apply PutId_eq_dec. Defined.
  Definition PutReqPayload_eq_dec (x y : PutReqPayload) : {x = y} + {x <> y}.
  Proof. decide equality; [apply GetReqPayload_eq_dec | apply Nat.eq_dec]. Defined.

  Definition getReq (k : Key) (c : ClientId) (cs : CState) : GetReqPayload * CState :=
    (if interested c k then snd cs else [], cs).
  Definition getGuard (_ : Key) (p : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := all_in p (snd rs).
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (fst rs k), snd (fst rs k), rs).
  Definition getRes (k : Key) (_ : Val) (q : GetResPayload) (c : ClientId) (cs : CState)
    : CState :=
    match q with
    | Some w => if interested c k then (fst cs, w :: snd cs) else cs
    | None => cs
    end.
  Definition putReq (k : Key) (_ : Val) (c : ClientId) (cs : CState) : PutReqPayload * CState :=
    ((fst cs, snd cs),
     (S (fst cs), if interested c k then (c, fst cs) :: snd cs else snd cs)).
  Definition putGuard (_ : Key) (_ : Val) (p : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := all_in (snd p) (snd rs).
  Definition put (k : Key) (v : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState :=
    (upd (fst rs) k (v, Some (c, fst p)), (c, fst p) :: snd rs).
End LCC_Spec.
