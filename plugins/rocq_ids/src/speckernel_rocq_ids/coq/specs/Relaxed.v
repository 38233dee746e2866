(** * The relaxed store (IDS §3): no consistency guarantee at all.

    Each replica holds one value per key; a get returns whatever the serving
    replica holds and puts are applied in any order.  Every other spec refines
    this one. *)

From Coq Require Import Arith.
From IDS Require Import KVStore.

Module Relaxed <: AlgDef.
  Definition CState := unit.
  Definition RState := Key -> Val.
  Definition cInit (_ : ClientId) : CState := tt.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := fun _ => v0.
  Definition GetReqPayload := unit.
  Definition GetResPayload := unit.
  Definition PutReqPayload := unit.
  Definition GetReqPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition GetResPayload_eq_dec := GetReqPayload_eq_dec.
  Definition PutReqPayload_eq_dec := GetReqPayload_eq_dec.
  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState := (tt, cs).
  Definition getGuard (_ : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (rs k, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (_ : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (tt, cs).
  Definition putGuard (_ : Key) (_ : Val) (_ : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := upd rs k v.
End Relaxed.
