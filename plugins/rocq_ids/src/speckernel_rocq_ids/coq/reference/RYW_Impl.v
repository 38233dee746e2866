(** * Reference Read-Your-Writes store (IDS §5: the expert-style baseline).

    The spec's unbounded histories are compressed to counters: a client keeps,
    per key, how many puts it issued; a replica keeps, per key, the value and,
    per client, how many of that client's puts it applied.  The state is
    bounded by keys x clients.  [RYW_Refinement] relates each counter to the
    count of the matching history entries and proves the forward simulation. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore RYW.
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

Module RYW_Refinement <: Refinement RYW_Impl RYW_Spec.
  Module WI := World RYW_Impl.
  Module WS := World RYW_Spec.

  Definition client_rel (ci : WI.ClientState) (cs : WS.ClientState) : Prop :=
    WI.cs_prog ci = WS.cs_prog cs /\
    forall k, WI.cs_alg ci k = count_occ Nat.eq_dec (WS.cs_alg cs) k.

  Definition replica_rel (ri : RYW_Impl.RState) (rs : RYW_Spec.RState) : Prop :=
    forall k, fst (ri k) = fst (rs k) /\ forall c, snd (ri k) c = RYW_Spec.applied rs k c.

  Definition msg_rel (mi : WI.Message) (ms : WS.Message) : Prop :=
    match mi, ms with
    | WI.MGetReq r c u k p, WS.MGetReq r' c' u' k' p' =>
        r = r' /\ c = c' /\ u = u' /\ k = k' /\ p = p'
    | WI.MGetRes c u k v _, WS.MGetRes c' u' k' v' _ => c = c' /\ u = u' /\ k = k' /\ v = v'
    | WI.MPutReq r c u k v p, WS.MPutReq r' c' u' k' v' p' =>
        r = r' /\ c = c' /\ u = u' /\ k = k' /\ v = v' /\ p = p'
    | _, _ => False
    end.

  (** Counters are the sizes of the spec's histories; programs, values,
      topology and in-flight messages agree. *)
  Definition R (wi : WI.WorldState) (ws : WS.WorldState) : Prop :=
    WI.w_reps wi = WS.w_reps ws /\
    (forall c, client_rel (WI.w_clients wi c) (WS.w_clients ws c)) /\
    (forall r, replica_rel (WI.w_replicas wi r) (WS.w_replicas ws r)) /\
    Forall2 msg_rel (WI.w_network wi) (WS.w_network ws).

  Lemma upd_rel : forall A B (rel : A -> B -> Prop) f g x a b,
    (forall y, rel (f y) (g y)) -> rel a b -> forall y, rel (upd f x a y) (upd g x b y).
  Proof. intros. unfold upd. destruct (Nat.eq_dec y x); auto. Qed.

  Lemma network_split : forall n1 m n2 ns, Forall2 msg_rel (n1 ++ m :: n2) ns ->
    exists ns1 ms ns2, ns = ns1 ++ ms :: ns2 /\ Forall2 msg_rel n1 ns1 /\ msg_rel m ms /\
                       Forall2 msg_rel n2 ns2.
  Proof.
    intros n1 m n2 ns H. apply Forall2_app_inv_l in H as [ns1 [ns' [H1 [H2 ->]]]].
    inversion H2; subst. eauto 7.
  Qed.

  Lemma put_messages_rel : forall reps c u k v p,
    Forall2 msg_rel (WI.putMessages reps c u k v p) (WS.putMessages reps c u k v p).
  Proof.
    induction reps; simpl; constructor; auto. simpl. repeat split.
  Qed.

  Lemma put_rel : forall ri rs k v p c r, replica_rel ri rs ->
    replica_rel (RYW_Impl.put k v p c r ri) (RYW_Spec.put k v p c r rs).
  Proof.
    unfold replica_rel, RYW_Impl.put, RYW_Spec.put, RYW_Spec.applied.
    intros ri rs k v p c r H k'. destruct (Nat.eq_dec k' k) as [-> | Hk].
    - rewrite !upd_eq. simpl. split; auto. intros c'. destruct (H k) as [_ Hc].
      destruct (Nat.eq_dec c' c) as [-> | Hc'].
      + rewrite upd_eq, Hc. simpl. destruct (Nat.eq_dec c c); congruence.
      + rewrite upd_neq, Hc by auto. simpl. destruct (Nat.eq_dec c c'); congruence.
    - rewrite !upd_neq by auto. apply H.
  Qed.

  Lemma init_sim : forall reps a v0, R (WI.initWorld reps a v0) (WS.initWorld reps a v0).
  Proof.
    intros. repeat split; simpl; auto.
  Qed.

  Lemma step_sim : forall wi ws l wi', R wi ws -> WI.step wi l wi' ->
    exists hs ws', WS.step_star ws hs ws' /\ R wi' ws' /\ obs_of_label l = obs_proj hs.
  Proof.
    intros wi ws l wi' [Hreps [Hc [Hr Hn]]] Hstep.
    destruct Hstep as [w c u k s r p cs' Hprog Hin Hreq
                      | w n1 n2 r c u k p v q rs' Hnet Hguard Hget
                      | w n1 n2 c u k v q s Hnet Hprog
                      | w c u k v s p cs' Hprog Hreq
                      | w n1 n2 r c u k v p Hnet Hguard].
    - (* a client sends a get request *)
      inversion Hreq; subst. destruct (Hc c) as [Hp Ha].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetReq | split].
      + rewrite <- Hp. exact Hprog.
      + rewrite <- Hreps. exact Hin.
      + reflexivity.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto.
        * apply Forall2_app; auto. repeat constructor. apply Ha.
      + reflexivity.
    - (* a replica serves a get *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms; simpl in Hm; try contradiction. destruct Hm as (<- & <- & <- & <- & <-).
      inversion Hget; subst. destruct (Hr r k) as [Hv Hcnt].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetAtReplica | split].
      + exact Heq.
      + unfold RYW_Spec.getGuard. rewrite <- Hcnt. exact Hguard.
      + reflexivity.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ replica_rel); auto.
        * apply Forall2_app; auto. apply Forall2_app; auto. repeat constructor. auto.
      + reflexivity.
    - (* a blocked client consumes its response *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms; simpl in Hm; try contradiction. destruct Hm as (<- & <- & <- & <-).
      destruct (Hc c) as [Hp Ha].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetRes | split].
      + exact Heq.
      + rewrite <- Hp. exact Hprog.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto.
        * apply Forall2_app; auto.
      + reflexivity.
    - (* a client broadcasts a put *)
      inversion Hreq; subst. destruct (Hc c) as [Hp Ha].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepPutReq | split].
      + rewrite <- Hp. exact Hprog.
      + reflexivity.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto. intros k'.
          unfold upd. rewrite !Ha. simpl.
          destruct (Nat.eq_dec k' k), (Nat.eq_dec k k'); subst; congruence.
        * rewrite Ha, Hreps. apply Forall2_app; auto. apply put_messages_rel.
      + reflexivity.
    - (* a replica applies a put *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms; simpl in Hm; try contradiction.
      destruct Hm as (<- & <- & <- & <- & <- & <-). destruct (Hr r k) as [_ Hcnt].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepPutAtReplica | split].
      + exact Heq.
      + unfold RYW_Spec.putGuard. rewrite <- Hcnt. exact Hguard.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ replica_rel); auto. apply put_rel. auto.
        * apply Forall2_app; auto.
      + reflexivity.
  Qed.
End RYW_Refinement.
