(** * Expert-style Read-Your-Writes store (IDS §5: the baseline of Figure 4).

    The spec's unbounded histories are compressed to counters held in
    functions: a client keeps, per key, how many puts it issued; a replica
    keeps, per key, the value and, per client, how many of that client's puts
    it applied.  The state is bounded by keys x clients in the abstract, but
    extracted to OCaml each [upd] wraps one more closure around the last, so
    the running store grows with every put and looks keys up in time linear in
    the puts applied: the extraction check rejects it, and the benchmark
    measures the balanced-map store against it.  [RYW_Local] relates each
    counter to the count of the matching history entries. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation RYW.
Import ListNotations.

Module RYW_Impl <: AlgDef.
  Definition CState := Key -> nat.
  Definition RState := Key -> Val * (ClientId -> nat).
  Definition cInit (_ : ClientId) : CState := fun _ => 0.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := fun _ => (v0, fun _ => 0).
  Definition GetReqPayload := nat.
  Definition GetResPayload := unit.
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec := Nat.eq_dec.
  Definition GetResPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition getReq (k : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState :=
    (cs k, cs).
  Definition getGuard (k : Key) (p : GetReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := p <=? snd (rs k) c.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst (rs k), tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (k : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (cs k, upd cs k (S (cs k))).
  Definition putGuard (k : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := snd (rs k) c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := upd rs k (v, upd (snd (rs k)) c (S (snd (rs k) c))).
End RYW_Impl.

Module RYW_Local <: LocalSim RYW_Impl RYW_Spec.
  (** Counters are the sizes of the spec's histories; payloads agree. *)
  Definition crel (ci : RYW_Impl.CState) (cs : RYW_Spec.CState) : Prop :=
    forall k, ci k = count_occ Nat.eq_dec cs k.
  Definition rrel (ri : RYW_Impl.RState) (rs : RYW_Spec.RState) : Prop :=
    forall k, fst (ri k) = fst (rs k) /\ forall c, snd (ri k) c = RYW_Spec.applied rs k c.
  Definition getp_rel (pi ps : nat) : Prop := pi = ps.
  Definition resp_rel (_ _ : unit) : Prop := True.
  Definition putp_rel (pi ps : nat) : Prop := pi = ps.

  Lemma cInit_sim : forall c, crel (RYW_Impl.cInit c) (RYW_Spec.cInit c).
  Proof. unfold crel. reflexivity. Qed.

  Lemma rInit_sim : forall r v0, rrel (RYW_Impl.rInit r v0) (RYW_Spec.rInit r v0).
  Proof. unfold rrel. simpl. auto. Qed.

  Lemma getReq_sim : forall k c ci cs, crel ci cs ->
    getp_rel (fst (RYW_Impl.getReq k c ci)) (fst (RYW_Spec.getReq k c cs)) /\
    crel (snd (RYW_Impl.getReq k c ci)) (snd (RYW_Spec.getReq k c cs)).
  Proof. unfold crel, getp_rel. simpl. auto. Qed.

  Lemma getGuard_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    RYW_Impl.getGuard k pi c r ri = true -> RYW_Spec.getGuard k ps c r rs = true.
  Proof.
    unfold getp_rel, rrel, RYW_Impl.getGuard, RYW_Spec.getGuard. intros. subst.
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
    unfold upd. rewrite !H. simpl.
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
    intros k v pi ps c r ri rs _ H _ k'. destruct (Nat.eq_dec k' k) as [-> | Hk].
    - rewrite !upd_eq. simpl. split; auto. intros c'. destruct (H k) as [_ Hc].
      destruct (Nat.eq_dec c' c) as [-> | Hc'].
      + rewrite upd_eq, Hc. simpl. destruct (Nat.eq_dec c c); congruence.
      + rewrite upd_neq, Hc by auto. simpl. destruct (Nat.eq_dec c c'); congruence.
    - rewrite !upd_neq by auto. apply H.
  Qed.
End RYW_Local.

Module RYW_Refinement := LockStep RYW_Impl RYW_Spec RYW_Local.
