"""Coq scripts for equivalence checks, run by one ``coqtop`` process in the kernel sandbox.

A session is a script piped into ``coqtop -q`` (stderr merged into stdout, so error messages
stay next to what caused them). ``coqtop`` keeps going after an error, which lets one process
try several proofs and serve several checks: the *warm* mode loads the libraries once and then
runs every check of a batch, each inside its own ``Module`` named after a random key. The
sandbox only runs a process to completion (no long-lived interactive process), so a warm session
lives for one batch.

Every step of a check is announced by a marker definition ``<key>_at_<step>``; Coq answers
``<key>_at_<step> is defined``, and the output between two markers belongs to that step. Keys are
random, so untrusted text cannot print a marker (it cannot print anything: see :mod:`.gallina`).

File shape of one check (``K`` the key, ``T`` the task's type, ``n`` the definition name)::

    Module K.
      <preamble>
      Module K_oracle. <oracle sentences> End K_oracle.
      Module K_candidate. Timeout t <candidate sentence>. ... End K_candidate.
      Definition K_orac : T := K_oracle.n.
      Definition K_cand : T := K_candidate.n.
      (* refute: search the inputs by computation, then prove the witness by vm_compute *)
      Definition K_inputs := <inputs>.
      Timeout t Definition K_w := Eval vm_compute in <first index with different results>.
      Lemma K_refuted : match K_w with Some (k, x) => K_cand x <> K_orac x | None => True end.
      Proof. vm_compute. first [exact I | discriminate]. Qed.
      Print Assumptions K_refuted.
      (* prove *)
      Theorem K_equiv : forall (x1 : A1) ..., K_cand x1 ... = K_orac x1 ...   (<-> for Prop)
      Proof. first [solve [timeout s (<tactic>)] | ...]. Qed.
      Print Assumptions K_equiv.
      Abort All.
    End K.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

import attrs

from speckernel_respec.domains.coq_types import Signature, Type, Value
from speckernel_respec.domains.gallina import Sentence, plain_definitions

CLOSED = "Closed under the global context"
"""What ``Print Assumptions`` says of a proof that uses no axiom."""

PRELUDE = """\
Require Import Coq.Arith.PeanoNat Coq.micromega.Lia Coq.Bool.Bool.
From Hammer Require Import Tactics.
Ltac respec_cases := repeat match goal with
  | |- context [Nat.eqb ?a ?b] => destruct (Nat.eqb_spec a b)
  | |- context [Nat.leb ?a ?b] => destruct (Nat.leb_spec0 a b)
  | |- context [Nat.ltb ?a ?b] => destruct (Nat.ltb_spec0 a b)
  end.
Ltac respec_leaf := first [reflexivity | lia | exfalso; lia | congruence | tauto].
Ltac respec_close := simpl in *; first [respec_leaf | respec_cases; simpl in *; respec_leaf].
"""
"""Loaded once per session: the cheap decision tactics every proof attempt may use."""

HAMMER_PRELUDE = "From Hammer Require Import Hammer.\nSet Hammer ATPLimit {atp}.\n"
QUICKCHICK_PRELUDE = "From QuickChick Require Import QuickChick.\n"

_MARKER = re.compile(r"\b(k[0-9a-f]{12})_at_(\w+) is defined")
_ERROR = re.compile(r"^Error:(.*?)(?=^\S*\s*<|\Z)", re.S | re.M)


def new_key() -> str:
    """A fresh check key: the prefix of every name the check's script defines."""
    return "k" + secrets.token_hex(6)


@attrs.frozen
class Check:
    """One equivalence question: is ``candidate`` the same function as ``oracle``?"""

    key: str
    name: str
    type_text: str
    signature: Signature
    preamble: tuple[Sentence, ...]
    oracle: tuple[Sentence, ...]
    candidate: tuple[Sentence, ...]

    @property
    def arity(self) -> int:
        return len(self.signature.args)

    def marker(self, step: str) -> str:
        return f"Definition {self.key}_at_{step} := tt."

    def binders(self) -> str:
        return " ".join(f"(x{i} : {a})" for i, a in enumerate(self.signature.args, 1))

    def applied(self, fn: str) -> str:
        return " ".join([f"{self.key}_{fn}", *(f"x{i}" for i in range(1, self.arity + 1))])

    def statement(self) -> str:
        relation = "<->" if self.signature.is_prop else "="
        body = f"{self.applied('cand')} {relation} {self.applied('orac')}"
        return f"forall {self.binders()}, {body}" if self.arity else body

    def unfoldable(self) -> list[str]:
        names = [f"{self.key}_cand", f"{self.key}_orac"]
        names += [f"{self.key}_oracle.{n}" for n in plain_definitions(list(self.oracle))]
        names += [f"{self.key}_candidate.{n}" for n in plain_definitions(list(self.candidate))]
        return names


# --------------------------------------------------------------------------- script parts


def load(check: Check, timeout: int) -> str:
    """Open the check's module and define ``K_orac`` and ``K_cand`` at the task's type."""
    k = check.key
    lines = [f"Module {k}.", *(s.render() for s in check.preamble),
             check.marker("oracle"), f"Module {k}_oracle.",
             *(s.render() for s in check.oracle), f"End {k}_oracle.",
             check.marker("candidate"), f"Module {k}_candidate.",
             *(_bounded(s, timeout) for s in check.candidate), f"End {k}_candidate.",
             check.marker("bind"),
             f"Definition {k}_orac : {check.type_text} := {k}_oracle.{check.name}.",
             f"Definition {k}_cand : {check.type_text} := {k}_candidate.{check.name}."]
    return "\n".join(lines) + "\n"


def _bounded(sentence: Sentence, timeout: int) -> str:
    if sentence.head in ("Definition", "Fixpoint", "Inductive"):
        return f"Timeout {timeout} {sentence.render()}"
    return sentence.render()


def close(check: Check) -> str:
    return f"End {check.key}.\n"


def _tuple(check: Check) -> tuple[str, str]:
    """The type of an argument tuple and a pattern binding ``x1 .. xn`` in it."""
    types = [t.coq() for t in check.signature.arg_types if t is not None]
    if not types:
        return "unit", "_"
    typ, pattern = types[0], "x1"
    for i, t in enumerate(types[1:], 2):
        typ, pattern = f"(prod {typ} {t})", f"(pair {pattern} x{i})"
    return typ, pattern


def _tuple_term(types: Sequence[Type], values: Sequence[Value]) -> str:
    if not types:
        return "tt"
    term = types[0].term(values[0])
    for t, v in zip(types[1:], values[1:], strict=True):
        term = f"(pair {term} {t.term(v)})"
    return term


def refute(check: Check, inputs: Sequence[Sequence[Value]], timeout: int) -> str:
    """Search ``inputs`` by computation for one where the two sides differ, then prove that
    they differ there (``vm_compute; discriminate``, checked by the kernel at ``Qed``)."""
    sig = check.signature
    result = sig.result_type
    types = [t for t in sig.arg_types if t is not None]
    assert result is not None and len(types) == check.arity
    k = check.key
    typ, pattern = _tuple(check)
    items = "nil"
    for values in reversed(inputs):
        items = f"(cons {_tuple_term(types, values)} {items})"
    differs = (f"negb ({result.eqb()} ({check.applied('cand')}) ({check.applied('orac')}))")
    search = (f"(fix find (i : nat) (l : list {typ}) {{struct l}} : option (prod nat {typ}) := "
              f"match l with nil => None | cons p t => if (match p with {pattern} => {differs} "
              "end) then Some (pair i p) else find (S i) t end) 0 " + f"{k}_inputs")
    on_witness = f"match {k}_w with Some (pair _ p) => match p with {pattern} => {{}} end "
    return "\n".join([
        check.marker("refute"),
        f"Definition {k}_inputs : list {typ} := {items}.",
        f"Timeout {timeout} Definition {k}_w := Eval vm_compute in {search}.",
        f"Lemma {k}_refuted : {on_witness.format(_neq(check))}| None => True end.",
        "Proof. vm_compute. first [exact I | discriminate]. Qed.",
        check.marker("assumptions"),
        f"Print Assumptions {k}_refuted.",
        check.marker("index"),
        f"Eval vm_compute in match {k}_w with Some (pair i _) => S i | None => 0 end.",
        check.marker("cand_value"),
        f"Eval vm_compute in {on_witness.format('Some (' + check.applied('cand') + ')')}"
        "| None => None end.",
        check.marker("orac_value"),
        f"Eval vm_compute in {on_witness.format('Some (' + check.applied('orac') + ')')}"
        "| None => None end.",
        check.marker("refuted"),
    ]) + "\n"


def _neq(check: Check) -> str:
    return f"{check.applied('cand')} <> {check.applied('orac')}"


def prove(check: Check, tactics: Sequence[str], per_tactic: int, step: str = "prove",
          refuting: bool = False) -> str:
    """State the equivalence and try ``tactics`` in turn, each under ``timeout per_tactic``;
    when ``refuting`` (after :func:`refute` in the same session), only if no witness was found."""
    k = check.key
    guard = (f"lazymatch eval vm_compute in {k}_w with None => idtac end; " if refuting
             else "")
    names = ", ".join(check.unfoldable())
    attempts = " | ".join(f"solve [timeout {per_tactic} (intros; unfold {names} in *; {t})]"
                          for t in tactics)
    return "\n".join([
        check.marker(step),
        f"Theorem {k}_{step} : {check.statement()}.",
        f"Proof. {guard}first [{attempts}]. Qed.",
        check.marker(f"{step}_assumptions"),
        f"Print Assumptions {k}_{step}.",
        "Abort All.",
        check.marker(f"{step}_done"),
    ]) + "\n"


def quickchick(check: Check) -> str:
    """Random testing with QuickChick's derived generators (extracted to OCaml and run)."""
    result = check.signature.result_type
    assert result is not None
    body = f"{result.eqb()} ({check.applied('cand')}) ({check.applied('orac')})"
    fun = f"fun {check.binders()} => {body}" if check.arity else body
    return "\n".join([check.marker("quickchick"), f"QuickChick ({fun}).",
                      check.marker("quickchick_done")]) + "\n"


def tactics(check: Check, *finishers: str) -> list[str]:
    """Proof attempts, for each finisher in turn: directly, after induction on each argument
    (the other arguments generalised) and after case analysis on each argument."""
    xs = [f"x{i}" for i in range(1, check.arity + 1)]
    attempts = []
    for finisher in finishers:
        attempts.append(finisher)
        for x in xs:
            others = " ".join(y for y in xs if y != x)
            revert = f"revert {others}; " if others else ""
            attempts.append(f"{revert}induction {x}; intros; {finisher}")
        attempts += [f"destruct {x}; {finisher}" for x in xs]
    return attempts


# --------------------------------------------------------------------------- transcripts


@attrs.frozen
class Transcript:
    """A session's merged output, cut into the steps its markers announce."""

    output: str

    def steps(self, key: str) -> dict[str, str]:
        """Each step of check ``key`` with the output it produced."""
        found = list(_MARKER.finditer(self.output))
        out: dict[str, str] = {}
        for i, match in enumerate(found):
            if match.group(1) == key:
                end = found[i + 1].start() if i + 1 < len(found) else len(self.output)
                out[match.group(2)] = self.output[match.end():end]
        return out


def first_error(text: str) -> str | None:
    """The first Coq error message in ``text``, on one line."""
    match = _ERROR.search(text)
    if match is None:
        return None
    return " ".join(match.group(1).split())[:500]


def printed_value(text: str) -> str | None:
    """The ``v`` of an ``= Some v : T`` answer to ``Eval``, or None."""
    match = re.search(r"=\s*Some\s+(.*?)\s*\n\s*:", text, re.S)
    if match is None:
        return None
    value = " ".join(match.group(1).split())
    return value[1:-1] if value.startswith("(") and value.endswith(")") else value


def printed_nat(text: str) -> int | None:
    match = re.search(r"=\s*(\d+)", text)
    return int(match.group(1)) if match else None


def counterexample_lines(text: str, arity: int) -> list[str] | None:
    """The values QuickChick printed for a failing test (one line per argument), or None."""
    lines = text.splitlines()
    failed = next((i for i, line in enumerate(lines) if line.startswith("*** Failed")), None)
    if failed is None:
        return None
    shown = [line.strip() for line in lines[:failed] if line.strip()]
    return shown[len(shown) - arity:] if arity else []
