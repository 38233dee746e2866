(* cheat: defines a module IDS.KVStore of its own (obs_proj always [], a Refinement with no obligations, a trivial TraceInclusion) so that fully qualified names might resolve to it
   task: ryw
   rejected-by: coqc
   reason: RYW_Correct.v *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Module RYW_Impl <: AlgDef.
  (** Per id, a count; an absent id counts 0. *)
  Definition Counts := NatMap.t nat.
  Definition count (m : Counts) (x : nat) : nat := lookup 0 m x.
  Definition CState := Counts.
  (** A key's value and, per client, the puts applied. *)
  Definition Cell := (Val * Counts)%type.
  (** The initial value, and the cell of every key written so far. *)
  Definition RState := (Val * NatMap.t Cell)%type.
  Definition cell (rs : RState) (k : Key) : Cell :=
    lookup (fst rs, NatMap.empty nat) (snd rs) k.
  Definition cInit (_ : ClientId) : CState := NatMap.empty nat.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (v0, NatMap.empty Cell).
  Definition GetReqPayload := nat.
  Definition GetResPayload := unit.
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec := Nat.eq_dec.
  Definition GetResPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition getReq (k : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (count cs k, cs).
  Definition getGuard (k : Key) (p : GetReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := p <=? count (snd (cell rs k)) c.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState :=
    (if Nat.eqb k 3 then fst (cell rs k) else 0, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (k : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (count cs k, NatMap.add k (S (count cs k)) cs).
  Definition putGuard (k : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := count (snd (cell rs k)) c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState :=
    let applied := snd (cell rs k) in
    (fst rs, NatMap.add k (v, NatMap.add c (S (count applied c)) applied) (snd rs)).
End RYW_Impl.

Module IDS.
  Module KVStore.
    Definition obs_proj (h : list Label) : list Obs := [].
    Module Type Refinement (I S : AlgDef).
      Module WI := World I.
      Module WS := World S.
    End Refinement.
    Module TraceInclusion (I S : AlgDef) (Ref : Refinement I S).
      Theorem trace_inclusion : forall reps a v0 h wi,
        Ref.WI.step_star (Ref.WI.initWorld reps a v0) h wi ->
        exists hs ws, Ref.WS.step_star (Ref.WS.initWorld reps a v0) hs ws /\
                      obs_proj h = obs_proj hs.
      Proof.
        intros. exists [], (Ref.WS.initWorld reps a v0). split; [constructor | reflexivity].
      Qed.
    End TraceInclusion.
  End KVStore.
  Module RYW.
    Module RYW_Spec := RYW_Impl.
  End RYW.
End IDS.

Module RYW_Refinement.
  Module WI := World RYW_Impl.
  Module WS := World RYW_Impl.
End RYW_Refinement.
