"""The commands a candidate file may contain: an allow-list checked sentence by sentence.

A candidate writes definitions, inductive types, records, modules, lemmas closed by ``Qed`` or
``Defined``, and the tactics inside them. Everything that reaches outside that theory is
refused with a one-line reason naming the line, before coqc ever runs the file:

- commands that read, write or load files or code (``Load``, ``Redirect``, ``Cd``, ``Declare
  ML Module``, ``Add LoadPath``, ``Drop``...), Coq's extraction commands (the plugin writes the
  only extraction file) and ``Require`` of anything but Coq's standard library or the task's
  ``IDS`` files (a library can carry extraction directives or an OCaml plugin);
- holes and assumptions (``Admitted``, ``admit``, ``give_up``, ``Axiom``, ``Parameter``,
  ``Conjecture``, ``Admit Obligations``; ``Variable``/``Hypothesis``/``Context`` outside a
  section, where they are axioms), checker switches (``Unset``, ``Set`` of anything but a few
  elaboration options, ``#[bypass_check]``, ``Private`` types, ``Primitive``/``Register``), and
  state rewinds (``Abort``, ``Reset``, ``Back``);
- any command outside a proof that is not on the allow-list.

Sentences are cut by :mod:`coqlex` exactly as coqc cuts them, so comments, strings and line
breaks inside a command hide nothing. Two nets make a disagreement about where a command starts
harmless: words that are never innocent (``Axiom``, ``Load``, ``Unset``, ``Extraction``...) are
refused wherever they occur, and ``Print Assumptions`` in the audit catches any assumption that
got through.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from speckernel.model import Diagnostic

from speckernel_rocq_ids.coqlex import LexError, Sentence, Token, sentences

CODE = "command"

FORBIDDEN_WORDS = {
    **dict.fromkeys(("Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Conjectures"),
                    "adds an assumption"),
    **dict.fromkeys(("Admitted", "admit", "give_up", "Admit"), "leaves a proof hole"),
    **dict.fromkeys(("Load", "Redirect", "Cd", "Pwd", "LoadPath", "Declare", "Drop", "Quit"),
                    "reaches outside the candidate (files, paths, OCaml code)"),
    **dict.fromkeys(("Unset", "bypass_check", "Private", "Primitive", "Register",
                     "Definitional"), "changes what the kernel checks"),
    **dict.fromkeys(("Abort", "Reset", "Back", "BackTo", "Backtrack", "Restore", "Write",
                     "Undo", "Restart"), "rewinds or replaces Coq's state"),
}
"""Words refused wherever they occur outside comments and strings: none is innocent in a
candidate (as a name they would only invite confusion)."""

_EXTRACTION = re.compile(r"^(?:Extr(?:act|[A-Z])|extraction$)")
"""``Extract``, ``Extraction``, ``Extract Inlined Constant``, the ``ExtrOcaml*`` libraries and
their directory ``Coq.extraction``."""

PROOF_STARTERS = frozenset((
    "Lemma", "Theorem", "Fact", "Remark", "Corollary", "Proposition", "Property", "Example",
    "Goal"))
"""Commands that always open a proof."""

PROOF_ENDERS = frozenset(("Qed", "Defined", "Save"))

DEFINERS = frozenset((
    "Definition", "Fixpoint", "CoFixpoint", "Function", "Let", "Instance", "Equations"))
"""Commands that open a proof when they have no ``:=`` body."""

ALLOWED = frozenset((
    *PROOF_STARTERS, *PROOF_ENDERS, *DEFINERS,
    "Inductive", "CoInductive", "Variant", "Record", "Structure", "Class", "Existing",
    "Module", "Section", "End", "Import", "Export", "Include", "Require", "From",
    "Notation", "Infix", "Reserved", "Tactic", "Ltac", "Open", "Close", "Bind", "Delimit",
    "Arguments", "Implicit", "Generalizable", "Coercion", "Canonical", "Hint", "Create",
    "Remove", "Typeclasses", "Opaque", "Transparent", "Strategy", "Scheme", "Combined",
    "Derive", "Universe", "Universes", "Proof", "Next", "Obligation", "Solve", "Obligations",
    "Print", "Check", "Compute", "Eval", "About", "Locate", "Search", "SearchPattern",
    "SearchRewrite", "SearchHead", "Show", "Test", "Set", "Add", "Variable", "Variables",
    "Hypothesis", "Hypotheses", "Context"))
"""Commands a candidate may use outside a proof (and inside one)."""

PREFIXES = frozenset(("Local", "Global", "Program", "Polymorphic", "Monomorphic", "Cumulative",
                      "NonCumulative", "Time", "Fail", "Succeed", "Instructions"))
"""Words that modify the command after them; ``Timeout N`` is handled with its number."""

SECTION_ONLY = frozenset(("Variable", "Variables", "Hypothesis", "Hypotheses", "Context"))
"""Declarations that are hypotheses inside a section and axioms outside one."""

SETTABLE = frozenset((
    ("Implicit", "Arguments"), ("Strict", "Implicit"), ("Contextual", "Implicit"),
    ("Maximal", "Implicit", "Insertion"), ("Reversible", "Pattern", "Implicit"),
    ("Asymmetric", "Patterns"), ("Default", "Goal", "Selector"), ("Bullet", "Behavior"),
    ("Universe", "Polymorphism"), ("Primitive", "Projections"),
    ("Warnings",), ("Default", "Proof", "Using"), ("Keyed", "Unification"),
    ("Nested", "Proofs", "Allowed"), ("Program", "Mode"), ("Decidable", "Equality", "Schemes"),
    ("Elimination", "Schemes"), ("Case", "Analysis", "Schemes"), ("Boolean", "Equality",
                                                                    "Schemes")))
"""Options ``Set`` may switch on: elaboration and display only, none the kernel reads."""

ADDABLE = frozenset(("Parametric", "Morphism", "Setoid", "Relation", "Ring", "Field"))
"""What ``Add`` may declare (setoid rewriting and ring tactics), never a load path."""

ATTRIBUTES = frozenset(("local", "global", "export", "program", "universes", "using",
                        "refine", "canonical", "deprecated", "warnings", "warning",
                        "projections", "reversible", "mode", "nonuniform", "polymorphic",
                        "monomorphic", "cumulative", "noncumulative"))
"""Attribute names a candidate may write in ``#[...]``."""

LIBRARIES = frozenset(("Coq", "IDS"))
"""Logical roots a candidate may ``Require`` from: Coq's standard library and the task."""


def _refusal(line: int, file: str, reason: str) -> Diagnostic:
    return Diagnostic(f"line {line}: {reason}", file=file, line=line, code=CODE)


def _word_problem(token: Token, holes: bool) -> str | None:
    """Why a word may not appear anywhere, or None."""
    for part in token.parts:
        if part in FORBIDDEN_WORDS and not (holes and part in ("admit", "Admitted")):
            return f"'{part}' is not allowed in a candidate: it {FORBIDDEN_WORDS[part]}"
        if _EXTRACTION.match(part):
            return (f"'{part}' is not allowed in a candidate: the plugin extracts the verified "
                    "store itself")
    return None


def _attributes(tokens: Sequence[Token]) -> tuple[list[str], int]:
    """The attribute names of a leading ``#[...]`` and the index after it."""
    if len(tokens) < 2 or tokens[0].text != "#" or tokens[1].text != "[":
        return [], 0
    depth = 0
    names: list[str] = []
    for i, token in enumerate(tokens[1:], 1):
        if token.text in "[(":
            depth += 1
        elif token.text in "])":
            depth -= 1
            if depth == 0:
                return names, i + 1
        elif token.kind == "ident" and depth == 1 and tokens[i - 1].text in ("[", ","):
            names.append(token.text)
    return names, len(tokens)


def _head(sentence: Sentence) -> tuple[list[Token], list[str]]:
    """The sentence without bullets, braces, attributes and prefixes; the attributes and the
    prefix words seen (``Global`` as attribute ``global``)."""
    rest = list(sentence.tokens)
    seen: list[str] = []
    while rest:
        if rest[0].kind == "punct" and rest[0].text in "-+*{}":
            rest = rest[1:]
            continue
        names, after = _attributes(rest)
        if after:
            seen += names
            rest = rest[after:]
            continue
        if rest[0].text in PREFIXES:
            seen += [rest[0].text.lower()] if rest[0].text in ("Local", "Global") else []
            rest = rest[1:]
        elif rest[0].text == "Timeout" and len(rest) > 1 and rest[1].kind == "number":
            rest = rest[2:]
        else:
            break
    return rest, seen


def _assigns(tokens: Sequence[Token]) -> bool:
    """Whether the tokens hold ``:=`` (a body)."""
    return any(a.text == ":" and b.text == "=" and b.offset == a.offset + 1
               for a, b in itertools.pairwise(tokens))


def _require_problem(words: Sequence[str]) -> str | None:
    """Why a ``Require``/``From ... Require`` sentence is refused, or None."""
    if words[0] == "From":
        if len(words) < 3 or words[1].split(".")[0] not in LIBRARIES or words[2] != "Require":
            return ("Require only from Coq's standard library or the task's files: write "
                    "'From Coq Require Import ...' or 'From IDS Require Import ...'")
        return None
    names = [w for w in words[1:] if w not in ("Import", "Export")]
    bad = [n for n in names if n.split(".")[0] not in LIBRARIES]
    if bad or not names:
        return (f"'Require {' '.join(names)}' may load a library outside Coq's standard library "
                "and the task's files: write 'From Coq Require Import ...' or "
                "'From IDS Require Import ...'")
    return None


def _opens_proof(tokens: Sequence[Token]) -> bool:
    """Whether a command leaves Coq in proof mode (a theorem, or a definition with no body)."""
    words = [t.text for t in tokens]
    if words[0] in PROOF_STARTERS:
        return True
    if words[0] in ("Next", "Obligation") and "with" not in words:
        return True
    return words[0] in DEFINERS and not _assigns(tokens) and ":" in words


def check(text: str, file: str, *, holes: bool = False) -> list[Diagnostic]:
    """Every refusal for ``text``, in order. ``holes`` accepts ``admit``/``Admitted`` (a
    synthesis agent's partial draft); the audit never does."""
    try:
        found = sentences(text)
    except LexError as exc:
        return [_refusal(exc.line, file, f"coqc cannot read this file: {exc}")]
    refusals: list[Diagnostic] = []
    blocks: list[str] = []  # "section" or "module" per open block, innermost last
    in_proof = False
    for sentence in found:
        problem = next((p for t in sentence.tokens if t.kind == "ident"
                        if (p := _word_problem(t, holes)) is not None), None)
        if problem is None:
            problem, in_proof = _command_problem(sentence, blocks, in_proof)
        if problem is not None:
            refusals.append(_refusal(sentence.line, file, problem))
    return refusals


def _command_problem(sentence: Sentence, blocks: list[str],
                     in_proof: bool) -> tuple[str | None, bool]:
    """The refusal for one sentence (None if allowed) and whether a proof is open after it."""
    rest, attributes = _head(sentence)
    odd = [a for a in attributes if a not in ATTRIBUTES and a != "local"]
    if odd:
        return f"attribute '{odd[0]}' is not allowed in a candidate", in_proof
    if not rest:
        return None, in_proof
    words = [t.text for t in rest]
    head = words[0]
    if head == "Admitted":  # a draft's hole (refused above unless holes are accepted)
        return None, False
    if head not in ALLOWED:
        if in_proof:
            return None, in_proof  # a tactic; no command that reaches out gets here
        where = "in a proof" if in_proof else "outside a proof"
        return (f"command '{head}' is not allowed in a candidate ({where}; a candidate may hold "
                "definitions, inductive types, records, modules, lemmas closed by Qed or "
                "Defined, and their tactics)"), in_proof
    if head in PROOF_ENDERS:
        return None, False
    if head in ("Require", "From"):
        return _require_problem(words), in_proof
    if head == "Export" and words[1:2] == ["Set"]:
        return "'Export Set' is not allowed: an option set in a candidate stays in it", in_proof
    if head == "Set":
        if {"global", "export"} & set(attributes):
            return ("'Global Set' is not allowed: an option set in a candidate stays in it"), \
                in_proof
        option = tuple(words[1:])
        if not any(option[:len(o)] == o for o in SETTABLE):
            return (f"'Set {' '.join(option)}' is not allowed: only elaboration options may be "
                    "set in a candidate"), in_proof
        return None, in_proof
    if head == "Add" and (len(words) < 2 or words[1] not in ADDABLE):
        return f"'Add {words[1] if len(words) > 1 else ''}' is not allowed in a candidate", in_proof
    if head in SECTION_ONLY and (not blocks or blocks[-1] != "section"):
        return (f"'{head}' outside a section declares an axiom: put it in a Section, or make it "
                "an argument"), in_proof
    if head == "Module" and not _assigns(rest):
        blocks.append("module")
    elif head == "Section":
        blocks.append("section")
    elif head == "End" and blocks:
        blocks.pop()
    return None, in_proof or _opens_proof(rest)
