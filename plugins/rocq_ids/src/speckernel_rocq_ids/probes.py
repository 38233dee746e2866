"""Semantic non-vacuity probes: small Coq files run against the candidate's compiled module.

Each probe rejects one vacuous pattern of IDS App. F.3 by computation rather than by reading the
source, so renaming or restating the pattern does not hide it: a ``put`` that ignores its value,
a ``getGuard`` (or ``putGuard``) that never waits, replicas that never show another client's
put (trace inclusion alone allows it: a put may stay in flight forever), and state types that
are the spec's own uncompressed histories (the spec re-exported as the implementation). A task
lists the probes its guarantee makes meaningful: an always-true ``getGuard`` is correct under
Monotonic Writes.
"""

from __future__ import annotations

import attrs

from speckernel_rocq_ids.tasks import Obligation


@attrs.frozen
class Probe:
    """``body`` uses ``I`` (the implementation) and ``S`` (the spec). When ``evaluates``, it
    defines a boolean ``probe`` and the file proves ``probe = true`` by computation, inside
    Coq; otherwise the body itself must compile. Either way the probe passes exactly when coqc
    exits 0: nothing is read from its output. The candidate's file is required, not imported,
    and every name outside ``I`` and ``S`` is written in full, so no definition, notation or
    tactic of the candidate's can change what a probe computes."""

    name: str
    rejects: str
    body: str
    evaluates: bool = True

    def source(self, obligation: Obligation) -> str:
        spec = obligation.spec_file.removesuffix(".v")
        text = (f"From IDS Require KVStore {spec} Impl.\n"
                f"Module I := IDS.Impl.{obligation.impl_module}.\n"
                f"Module S := IDS.{spec}.{obligation.spec_module}.\n{self.body}\n")
        return text + PROVED if self.evaluates else text


PROVED = """\
Lemma probe_holds :
  @Coq.Init.Logic.eq Coq.Init.Datatypes.bool probe Coq.Init.Datatypes.true.
Proof. vm_compute. reflexivity. Qed.
"""
"""What an evaluating probe ends with: coqc exits 0 only if ``probe`` computes to ``true``."""

_AND = "Coq.Init.Datatypes.andb"
_NOT = "Coq.Init.Datatypes.negb"
_EQ = "Coq.Init.Nat.eqb"


PROBES = {probe.name: probe for probe in (
    Probe("put_visible", "a put that ignores its value (constant put)", f"""\
Definition probe : Coq.Init.Datatypes.bool :=
  let '(p1, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(p2, c2) := I.putReq 3 8 1 c1 in
  let r0 := I.rInit 0 5 in
  let r1 := I.put 3 7 p1 1 0 r0 in
  let r2 := I.put 3 8 p2 1 0 r1 in
  let '(g, _) := I.getReq 3 1 c2 in
  let '(v, _, _) := I.get 3 g 1 0 r2 in
  {_AND} (I.putGuard 3 7 p1 1 0 r0) ({_AND} (I.putGuard 3 8 p2 1 0 r1)
    ({_AND} (I.getGuard 3 g 1 0 r2) ({_EQ} v 8))).
"""),
    Probe("get_waits_for_own_put", "a getGuard that never blocks (always true)", f"""\
Definition probe : Coq.Init.Datatypes.bool :=
  let '(_, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(g, _) := I.getReq 3 1 c1 in
  {_NOT} (I.getGuard 3 g 1 0 (I.rInit 0 5)).
"""),
    Probe("put_waits_for_own_earlier_put", "a putGuard that never blocks (always true)", f"""\
Definition probe : Coq.Init.Datatypes.bool :=
  let '(_, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(p2, _) := I.putReq 4 8 1 c1 in
  {_NOT} (I.putGuard 4 8 p2 1 0 (I.rInit 0 5)).
"""),
    Probe("get_waits_for_seen_put", "a getGuard that ignores what the client already read",
          f"""\
Definition probe : Coq.Init.Datatypes.bool :=
  let '(p, _) := I.putReq 3 7 2 (I.cInit 2) in
  let r0 := I.put 3 7 p 2 0 (I.rInit 0 5) in
  let '(g1, c1) := I.getReq 3 1 (I.cInit 1) in
  let '(v, q, _) := I.get 3 g1 1 0 r0 in
  let '(g2, _) := I.getReq 3 1 (I.getRes 3 v q 1 c1) in
  {_AND} (I.putGuard 3 7 p 2 0 (I.rInit 0 5)) ({_AND} (I.getGuard 3 g1 1 0 r0)
    ({_AND} ({_EQ} v 7) ({_NOT} (I.getGuard 3 g2 1 1 (I.rInit 1 5))))).
"""),
    Probe("put_propagates", "a store whose replicas never show another client's put", f"""\
Definition probe : Coq.Init.Datatypes.bool :=
  let '(p, _) := I.putReq 3 7 2 (I.cInit 2) in
  let r0 := I.put 3 7 p 2 0 (I.rInit 0 5) in
  let '(g, _) := I.getReq 3 1 (I.cInit 1) in
  {_AND} (I.putGuard 3 7 p 2 0 (I.rInit 0 5)) ({_AND} (I.getGuard 3 g 1 0 r0)
    ({_EQ} (Coq.Init.Datatypes.fst (Coq.Init.Datatypes.fst (I.get 3 g 1 0 r0))) 7)).
"""),
    Probe("state_compressed", "the spec's own history state reused (spec aliasing)", """\
Fail Check (@Coq.Init.Logic.eq_refl Type I.RState : @Coq.Init.Logic.eq Type I.RState S.RState).
Fail Check (@Coq.Init.Logic.eq_refl Type I.CState : @Coq.Init.Logic.eq Type I.CState S.CState).
""", evaluates=False),
)}
"""Every probe by name; a task's obligation names the ones it runs."""
