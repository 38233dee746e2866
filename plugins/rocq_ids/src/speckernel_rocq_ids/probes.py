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
    defines a boolean ``probe`` that must compute to ``true``; otherwise it must compile."""

    name: str
    rejects: str
    body: str
    evaluates: bool = True

    def source(self, obligation: Obligation) -> str:
        spec = obligation.spec_file.removesuffix(".v")
        text = (f"From IDS Require Import KVStore {spec} Impl.\n"
                f"Module I := {obligation.impl_module}.\nModule S := {obligation.spec_module}.\n"
                f"{self.body}\n")
        return text + ("Eval vm_compute in probe.\n" if self.evaluates else "")

    def passed(self, returncode: int, output: str) -> bool:
        if returncode != 0:
            return False
        return not self.evaluates or "= true" in output


PROBES = {probe.name: probe for probe in (
    Probe("put_visible", "a put that ignores its value (constant put)", """\
Definition probe : bool :=
  let '(p1, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(p2, c2) := I.putReq 3 8 1 c1 in
  let r0 := I.rInit 0 5 in
  let r1 := I.put 3 7 p1 1 0 r0 in
  let r2 := I.put 3 8 p2 1 0 r1 in
  let '(g, _) := I.getReq 3 1 c2 in
  let '(v, _, _) := I.get 3 g 1 0 r2 in
  I.putGuard 3 7 p1 1 0 r0 && I.putGuard 3 8 p2 1 0 r1 && I.getGuard 3 g 1 0 r2 && Nat.eqb v 8.
"""),
    Probe("get_waits_for_own_put", "a getGuard that never blocks (always true)", """\
Definition probe : bool :=
  let '(_, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(g, _) := I.getReq 3 1 c1 in
  negb (I.getGuard 3 g 1 0 (I.rInit 0 5)).
"""),
    Probe("put_waits_for_own_earlier_put", "a putGuard that never blocks (always true)", """\
Definition probe : bool :=
  let '(_, c1) := I.putReq 3 7 1 (I.cInit 1) in
  let '(p2, _) := I.putReq 4 8 1 c1 in
  negb (I.putGuard 4 8 p2 1 0 (I.rInit 0 5)).
"""),
    Probe("get_waits_for_seen_put", "a getGuard that ignores what the client already read",
          """\
Definition probe : bool :=
  let '(p, _) := I.putReq 3 7 2 (I.cInit 2) in
  let r0 := I.put 3 7 p 2 0 (I.rInit 0 5) in
  let '(g1, c1) := I.getReq 3 1 (I.cInit 1) in
  let '(v, q, _) := I.get 3 g1 1 0 r0 in
  let '(g2, _) := I.getReq 3 1 (I.getRes 3 v q 1 c1) in
  I.putGuard 3 7 p 2 0 (I.rInit 0 5) && I.getGuard 3 g1 1 0 r0 && Nat.eqb v 7 &&
  negb (I.getGuard 3 g2 1 1 (I.rInit 1 5)).
"""),
    Probe("put_propagates", "a store whose replicas never show another client's put", """\
Definition probe : bool :=
  let '(p, _) := I.putReq 3 7 2 (I.cInit 2) in
  let r0 := I.put 3 7 p 2 0 (I.rInit 0 5) in
  let '(g, _) := I.getReq 3 1 (I.cInit 1) in
  I.putGuard 3 7 p 2 0 (I.rInit 0 5) && I.getGuard 3 g 1 0 r0 &&
  Nat.eqb (fst (fst (I.get 3 g 1 0 r0))) 7.
"""),
    Probe("state_compressed", "the spec's own history state reused (spec aliasing)", """\
Fail Check (eq_refl : @eq Type I.RState S.RState).
Fail Check (eq_refl : @eq Type I.CState S.CState).
""", evaluates=False),
)}
"""Every probe by name; a task's obligation names the ones it runs."""
