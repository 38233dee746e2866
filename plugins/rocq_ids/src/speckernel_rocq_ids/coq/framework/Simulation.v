(** * Lock-step simulations and compact finite maps (IDS §2.3, §5).

    Most refinements of a history spec by a compact store match every
    implementation step with the same step of the spec: the relation between
    worlds is then fixed by a relation per state and per payload, and the
    forward simulation reduces to one fact per method.  [LocalSim] collects
    those facts; [LockStep] turns them into a [Refinement], so a proof states
    only what is particular to its store.  [NatMap] (AVL trees) and [lookup] are
    finite maps for stores whose state must stay bounded once extracted (a
    function built by [upd] becomes a closure that grows with every put) and
    whose lookups must stay logarithmic in the keys. *)

From Coq Require Import List Arith FMapAVL OrderedTypeEx FMapFacts.
From IDS Require Import KVStore.
Import ListNotations.

(** ** Finite maps: AVL trees keyed by naturals *)

Module NatMap := FMapAVL.Make Nat_as_OT.
Module NatMapFacts := FMapFacts.WFacts_fun Nat_as_OT NatMap.

(** The entry of [x], or [d] when there is none. *)
Definition lookup {A : Type} (d : A) (m : NatMap.t A) (x : nat) : A :=
  match NatMap.find x m with Some a => a | None => d end.

Lemma lookup_empty : forall A (d : A) x, lookup d (NatMap.empty A) x = d.
Proof. intros. unfold lookup. rewrite NatMapFacts.empty_o. reflexivity. Qed.

Lemma lookup_add_eq : forall A (d : A) m x a, lookup d (NatMap.add x a m) x = a.
Proof. intros. unfold lookup. rewrite NatMapFacts.add_eq_o; reflexivity. Qed.

Lemma lookup_add_neq : forall A (d : A) m x y a, y <> x ->
  lookup d (NatMap.add x a m) y = lookup d m y.
Proof. intros. unfold lookup. rewrite NatMapFacts.add_neq_o; auto. Qed.

(** ** Lock-step simulations *)

(** What relates one implementation state, or payload, to one of the spec,
    and the fact that each method preserves the relations. *)
Module Type LocalSim (I S : AlgDef).
  Parameter crel : I.CState -> S.CState -> Prop.
  Parameter rrel : I.RState -> S.RState -> Prop.
  Parameter getp_rel : I.GetReqPayload -> S.GetReqPayload -> Prop.
  Parameter resp_rel : I.GetResPayload -> S.GetResPayload -> Prop.
  Parameter putp_rel : I.PutReqPayload -> S.PutReqPayload -> Prop.
  Parameter cInit_sim : forall c, crel (I.cInit c) (S.cInit c).
  Parameter rInit_sim : forall r v0, rrel (I.rInit r v0) (S.rInit r v0).
  Parameter getReq_sim : forall k c ci cs, crel ci cs ->
    getp_rel (fst (I.getReq k c ci)) (fst (S.getReq k c cs)) /\
    crel (snd (I.getReq k c ci)) (snd (S.getReq k c cs)).
  Parameter getGuard_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    I.getGuard k pi c r ri = true -> S.getGuard k ps c r rs = true.
  Parameter get_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    I.getGuard k pi c r ri = true ->
    fst (fst (I.get k pi c r ri)) = fst (fst (S.get k ps c r rs)) /\
    resp_rel (snd (fst (I.get k pi c r ri))) (snd (fst (S.get k ps c r rs))) /\
    rrel (snd (I.get k pi c r ri)) (snd (S.get k ps c r rs)).
  Parameter getRes_sim : forall k v qi qs c ci cs, resp_rel qi qs -> crel ci cs ->
    crel (I.getRes k v qi c ci) (S.getRes k v qs c cs).
  Parameter putReq_sim : forall k v c ci cs, crel ci cs ->
    putp_rel (fst (I.putReq k v c ci)) (fst (S.putReq k v c cs)) /\
    crel (snd (I.putReq k v c ci)) (snd (S.putReq k v c cs)).
  Parameter putGuard_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    I.putGuard k v pi c r ri = true -> S.putGuard k v ps c r rs = true.
  Parameter put_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    I.putGuard k v pi c r ri = true -> rrel (I.put k v pi c r ri) (S.put k v ps c r rs).
End LocalSim.

(** The refinement a [LocalSim] yields: worlds are related when topology and
    programs agree and states and in-flight messages are related pointwise;
    every implementation step is matched by the same spec step. *)
Module LockStep (I S : AlgDef) (L : LocalSim I S) <: Refinement I S.
  Module WI := World I.
  Module WS := World S.

  Definition client_rel (ci : WI.ClientState) (cs : WS.ClientState) : Prop :=
    WI.cs_prog ci = WS.cs_prog cs /\ L.crel (WI.cs_alg ci) (WS.cs_alg cs).

  Definition msg_rel (mi : WI.Message) (ms : WS.Message) : Prop :=
    match mi, ms with
    | WI.MGetReq r c u k p, WS.MGetReq r' c' u' k' p' =>
        r = r' /\ c = c' /\ u = u' /\ k = k' /\ L.getp_rel p p'
    | WI.MGetRes c u k v q, WS.MGetRes c' u' k' v' q' =>
        c = c' /\ u = u' /\ k = k' /\ v = v' /\ L.resp_rel q q'
    | WI.MPutReq r c u k v p, WS.MPutReq r' c' u' k' v' p' =>
        r = r' /\ c = c' /\ u = u' /\ k = k' /\ v = v' /\ L.putp_rel p p'
    | _, _ => False
    end.

  Definition R (wi : WI.WorldState) (ws : WS.WorldState) : Prop :=
    WI.w_reps wi = WS.w_reps ws /\
    (forall c, client_rel (WI.w_clients wi c) (WS.w_clients ws c)) /\
    (forall r, L.rrel (WI.w_replicas wi r) (WS.w_replicas ws r)) /\
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

  Lemma put_messages_rel : forall reps c u k v pi ps, L.putp_rel pi ps ->
    Forall2 msg_rel (WI.putMessages reps c u k v pi) (WS.putMessages reps c u k v ps).
  Proof.
    induction reps; simpl; constructor; auto. simpl. repeat split. assumption.
  Qed.

  Lemma init_sim : forall reps a v0, R (WI.initWorld reps a v0) (WS.initWorld reps a v0).
  Proof.
    intros. repeat split; simpl; auto using L.cInit_sim, L.rInit_sim.
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
      destruct (Hc c) as [Hp Ha].
      destruct (L.getReq_sim k c _ _ Ha) as [Hpay Hcs]. rewrite Hreq in Hpay, Hcs.
      destruct (S.getReq k c (WS.cs_alg (WS.w_clients ws c))) as [ps css'] eqn:Hs.
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetReq | split].
      + rewrite <- Hp. exact Hprog.
      + rewrite <- Hreps. exact Hin.
      + exact Hs.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto.
        * apply Forall2_app; auto. repeat constructor; auto.
      + reflexivity.
    - (* a replica serves a get *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms as [r' c' u' k' ps | | ]; simpl in Hm; try contradiction.
      destruct Hm as (<- & <- & <- & <- & Hpay).
      destruct (L.get_sim k p ps c r _ _ Hpay (Hr r) Hguard) as (Hv & Hq & Hrs).
      rewrite Hget in Hv, Hq, Hrs. simpl in Hv, Hq, Hrs.
      destruct (S.get k ps c r (WS.w_replicas ws r)) as [[vs qs] rss'] eqn:Hs.
      simpl in Hv, Hq, Hrs. subst vs.
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetAtReplica | split].
      + exact Heq.
      + exact (L.getGuard_sim k p ps c r _ _ Hpay (Hr r) Hguard).
      + exact Hs.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ L.rrel); auto.
        * apply Forall2_app; auto. apply Forall2_app; auto. repeat constructor; auto.
      + reflexivity.
    - (* a blocked client consumes its response *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms as [ | c' u' k' v' qs | ]; simpl in Hm; try contradiction.
      destruct Hm as (<- & <- & <- & <- & Hq).
      destruct (Hc c) as [Hp Ha].
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepGetRes | split].
      + exact Heq.
      + rewrite <- Hp. exact Hprog.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto. apply L.getRes_sim; auto.
        * apply Forall2_app; auto.
      + reflexivity.
    - (* a client broadcasts a put *)
      destruct (Hc c) as [Hp Ha].
      destruct (L.putReq_sim k v c _ _ Ha) as [Hpay Hcs]. rewrite Hreq in Hpay, Hcs.
      destruct (S.putReq k v c (WS.cs_alg (WS.w_clients ws c))) as [ps css'] eqn:Hs.
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepPutReq | split].
      + rewrite <- Hp. exact Hprog.
      + exact Hs.
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ client_rel); auto. split; simpl; auto.
        * rewrite Hreps. apply Forall2_app; auto. apply put_messages_rel. exact Hpay.
      + reflexivity.
    - (* a replica applies a put *)
      rewrite Hnet in Hn. apply network_split in Hn as (ns1 & ms & ns2 & Heq & Hn1 & Hm & Hn2).
      destruct ms as [ | | r' c' u' k' v' ps]; simpl in Hm; try contradiction.
      destruct Hm as (<- & <- & <- & <- & <- & Hpay).
      eexists [_], _. split; [apply WS.star_one; eapply WS.StepPutAtReplica | split].
      + exact Heq.
      + exact (L.putGuard_sim k v p ps c r _ _ Hpay (Hr r) Hguard).
      + refine (conj _ (conj _ (conj _ _))); simpl; auto.
        * apply (upd_rel _ _ L.rrel); auto. apply L.put_sim; auto.
        * apply Forall2_app; auto.
      + reflexivity.
  Qed.
End LockStep.
