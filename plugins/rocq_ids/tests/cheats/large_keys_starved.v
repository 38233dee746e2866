(* cheat: partial vacuity: the reference store whose getGuard also demands k <? 1000, so a
   get of any larger key waits forever; trace inclusion forbids wrong answers, not missing ones,
   and the probes use key 3. Proved, audited, bounded; starves large keys.
   task: ryw
   rejected-by: extract
   reason: liveness *)

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
    (rs : RState) : bool := (k <? 1000) && (p <=? count (snd (cell rs k)) c).
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (cell rs k), tt, rs).
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

Module RYW_Local <: LocalSim RYW_Impl RYW_Spec.
  (** Counts are the sizes of the spec's histories; payloads agree. *)
  Definition crel (ci : RYW_Impl.CState) (cs : RYW_Spec.CState) : Prop :=
    forall k, RYW_Impl.count ci k = count_occ Nat.eq_dec cs k.
  Definition rrel (ri : RYW_Impl.RState) (rs : RYW_Spec.RState) : Prop :=
    forall k, fst (RYW_Impl.cell ri k) = fst (rs k) /\
              forall c, RYW_Impl.count (snd (RYW_Impl.cell ri k)) c = RYW_Spec.applied rs k c.
  Definition getp_rel (pi ps : nat) : Prop := pi = ps.
  Definition resp_rel (_ _ : unit) : Prop := True.
  Definition putp_rel (pi ps : nat) : Prop := pi = ps.

  Lemma count_add : forall m x y n,
    RYW_Impl.count (NatMap.add x n m) y = if Nat.eq_dec y x then n else RYW_Impl.count m y.
  Proof.
    intros. unfold RYW_Impl.count. destruct (Nat.eq_dec y x) as [-> | Hne].
    - apply lookup_add_eq.
    - apply lookup_add_neq. assumption.
  Qed.

  Lemma cell_add : forall rs x y cl,
    RYW_Impl.cell (fst rs, NatMap.add x cl (snd rs)) y =
    if Nat.eq_dec y x then cl else RYW_Impl.cell rs y.
  Proof.
    intros. unfold RYW_Impl.cell. simpl. destruct (Nat.eq_dec y x) as [-> | Hne].
    - apply lookup_add_eq.
    - apply lookup_add_neq. assumption.
  Qed.

  Lemma cInit_sim : forall c, crel (RYW_Impl.cInit c) (RYW_Spec.cInit c).
  Proof. unfold crel, RYW_Impl.count. intros. apply lookup_empty. Qed.

  Lemma rInit_sim : forall r v0, rrel (RYW_Impl.rInit r v0) (RYW_Spec.rInit r v0).
  Proof.
    unfold rrel, RYW_Impl.cell, RYW_Impl.count, RYW_Impl.rInit. intros r v0 k.
    cbn [fst snd]. rewrite lookup_empty. cbn [fst snd].
    split; [reflexivity | intros; apply lookup_empty].
  Qed.

  Lemma getReq_sim : forall k c ci cs, crel ci cs ->
    getp_rel (fst (RYW_Impl.getReq k c ci)) (fst (RYW_Spec.getReq k c cs)) /\
    crel (snd (RYW_Impl.getReq k c ci)) (snd (RYW_Spec.getReq k c cs)).
  Proof. unfold crel, getp_rel. simpl. auto. Qed.

  Lemma getGuard_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    RYW_Impl.getGuard k pi c r ri = true -> RYW_Spec.getGuard k ps c r rs = true.
  Proof.
    unfold getp_rel, rrel, RYW_Impl.getGuard, RYW_Spec.getGuard. intros. subst.
    apply andb_prop in H1 as [_ H1].
    destruct (H0 k) as [_ Hc]. rewrite <- Hc. assumption.
  Qed.

  Lemma get_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    RYW_Impl.getGuard k pi c r ri = true ->
    fst (fst (RYW_Impl.get k pi c r ri)) = fst (fst (RYW_Spec.get k ps c r rs)) /\
    resp_rel (snd (fst (RYW_Impl.get k pi c r ri))) (snd (fst (RYW_Spec.get k ps c r rs))) /\
    rrel (snd (RYW_Impl.get k pi c r ri)) (snd (RYW_Spec.get k ps c r rs)).
  Proof. unfold rrel, resp_rel. simpl. intros. split; [apply H0 | auto]. Qed.

  Lemma getRes_sim : forall k v qi qs c ci cs, resp_rel qi qs -> crel ci cs ->
    crel (RYW_Impl.getRes k v qi c ci) (RYW_Spec.getRes k v qs c cs).
  Proof. auto. Qed.

  Lemma putReq_sim : forall k v c ci cs, crel ci cs ->
    putp_rel (fst (RYW_Impl.putReq k v c ci)) (fst (RYW_Spec.putReq k v c cs)) /\
    crel (snd (RYW_Impl.putReq k v c ci)) (snd (RYW_Spec.putReq k v c cs)).
  Proof.
    unfold crel, putp_rel. simpl. intros k v c ci cs H. split; auto. intros k'.
    rewrite count_add, !H. simpl.
    destruct (Nat.eq_dec k' k), (Nat.eq_dec k k'); subst; congruence.
  Qed.

  Lemma putGuard_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    RYW_Impl.putGuard k v pi c r ri = true -> RYW_Spec.putGuard k v ps c r rs = true.
  Proof.
    unfold putp_rel, rrel, RYW_Impl.putGuard, RYW_Spec.putGuard. intros. subst.
    destruct (H0 k) as [_ Hc]. rewrite <- Hc. assumption.
  Qed.

  Lemma put_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    RYW_Impl.putGuard k v pi c r ri = true ->
    rrel (RYW_Impl.put k v pi c r ri) (RYW_Spec.put k v ps c r rs).
  Proof.
    unfold rrel, RYW_Impl.put, RYW_Spec.put, RYW_Spec.applied.
    intros k v pi ps c r ri rs _ H _ k'. rewrite cell_add.
    destruct (Nat.eq_dec k' k) as [-> | Hk].
    - rewrite upd_eq. simpl. split; auto. intros c'. destruct (H k) as [_ Hc].
      rewrite count_add. destruct (Nat.eq_dec c' c) as [-> | Hc'].
      + rewrite Hc. simpl. destruct (Nat.eq_dec c c); congruence.
      + rewrite Hc. simpl. destruct (Nat.eq_dec c c'); congruence.
    - rewrite upd_neq by auto. apply H.
  Qed.
End RYW_Local.

Module RYW_Refinement := LockStep RYW_Impl RYW_Spec RYW_Local.
