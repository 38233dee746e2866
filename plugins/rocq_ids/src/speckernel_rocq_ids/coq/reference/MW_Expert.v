(** * Expert-style Monotonic-Writes store (IDS §5: the baseline of Figure 4).

    The spec's unbounded histories are compressed to counters: a client keeps
    how many puts it issued; a replica keeps the value of every key and, per
    client, how many of that client's puts it applied, both as functions.  The
    state is bounded by keys + clients in the abstract, but extracted to OCaml
    each [upd] wraps one more closure around the last, so the running store
    grows with every put: the extraction check rejects it, and the benchmark
    measures the balanced-map store against it.  [MW_Local] relates each
    counter to the length of the matching history. *)

From Coq Require Import List Arith.
From IDS Require Import KVStore Simulation MW.
Import ListNotations.

Module MW_Impl <: AlgDef.
  Definition CState := nat.
  Definition RState : Type := (Key -> Val) * (ClientId -> nat).
  Definition cInit (_ : ClientId) : CState := 0.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => v0, fun _ => 0).
  Definition GetReqPayload := unit.
  Definition GetResPayload := unit.
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition GetResPayload_eq_dec := GetReqPayload_eq_dec.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.

  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : GetReqPayload * CState := (tt, cs).
  Definition getGuard (_ : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) : bool := true.
  Definition get (k : Key) (_ : GetReqPayload) (_ : ClientId) (_ : ReplicaId) (rs : RState)
    : Val * GetResPayload * RState := (fst rs k, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : GetResPayload) (_ : ClientId) (cs : CState)
    : CState := cs.
  Definition putReq (_ : Key) (_ : Val) (_ : ClientId) (cs : CState) : PutReqPayload * CState :=
    (cs, S cs).
  Definition putGuard (_ : Key) (_ : Val) (p : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : bool := snd rs c =? p.
  Definition put (k : Key) (v : Val) (_ : PutReqPayload) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := (upd (fst rs) k v, upd (snd rs) c (S (snd rs c))).
End MW_Impl.

Module MW_Local <: LocalSim MW_Impl MW_Spec.
  (** Counters are the lengths of the spec's histories; put payloads agree. *)
  Definition crel (ci : MW_Impl.CState) (cs : MW_Spec.CState) : Prop := ci = length cs.
  Definition rrel (ri : MW_Impl.RState) (rs : MW_Spec.RState) : Prop :=
    (forall k, fst ri k = fst rs k) /\ forall c, snd ri c = MW_Spec.applied rs c.
  Definition getp_rel (_ _ : unit) : Prop := True.
  Definition resp_rel (_ _ : unit) : Prop := True.
  Definition putp_rel (pi ps : nat) : Prop := pi = ps.

  Lemma cInit_sim : forall c, crel (MW_Impl.cInit c) (MW_Spec.cInit c).
  Proof. reflexivity. Qed.

  Lemma rInit_sim : forall r v0, rrel (MW_Impl.rInit r v0) (MW_Spec.rInit r v0).
  Proof. unfold rrel. simpl. auto. Qed.

  Lemma getReq_sim : forall k c ci cs, crel ci cs ->
    getp_rel (fst (MW_Impl.getReq k c ci)) (fst (MW_Spec.getReq k c cs)) /\
    crel (snd (MW_Impl.getReq k c ci)) (snd (MW_Spec.getReq k c cs)).
  Proof. unfold getp_rel. simpl. auto. Qed.

  Lemma getGuard_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    MW_Impl.getGuard k pi c r ri = true -> MW_Spec.getGuard k ps c r rs = true.
  Proof. reflexivity. Qed.

  Lemma get_sim : forall k pi ps c r ri rs, getp_rel pi ps -> rrel ri rs ->
    MW_Impl.getGuard k pi c r ri = true ->
    fst (fst (MW_Impl.get k pi c r ri)) = fst (fst (MW_Spec.get k ps c r rs)) /\
    resp_rel (snd (fst (MW_Impl.get k pi c r ri))) (snd (fst (MW_Spec.get k ps c r rs))) /\
    rrel (snd (MW_Impl.get k pi c r ri)) (snd (MW_Spec.get k ps c r rs)).
  Proof. unfold rrel, resp_rel. simpl. intros k pi ps c r ri rs _ [Hv Hc] _. auto. Qed.

  Lemma getRes_sim : forall k v qi qs c ci cs, resp_rel qi qs -> crel ci cs ->
    crel (MW_Impl.getRes k v qi c ci) (MW_Spec.getRes k v qs c cs).
  Proof. auto. Qed.

  Lemma putReq_sim : forall k v c ci cs, crel ci cs ->
    putp_rel (fst (MW_Impl.putReq k v c ci)) (fst (MW_Spec.putReq k v c cs)) /\
    crel (snd (MW_Impl.putReq k v c ci)) (snd (MW_Spec.putReq k v c cs)).
  Proof. unfold crel, putp_rel. simpl. intros. subst. auto. Qed.

  Lemma putGuard_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    MW_Impl.putGuard k v pi c r ri = true -> MW_Spec.putGuard k v ps c r rs = true.
  Proof.
    unfold putp_rel, rrel, MW_Impl.putGuard, MW_Spec.putGuard.
    intros k v pi ps c r ri rs -> [_ Hc]. rewrite <- Hc. auto.
  Qed.

  Lemma put_sim : forall k v pi ps c r ri rs, putp_rel pi ps -> rrel ri rs ->
    MW_Impl.putGuard k v pi c r ri = true ->
    rrel (MW_Impl.put k v pi c r ri) (MW_Spec.put k v ps c r rs).
  Proof.
    unfold rrel, MW_Impl.put, MW_Spec.put, MW_Spec.applied.
    intros k v pi ps c r ri rs _ [Hv Hc] _. simpl. split.
    - intros k'. unfold upd. destruct (Nat.eq_dec k' k); auto.
    - intros c'. destruct (Nat.eq_dec c' c) as [-> | Hne].
      + rewrite upd_eq, Hc. simpl. destruct (Nat.eq_dec c c); congruence.
      + rewrite upd_neq, Hc by auto. simpl. destruct (Nat.eq_dec c c'); congruence.
  Qed.
End MW_Local.

Module MW_Refinement := LockStep MW_Impl MW_Spec MW_Local.
