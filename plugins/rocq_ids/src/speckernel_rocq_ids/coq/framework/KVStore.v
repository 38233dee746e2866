(** * The IDS key-value store framework (IDS §2: interface, world, refinement).

    A store is an algorithm with seven methods over a client state and a replica
    state ([AlgDef]).  [World] runs one algorithm under a concurrent, labelled
    semantics: clients execute programs, requests travel through an unordered
    pool of in-flight messages, replicas serve them when a guard allows.  A
    consistency guarantee is a specification algorithm; an implementation
    satisfies it when every observable trace of the implementation is one of
    the specification ([Refinement], [TraceInclusion]).

    The framework declares no axioms: the refinement theorem of a correct
    candidate is closed under the global context. *)

From Coq Require Import List Arith.
Import ListNotations.

Definition Key := nat.
Definition Val := nat.
Definition ClientId := nat.
Definition ReplicaId := nat.
Definition UniqueId := nat.

(** Point update of a function indexed by naturals (keys, clients, replicas). *)
Definition upd {A : Type} (f : nat -> A) (x : nat) (a : A) : nat -> A :=
  fun y => if Nat.eq_dec y x then a else f y.

Lemma upd_eq : forall A (f : nat -> A) x a, upd f x a x = a.
Proof. intros. unfold upd. destruct (Nat.eq_dec x x); congruence. Qed.

Lemma upd_neq : forall A (f : nat -> A) x y a, y <> x -> upd f x a y = f y.
Proof. intros. unfold upd. destruct (Nat.eq_dec y x); congruence. Qed.

(** Client programs: a straight-line sequence of puts and gets, each with a
    unique operation id.  [SBlockedGet] is a get waiting for its response. *)
Inductive Stmt : Type :=
| SPut (u : UniqueId) (k : Key) (v : Val) (s : Stmt)
| SGet (u : UniqueId) (k : Key) (s : Stmt)
| SBlockedGet (u : UniqueId) (k : Key) (s : Stmt)
| SSkip.

Definition App := ClientId -> Stmt.

(** Transition labels, shared by every algorithm so that traces compare. *)
Inductive Label : Type :=
| LGetReq (c : ClientId) (u : UniqueId) (k : Key) (r : ReplicaId)
| LGetAtReplica (r : ReplicaId) (c : ClientId) (u : UniqueId) (k : Key)
| LGetRes (c : ClientId) (u : UniqueId) (k : Key) (v : Val)
| LPutReq (c : ClientId) (u : UniqueId) (k : Key) (v : Val)
| LPutAtReplica (r : ReplicaId) (c : ClientId) (u : UniqueId) (k : Key) (v : Val).

(** What a client sees: the puts it issues and the values its gets return. *)
Inductive Obs : Type :=
| ObsPut (c : ClientId) (u : UniqueId) (k : Key) (v : Val)
| ObsGet (c : ClientId) (u : UniqueId) (k : Key) (v : Val).

Definition obs_of_label (l : Label) : list Obs :=
  match l with
  | LPutReq c u k v => [ObsPut c u k v]
  | LGetRes c u k v => [ObsGet c u k v]
  | _ => []
  end.

(** The observable projection of a trace. *)
Definition obs_proj (h : list Label) : list Obs := flat_map obs_of_label h.

Lemma obs_proj_app : forall h1 h2, obs_proj (h1 ++ h2) = obs_proj h1 ++ obs_proj h2.
Proof. intros. unfold obs_proj. apply flat_map_app. Qed.

(** The interface of a store algorithm (IDS §2.1): the client side issues
    requests and digests responses; the replica side guards and serves them. *)
Module Type AlgDef.
  Parameter CState RState : Type.
  Parameter cInit : ClientId -> CState.
  Parameter rInit : ReplicaId -> Val -> RState.
  Parameter GetReqPayload GetResPayload PutReqPayload : Type.
  Parameter GetReqPayload_eq_dec : forall x y : GetReqPayload, {x = y} + {x <> y}.
  Parameter GetResPayload_eq_dec : forall x y : GetResPayload, {x = y} + {x <> y}.
  Parameter PutReqPayload_eq_dec : forall x y : PutReqPayload, {x = y} + {x <> y}.
  Parameter getReq : Key -> ClientId -> CState -> GetReqPayload * CState.
  Parameter getGuard : Key -> GetReqPayload -> ClientId -> ReplicaId -> RState -> bool.
  Parameter get : Key -> GetReqPayload -> ClientId -> ReplicaId -> RState ->
                  Val * GetResPayload * RState.
  Parameter getRes : Key -> Val -> GetResPayload -> ClientId -> CState -> CState.
  Parameter putReq : Key -> Val -> ClientId -> CState -> PutReqPayload * CState.
  Parameter putGuard : Key -> Val -> PutReqPayload -> ClientId -> ReplicaId -> RState -> bool.
  Parameter put : Key -> Val -> PutReqPayload -> ClientId -> ReplicaId -> RState -> RState.
End AlgDef.

(** The concurrent world of one algorithm (IDS §2.2). *)
Module World (Alg : AlgDef).

  Record ClientState := mkClient { cs_alg : Alg.CState; cs_prog : Stmt }.

  (** In-flight messages: a get request addressed to one replica, its
      response addressed to the client, and one put request per replica. *)
  Inductive Message : Type :=
  | MGetReq (r : ReplicaId) (c : ClientId) (u : UniqueId) (k : Key) (p : Alg.GetReqPayload)
  | MGetRes (c : ClientId) (u : UniqueId) (k : Key) (v : Val) (p : Alg.GetResPayload)
  | MPutReq (r : ReplicaId) (c : ClientId) (u : UniqueId) (k : Key) (v : Val)
            (p : Alg.PutReqPayload).

  Record WorldState := mkWorld {
    w_reps : list ReplicaId;
    w_clients : ClientId -> ClientState;
    w_replicas : ReplicaId -> Alg.RState;
    w_network : list Message
  }.

  Definition initWorld (reps : list ReplicaId) (a : App) (v0 : Val) : WorldState :=
    mkWorld reps (fun c => mkClient (Alg.cInit c) (a c)) (fun r => Alg.rInit r v0) [].

  Definition setClient (w : WorldState) (c : ClientId) (cs : ClientState)
      (net : list Message) : WorldState :=
    mkWorld (w_reps w) (upd (w_clients w) c cs) (w_replicas w) net.

  Definition setReplica (w : WorldState) (r : ReplicaId) (rs : Alg.RState)
      (net : list Message) : WorldState :=
    mkWorld (w_reps w) (w_clients w) (upd (w_replicas w) r rs) net.

  Definition putMessages (reps : list ReplicaId) (c : ClientId) (u : UniqueId) (k : Key)
      (v : Val) (p : Alg.PutReqPayload) : list Message :=
    map (fun r => MPutReq r c u k v p) reps.

  (** The labelled step relation: a client issues a get to a replica of its
      choice or broadcasts a put; a replica consumes any in-flight request whose
      guard holds; a blocked client consumes the response to its get. *)
  Inductive step : WorldState -> Label -> WorldState -> Prop :=
  | StepGetReq : forall w c u k s r p cs',
      cs_prog (w_clients w c) = SGet u k s ->
      In r (w_reps w) ->
      Alg.getReq k c (cs_alg (w_clients w c)) = (p, cs') ->
      step w (LGetReq c u k r)
           (setClient w c (mkClient cs' (SBlockedGet u k s))
                      (w_network w ++ [MGetReq r c u k p]))
  | StepGetAtReplica : forall w n1 n2 r c u k p v q rs',
      w_network w = n1 ++ MGetReq r c u k p :: n2 ->
      Alg.getGuard k p c r (w_replicas w r) = true ->
      Alg.get k p c r (w_replicas w r) = (v, q, rs') ->
      step w (LGetAtReplica r c u k) (setReplica w r rs' (n1 ++ n2 ++ [MGetRes c u k v q]))
  | StepGetRes : forall w n1 n2 c u k v q s,
      w_network w = n1 ++ MGetRes c u k v q :: n2 ->
      cs_prog (w_clients w c) = SBlockedGet u k s ->
      step w (LGetRes c u k v)
           (setClient w c (mkClient (Alg.getRes k v q c (cs_alg (w_clients w c))) s)
                      (n1 ++ n2))
  | StepPutReq : forall w c u k v s p cs',
      cs_prog (w_clients w c) = SPut u k v s ->
      Alg.putReq k v c (cs_alg (w_clients w c)) = (p, cs') ->
      step w (LPutReq c u k v)
           (setClient w c (mkClient cs' s)
                      (w_network w ++ putMessages (w_reps w) c u k v p))
  | StepPutAtReplica : forall w n1 n2 r c u k v p,
      w_network w = n1 ++ MPutReq r c u k v p :: n2 ->
      Alg.putGuard k v p c r (w_replicas w r) = true ->
      step w (LPutAtReplica r c u k v)
           (setReplica w r (Alg.put k v p c r (w_replicas w r)) (n1 ++ n2)).

  (** Finite executions, extended at the end. *)
  Inductive step_star : WorldState -> list Label -> WorldState -> Prop :=
  | star_refl : forall w, step_star w [] w
  | star_step : forall w h w' l w'',
      step_star w h w' -> step w' l w'' -> step_star w (h ++ [l]) w''.

  Lemma star_one : forall w l w', step w l w' -> step_star w [l] w'.
  Proof. intros. apply (star_step w [] w l w'); [constructor | assumption]. Qed.

  Lemma star_trans : forall w h1 w', step_star w h1 w' ->
    forall h2 w'', step_star w' h2 w'' -> step_star w (h1 ++ h2) w''.
  Proof.
    intros w h1 w' H1 h2 w'' H2. induction H2.
    - rewrite app_nil_r. assumption.
    - rewrite app_assoc. econstructor; eauto.
  Qed.

End World.

(** A refinement of specification [S] by implementation [I] (IDS §2.3): a
    relation between worlds that holds initially and is preserved by every
    implementation step, matched by spec steps with the same observations. *)
Module Type Refinement (I S : AlgDef).
  Module WI := World I.
  Module WS := World S.
  Parameter R : WI.WorldState -> WS.WorldState -> Prop.
  Parameter init_sim : forall reps a v0, R (WI.initWorld reps a v0) (WS.initWorld reps a v0).
  Parameter step_sim : forall wi ws l wi', R wi ws -> WI.step wi l wi' ->
    exists hs ws', WS.step_star ws hs ws' /\ R wi' ws' /\ obs_of_label l = obs_proj hs.
End Refinement.

(** Forward simulation implies trace inclusion (IDS §2.3, Theorem 1). *)
Module TraceInclusion (I S : AlgDef) (Ref : Refinement I S).

  Lemma star_sim : forall wi0 h wi, Ref.WI.step_star wi0 h wi ->
    forall ws0, Ref.R wi0 ws0 ->
    exists hs ws, Ref.WS.step_star ws0 hs ws /\ Ref.R wi ws /\ obs_proj h = obs_proj hs.
  Proof.
    intros wi0 h wi H. induction H as [w | w h w' l w'' Hstar IH Hstep]; intros ws0 HR.
    - exists [], ws0. split; [constructor | auto].
    - destruct (IH ws0 HR) as [hs [ws [Hs [HR' Hobs]]]].
      destruct (Ref.step_sim _ _ _ _ HR' Hstep) as [hs' [ws' [Hs' [HR'' Hobs']]]].
      exists (hs ++ hs'), ws'. split; [eapply Ref.WS.star_trans; eauto | split; auto].
      rewrite !obs_proj_app, Hobs, <- Hobs'. simpl. rewrite app_nil_r. reflexivity.
  Qed.

  Theorem trace_inclusion : forall reps a v0 h wi,
    Ref.WI.step_star (Ref.WI.initWorld reps a v0) h wi ->
    exists hs ws, Ref.WS.step_star (Ref.WS.initWorld reps a v0) hs ws /\
                  obs_proj h = obs_proj hs.
  Proof.
    intros reps a v0 h wi H.
    destruct (star_sim _ _ _ H _ (Ref.init_sim reps a v0)) as [hs [ws [Hs [_ Hobs]]]].
    eauto.
  Qed.

End TraceInclusion.
