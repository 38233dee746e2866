"""``rocq_ids.extract``: the extracted store links with the runtime and keeps its state bounded
(IDS's design rule, checked on the running store); each way a store can break it is caught by
a store exhibiting it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import candidate, reference
from speckernel.model import Status, Task, Verdict

from speckernel_rocq_ids.coqbuild import StepResult
from speckernel_rocq_ids.extraction import (
    Checkpoint,
    ExtractionVerifier,
    ProbeConfig,
    bounded_findings,
    grew,
    probe_findings,
)
from speckernel_rocq_ids.sources import coq_source
from speckernel_rocq_ids.storebuild import StoreBuild
from speckernel_rocq_ids.tasks import Obligation

pytestmark = pytest.mark.anyio

LOG_STORE = """\
From Coq Require Import List Arith.
From IDS Require Import KVStore MW.
Import ListNotations.

Module MW_Impl <: AlgDef.
  Definition CState := nat.
  (** The initial value and every applied put (key, value, writer), newest first. *)
  Definition RState := (Val * list (Key * Val * ClientId))%type.
  Fixpoint latest (v0 : Val) (log : list (Key * Val * ClientId)) (k : Key) : Val :=
    match log with
    | [] => v0
    | (k', v, _) :: rest => if Nat.eqb k k' then v else latest v0 rest k
    end.
  Definition applied (rs : RState) (c : ClientId) : nat :=
    length (filter (fun e => Nat.eqb (snd e) c) (snd rs)).
  Definition cInit (_ : ClientId) : CState := 0.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (v0, []).
  Definition GetReqPayload := unit.
  Definition GetResPayload := unit.
  Definition PutReqPayload := nat.
  Definition GetReqPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition GetResPayload_eq_dec := GetReqPayload_eq_dec.
  Definition PutReqPayload_eq_dec := Nat.eq_dec.
  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : unit * CState := (tt, cs).
  Definition getGuard (_ : Key) (_ : unit) (_ : ClientId) (_ : ReplicaId) (_ : RState) :=
    true.
  Definition get (k : Key) (_ : unit) (_ : ClientId) (_ : ReplicaId) (rs : RState) :=
    (latest (fst rs) (snd rs) k, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : unit) (_ : ClientId) (cs : CState) := cs.
  Definition putReq (_ : Key) (_ : Val) (_ : ClientId) (cs : CState) := (cs, S cs).
  Definition putGuard (_ : Key) (_ : Val) (p : nat) (c : ClientId) (_ : ReplicaId)
    (rs : RState) := applied rs c =? p.
  Definition put (k : Key) (v : Val) (_ : nat) (c : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := (fst rs, (k, v, c) :: snd rs).
End MW_Impl.
"""
"""A Monotonic-Writes store whose replica keeps a log that grows with every put."""

HOARDING_STORE = """\
From Coq Require Import List Arith.
From IDS Require Import KVStore MW.
Import ListNotations.

Module MW_Impl <: AlgDef.
  Definition CState := unit.
  (** Values, and a hoard that every put makes 10^5 cells longer. *)
  Definition RState := ((Key -> Val) * list nat)%type.
  Definition cInit (_ : ClientId) : CState := tt.
  Definition rInit (_ : ReplicaId) (v0 : Val) : RState := (fun _ => v0, []).
  Definition GetReqPayload := unit.
  Definition GetResPayload := unit.
  Definition PutReqPayload := unit.
  Definition GetReqPayload_eq_dec (x y : unit) : {x = y} + {x <> y} :=
    match x, y with tt, tt => left eq_refl end.
  Definition GetResPayload_eq_dec := GetReqPayload_eq_dec.
  Definition PutReqPayload_eq_dec := GetReqPayload_eq_dec.
  Definition getReq (_ : Key) (_ : ClientId) (cs : CState) : unit * CState := (tt, cs).
  Definition getGuard (_ : Key) (_ : unit) (_ : ClientId) (_ : ReplicaId) (_ : RState) := true.
  Definition get (k : Key) (_ : unit) (_ : ClientId) (_ : ReplicaId) (rs : RState) :=
    (fst rs k, tt, rs).
  Definition getRes (_ : Key) (_ : Val) (_ : unit) (_ : ClientId) (cs : CState) := cs.
  Definition putReq (_ : Key) (_ : Val) (_ : ClientId) (cs : CState) := (tt, cs).
  Definition putGuard (_ : Key) (_ : Val) (_ : unit) (_ : ClientId) (_ : ReplicaId)
    (_ : RState) := true.
  Definition put (k : Key) (v : Val) (_ : unit) (_ : ClientId) (_ : ReplicaId)
    (rs : RState) : RState := (upd (fst rs) k v, repeat v (Nat.pow 10 5) ++ snd rs).
End MW_Impl.
"""
"""A store whose replicas hoard 10^5 list cells per put: it runs out of memory long before the
probe ends."""

MW_PUT = "mkReplica (initial rs) (NatMap.add k v (values rs))"
RYW_GET_GUARD = "(rs : RState) : bool := p <=? count (snd (cell rs k)) c."


def store_only(text: str, prefix: str) -> str:
    """The implementation module alone: extraction needs no proof."""
    return text.split(f"Module {prefix}_Local")[0]


def mutate(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def before_store(text: str, prefix: str, definition: str) -> str:
    """``definition`` inserted just before the implementation module."""
    return mutate(text, f"Module {prefix}_Impl <: AlgDef.",
                  f"{definition}\nModule {prefix}_Impl <: AlgDef.")


async def extract(make_ctx: Callable[..., Any], task: Task, impl: str,
                  config: ProbeConfig | None = None, proved: bool = False) -> Verdict:
    """The extraction verifier on ``impl``; stores without a proof are extracted unproved."""
    verifier = ExtractionVerifier()
    verifier.proved = proved
    if config is not None:
        verifier.config = config
    return await verifier.verify(candidate(**{"Impl.v": impl}), task, make_ctx())


def codes(verdict: Verdict) -> set[str | None]:
    return {d.code for d in verdict.diagnostics}


async def test_balanced_map_store_is_bounded(make_ctx: Callable[..., Any],
                                                 tasks: dict[str, Task]) -> None:
    verdict = await extract(make_ctx, tasks["ryw"], reference(tasks["ryw"]), proved=True)
    assert verdict.status is Status.SUCCESS, verdict.summary()
    assert "store:RYW_Correct.v" in verdict.data["step_s"]
    assert max(verdict.data["keys"]) > 1 << 60 and min(verdict.data["keys"]) < 8
    first, last = verdict.data["checkpoints"]
    assert (first["ops"], last["ops"]) == (900, 9000)
    assert first["replica_words"] == last["replica_words"] > 0
    assert first["client_words"] == last["client_words"] > 0


async def test_function_state_grows_once_extracted(make_ctx: Callable[..., Any],
                                                   tasks: dict[str, Task]) -> None:
    """The expert-style store (functions from keys built by ``upd``) is bounded in the abstract,
    but each put wraps one more closure: its running state grows with the operations."""
    verdict = await extract(make_ctx, tasks["ryw"], coq_source("reference", "RYW_Expert.v"))
    assert verdict.status is Status.FAILURE
    assert codes(verdict) == {"bounded_state"}
    assert "replica state is not bounded" in verdict.summary()
    assert "client state is not bounded" in verdict.summary()


async def test_log_that_grows_per_put_is_rejected(make_ctx: Callable[..., Any],
                                                  tasks: dict[str, Task]) -> None:
    verdict = await extract(make_ctx, tasks["mw"], LOG_STORE)
    assert verdict.status is Status.FAILURE
    assert "replica state is not bounded" in verdict.summary()
    assert "client state" not in verdict.summary()


async def test_get_that_is_never_served_is_stuck(make_ctx: Callable[..., Any],
                                                 tasks: dict[str, Task]) -> None:
    stuck = mutate(store_only(reference(tasks["ryw"]), "RYW"), RYW_GET_GUARD,
                   "(rs : RState) : bool := false.")
    verdict = await extract(make_ctx, tasks["ryw"], stuck)
    assert verdict.status is Status.FAILURE
    assert codes(verdict) == {"liveness"}
    assert "guard that never holds" in verdict.summary()


async def test_store_that_overflows_its_stack_crashes(make_ctx: Callable[..., Any],
                                                      tasks: dict[str, Task]) -> None:
    deep = before_store(store_only(reference(tasks["mw"]), "MW"), "MW",
                        "Fixpoint depth (n : nat) : nat := match n with 0 => 0 | S m => "
                        "S (depth m) end.")
    deep = mutate(deep, MW_PUT, MW_PUT.replace("k v", "k (depth (v * 9))"))
    verdict = await extract(make_ctx, tasks["mw"], deep)
    assert verdict.status is Status.FAILURE
    assert codes(verdict) == {"store_crash"}
    assert "exception Stack overflow" in verdict.summary()


async def test_store_that_spins_times_out(make_ctx: Callable[..., Any],
                                          tasks: dict[str, Task]) -> None:
    spin = before_store(store_only(reference(tasks["mw"]), "MW"), "MW",
                        "Fixpoint spin (n acc : nat) : nat := match n with 0 => acc | S m => "
                        "spin m (S acc) end.")
    spin = mutate(spin, MW_PUT, MW_PUT.replace("k v", "k (spin (v * v) 0)"))
    verdict = await extract(make_ctx, tasks["mw"], spin, ProbeConfig(timeout_s=3))
    assert verdict.status is Status.TIMEOUT
    assert "within 3 s" in verdict.summary()


async def test_store_that_exhausts_memory_is_a_memory_failure(make_ctx: Callable[..., Any],
                                                             tasks: dict[str, Task]) -> None:
    """The OOM killer's SIGKILL is reported as memory, not as a wall-clock timeout."""
    verdict = await extract(make_ctx, tasks["mw"], HOARDING_STORE)
    assert verdict.status is Status.FAILURE, verdict.summary()
    assert codes(verdict) == {"memory"} and "ran out of memory" in verdict.summary()


async def test_a_store_whose_gets_break_the_spec_is_a_consistency_failure(
        make_ctx: Callable[..., Any], tasks: dict[str, Task]) -> None:
    """Unproved, a store whose get answers 0 for every key but the probes' 3 runs live and
    bounded; the history check names the get that returned a value no RYW replica holds."""
    wrong = mutate(store_only(reference(tasks["ryw"]), "RYW"),
                   "    : Val * GetResPayload * RState := (fst (cell rs k), tt, rs).",
                   "    : Val * GetResPayload * RState :=\n"
                   "    (if Nat.eqb k 3 then fst (cell rs k) else 0, tt, rs).")
    verdict = await extract(make_ctx, tasks["ryw"], wrong)
    assert verdict.status is Status.FAILURE, verdict.summary()
    assert codes(verdict) == {"consistency"}
    assert "break ryw" in verdict.summary() and "returned the initial value" in verdict.summary()


async def test_extraction_of_a_broken_store_names_the_step(make_ctx: Callable[..., Any],
                                                           tasks: dict[str, Task]) -> None:
    verdict = await extract(make_ctx, tasks["ryw"], "Definition oops := undefined_name.\n")
    assert verdict.status is Status.FAILURE
    assert "coqc Impl.v failed" in verdict.summary()


def test_growth_is_more_than_half_again_plus_slack() -> None:
    assert not grew(219, 219) and not grew(0, 64) and not grew(100, 214)
    assert grew(100, 215) and grew(7525, 75066)


def test_bounded_findings_name_each_side() -> None:
    points = [Checkpoint(900, 7525, 48), Checkpoint(9000, 75066, 48)]
    found = bounded_findings(points)
    assert [d.code for d in found] == ["bounded_state"]
    assert found[0].message.startswith("replica state is not bounded: 7525 words after 900")


def test_probe_output_parsing() -> None:
    config = ProbeConfig()
    ok = ("checkpoint ops=900 replica_words=70 client_words=0 pending=0\n"
          "checkpoint ops=9000 replica_words=70 client_words=0 pending=0\n")
    assert probe_findings(0, ok, config) == (Status.SUCCESS, [])
    status, found = probe_findings(3, "stuck ops=12 blocked=3\n", config)
    assert status is Status.FAILURE and "after 12 operations: 3 gets" in found[0].message
    status, found = probe_findings(2, "Fatal error: exception Not_found\n", config)
    assert found[0].code == "store_crash" and "Not_found" in found[0].message


def test_store_build_failure_names_the_stage(tasks: dict[str, Task]) -> None:
    build = StoreBuild("store", Obligation.of(tasks["mw"]))
    names = [s.name for s in build.steps()]
    assert names == ["store:KVStore.v", "store:Simulation.v", "store:MW.v", "store:Impl.v",
                     "store:MW_Correct.v", "store:Extract.v", "store:ocaml"]
    done = {n: StepResult(n, 0, "", 0.1) for n in names[:-1]}
    done["store:ocaml"] = StepResult("store:ocaml", 2, 'File "ids_main.ml", line 1:\nError: '
                                     "Signature mismatch", 0.1)
    assert build.failure(done) == ("the extracted store does not link with the replica "
                                   'runtime: File "ids_main.ml", line 1: | Error: Signature '
                                   "mismatch")
    assert build.failure({**done, "store:ocaml": StepResult("store:ocaml", 0, "", 0.1)}) is None
