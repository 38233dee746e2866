"""The candidate-command allow-list and the lexer under it.

Property tests hide refused commands behind comments (nested, holding strings that hold comment
terminators), line breaks and prefixes, and check that the refusal still names the command's
line; the lexer is compared with coqc itself on generated text (a sentence count is what coqc
reports back for each ``Check``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speckernel_rocq_ids.commands import check
from speckernel_rocq_ids.coqbuild import Step, run_build
from speckernel_rocq_ids.coqlex import LexError, blank_comments, sentences
from speckernel_rocq_ids.sources import coq_source

REFUSED = [
    "Axiom ax : False.", "Parameter p : nat.", "Conjecture c : 1 = 2.", "Admitted.",
    "admit.", "give_up.", "Admit Obligations.", "Load \"/etc/hostname\".",
    "Redirect \"/tmp/x\" Print nat.", "Cd \"/\".", "Add LoadPath \"/\" as X.",
    "Add Rec LoadPath \"/\" as X.", "Add ML Path \"/\".", "Declare ML Module \"foo\".",
    "Drop.", "Unset Guard Checking.", "Local Unset Universe Checking.",
    "Unset Positivity Checking.", "Set Definitional UIP.", "Extraction \"/tmp/x.ml\" nat.",
    "Extract Constant plus => \"(+)\".", "Extract Inlined Constant plus => \"(+)\".",
    "Recursive Extraction nat.", "Extraction Inline plus.",
    "From Coq Require Import ExtrOcamlBasic.", "From Coq Require Extraction.",
    "Require Import Coq.extraction.ExtrOcamlNatInt.", "Require Import List.",
    "From Hammer Require Import Hammer.", "Variable v : False.", "Hypothesis h : False.",
    "Context (h : False).", "Declare Instance i : Inhabited False.",
    "Declare Module M : T.", "#[bypass_check(guard)] Fixpoint f (n : nat) : nat := f n.",
    "Private Inductive t := C.", "Abort All.", "Reset Initial.",
    "Global Set Printing All.", "Export Set Printing All.", "Set Printing All.",
    "Primitive int := #int63_type.", "Register bool as kernel.ind_bool.",
    "Frobnicate everything.",
]
"""One command per line of the issue's list, each refused on its own."""

ALLOWED = [
    "Definition x : nat := 0.", "Lemma l : True. Proof. exact I. Qed.",
    "Section S. Variable v : nat. Hypothesis h : v = v. Definition w := v. End S.",
    "From Coq Require Import List Arith.", "From IDS Require Import KVStore RYW.",
    "Require Import Coq.Lists.List.", "Set Implicit Arguments.", "Local Open Scope nat_scope.",
    "#[local] Hint Resolve eq_refl : core.", "Definition f : nat. exact 0. Defined.",
    "Notation \"x ++ y\" := (plus x y).", "Ltac crush := auto.",
    "Lemma l : True. Proof. crush. Qed.", "Module M. Definition y := 1. End M.",
    "Definition s := \"Axiom Load Unset\".", "(* Axiom ax : False. Admitted. *)",
    "Inductive t := A | B.", "Record r := { f : nat }.",
]


@pytest.mark.parametrize("command", REFUSED)
def test_each_refused_command_is_refused_with_its_line(command: str) -> None:
    text = f"Definition before := 0.\n{command}\nDefinition after := 1.\n"
    found = check(text, "Impl.v")
    assert found and found[0].line == 2 and found[0].file == "Impl.v", found
    assert found[0].message.startswith("line 2: ")


@pytest.mark.parametrize("text", ALLOWED)
def test_honest_commands_pass(text: str) -> None:
    assert check(text, "Impl.v") == []


@pytest.mark.parametrize("name", ["RYW_Impl.v", "MW_Impl.v", "RYW_Expert.v", "MW_Expert.v"])
def test_every_bundled_reference_passes(name: str) -> None:
    assert check(coq_source("reference", name), name) == []


def test_holes_are_accepted_only_for_drafts() -> None:
    draft = "Lemma l : True.\nProof. admit.\nAdmitted.\nVariable v : nat.\n"
    assert [d.line for d in check(draft, "Impl.v")] == [2, 3, 4]
    assert [d.line for d in check(draft, "Impl.v", holes=True)] == [4]


def test_unlexable_text_is_refused() -> None:
    assert "unterminated comment" in check("(* open", "Impl.v")[0].message
    assert "unterminated string" in check('Definition s := "open.', "Impl.v")[0].message


def comment_bodies() -> st.SearchStrategy[str]:
    """Text that coqc reads as the inside of a comment: plain text, nested comments, and
    strings (which may hold ``*)``, ``(*`` and doubled quotes)."""
    plain = st.text(st.sampled_from(list("ab .*()\n\t-+{}:=")), max_size=12).filter(
        lambda t: "(*" not in t and "*)" not in t and not t.endswith("(")
        and not t.startswith(")") and not t.endswith("*"))
    string = st.lists(st.sampled_from([*'xy .*()\n', '""', "*)", "(*"]), max_size=8).map(
        lambda t: '"' + "".join(t) + '"')
    return st.recursive(st.one_of(plain, string),
                        lambda inner: st.lists(st.one_of(inner, inner.map(
                            lambda t: f"(*{t}*)")), max_size=4).map(" ".join), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(command=st.sampled_from(REFUSED[:25]), body=comment_bodies(), breaks=st.integers(0, 3),
       where=st.integers(0, 50))
def test_comments_and_line_breaks_hide_no_command(command: str, body: str, breaks: int,
                                                  where: int) -> None:
    """A refused command with a comment (of any content coqc accepts) and line breaks put
    before or between its words is still refused, at the line its first word is on."""
    words = command.split(" ")
    at = where % len(words)
    hidden = " ".join([*words[:at], f"(*{body}*)" + "\n" * breaks, *words[at:]])
    text = f"Definition before := 0.\n{hidden}\n"
    first = text.index(words[0], text.index("\n"))  # the body has no letter a command uses
    found = check(text, "Impl.v")
    assert found and found[0].line == text.count("\n", 0, first) + 1, (hidden, found)


@settings(max_examples=300, deadline=None)
@given(body=comment_bodies())
def test_a_comment_hides_only_what_coqc_skips(body: str) -> None:
    """Inside a comment nothing counts; right after it, everything does."""
    assert check(f"(*{body}*)\n", "Impl.v") == []
    assert check(f"(*{body}*) Axiom ax : False.\n", "Impl.v")


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.sampled_from(list('ab(*)". \n')), max_size=60))
def test_blanking_keeps_positions(text: str) -> None:
    blanked = blank_comments(text)
    assert len(blanked) == len(text)
    assert [i for i, c in enumerate(text) if c == "\n"] == \
        [i for i, c in enumerate(blanked) if c == "\n"]


def test_a_string_in_a_comment_keeps_the_comment_open() -> None:
    """coqc reads ``(* "*)" *)`` as one comment: a naive scanner ends it early and then misses
    the command after the string; here the command after the real end is seen."""
    assert check('(* "*)" Axiom hidden : False. *)\n', "Impl.v") == []
    assert check('(* "(*" *) Axiom seen : False.\n', "Impl.v")
    assert len(sentences('(* "(*" *) Check 1.\nCheck 2.')) == 2
    with pytest.raises(LexError):
        sentences('(* "unterminated *)\n')


def generated(seed: int, count: int) -> tuple[str, int]:
    """Text of ``count`` ``Check`` sentences (numbered) separated by random comments, strings
    in comments, qualified names, projections and periods inside comments."""
    rng = random.Random(seed)
    decorations = ['(* . *)', '(* "*)" . *)', '(* (* . *) *)', '(*)*)', '(* ".""." *)',
                   '(* a.b. *)', '\n', ' ', '\t', '(** doc. *)', '(* "(*" *)']
    parts = []
    for n in range(count):
        left = rng.choice(decorations) + rng.choice(decorations)
        term = rng.choice([f"({n})", f"(Coq.Init.Nat.add {n} 0)", f"(fst ({n}, tt))"])
        parts.append(f"{left}Check {term}{rng.choice(['', '(* . *)', ' '])}.")
    return rng.choice(["\n", " ", "\n\n"]).join(parts) + "\n", count


@pytest.mark.anyio
async def test_the_lexer_cuts_sentences_where_coqc_does(make_ctx: Callable[..., Any]) -> None:
    """coqc prints one ``: nat`` line per ``Check`` it ran; the lexer must find as many
    ``Check`` sentences in the same generated file."""
    text, count = generated(7, 60)
    build = await run_build(make_ctx(), {"G.v": text}, [Step("g", ("coqc", "-q", "G.v"))])
    output = build.steps["g"].output
    assert build.steps["g"].ok, output
    assert len(re.findall(r"^\s*: nat$", output, re.MULTILINE)) == count
    heads = [s.words()[0] for s in sentences(text)]
    assert heads == ["Check"] * count
