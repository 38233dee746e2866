"""Reading untrusted Gallina: splitting it into sentences and refusing anything but definitions.

A Rocq candidate (and an oracle) is a list of Coq sentences. The verifier loads it into a Coq
process next to its own proof scripts, so the text may only *add definitions*: anything that
assumes (``Axiom``, ``Parameter``, ``Admitted``, ``admit``), switches a check off (``Unset Guard
Checking``, ``#[bypass_check(...)]``), changes the environment (``Set``, ``Local``, ``Extract``,
``Load``, ``Declare ML Module``, ``Drop``), defers obligations (``Program``, ``Function`` with a
measure, ``Obligation``) or could print text that looks like the verifier's own output (``Check``,
``Compute``) is refused before Coq sees it. What remains is checked by Coq itself, which rejects
non-structural recursion.

The rule is a whitelist of sentence forms (see :data:`ALLOWED`): ``Definition``/``Fixpoint``
with a body, ``Inductive``, ``Require [Import]`` and ``Import`` of standard-library modules, and
``Open Scope``. Terms may not run tactics (``ltac:``) nor carry attributes (``#[...]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs

ALLOWED = ("Definition", "Fixpoint", "Inductive", "Require", "From", "Import", "Open")
"""The sentence heads an untrusted text may use."""

STDLIB = frozenset({
    "Arith", "Arith.Arith", "Bool", "Bool.Bool", "Lia", "List", "Lists.List", "ListNotations",
    "Nat", "PeanoNat", "Arith.PeanoNat", "ZArith", "Sorting", "Sorting.Sorted",
    "Sorting.Permutation", "Permutation", "Ascii", "String", "Strings.String", "Strings.Ascii",
    "Init.Nat", "Decidable",
    "Compare_dec", "Arith.Compare_dec", "EqNat", "Arith.EqNat", "Lists.ListDec", "ListDec",
    "Setoid", "Morphisms", "Znat", "BinInt", "Z", "Nat.Nat",
})
"""Standard-library modules a text may ``Require`` or ``Import`` (with or without ``Coq.``)."""

FORBIDDEN_WORDS = frozenset({"admit", "give_up", "Admitted", "Axiom", "Parameter", "ltac"})
"""Words refused anywhere outside comments and strings."""

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_'.]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")


class Refused(ValueError):
    """The text is not a plain list of definitions; the message says why."""


@attrs.frozen
class Sentence:
    """One Coq sentence without its final period, comments replaced by a space."""

    text: str

    @property
    def words(self) -> list[str]:
        return _WORD.findall(_without_strings(self.text))

    @property
    def head(self) -> str:
        words = self.words
        return words[0] if words else ""

    @property
    def defined(self) -> list[str]:
        """The names the sentence defines (every body of a mutual ``with`` block)."""
        if self.head not in ("Definition", "Fixpoint", "Inductive"):
            return []
        names = re.findall(r"(?:^|\bwith)\s+([A-Za-z_][A-Za-z0-9_']*)",
                           _without_strings(self.text).strip()[len(self.head):])
        return names

    def render(self) -> str:
        return self.text.strip() + "."


def sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences: a period ends one when followed by whitespace or the end.

    Comments (nested ``(* ... *)``) become a space; string literals are kept whole. An unclosed
    comment or string, or trailing text without a final period, is refused.
    """
    out: list[Sentence] = []
    current: list[str] = []
    for kind, piece in _tokens(text):
        if kind == "end":
            body = "".join(current)
            if body.strip():
                out.append(Sentence(body))
            current = []
        else:
            current.append(" " if kind == "comment" else piece)
    if "".join(current).strip():
        raise Refused("the text does not end with a period ('.') after its last sentence")
    return out


def _tokens(text: str) -> Iterator[tuple[str, str]]:
    i, n = 0, len(text)
    while i < n:
        if text.startswith("(*", i):
            depth, j = 1, i + 2
            while depth and j < n:
                if text.startswith("(*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*)", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                raise Refused("unterminated comment '(*'")
            yield "comment", text[i:j]
            i = j
        elif text[i] == '"':
            j = i + 1
            while True:
                j = text.find('"', j)
                if j < 0:
                    raise Refused("unterminated string literal")
                if text.startswith('""', j):
                    j += 2
                    continue
                break
            yield "text", text[i:j + 1]
            i = j + 1
        elif text[i] == "." and (i + 1 == n or text[i + 1].isspace()) and \
                not text.startswith("..", i - 1 if i else i):
            yield "end", "."
            i += 1
        else:
            yield "text", text[i]
            i += 1


def _without_strings(text: str) -> str:
    return re.sub(r'"(?:[^"]|"")*"', '""', text)


def vet(text: str) -> list[Sentence]:
    """The sentences of ``text`` if it only defines things (module doc); ``Refused`` if not."""
    parsed = sentences(text)
    if not parsed:
        raise Refused("no definitions")
    for sentence in parsed:
        _vet_one(sentence)
    return parsed


def _vet_one(sentence: Sentence) -> None:
    if "#[" in _without_strings(sentence.text):
        raise Refused("attributes (#[...]) are not allowed: they can switch Coq's checks off")
    words = sentence.words
    bad = next((w for w in words if w in FORBIDDEN_WORDS), None)
    if bad is not None:
        raise Refused(f"'{bad}' is not allowed: a specification may not assume or run tactics")
    head = sentence.head
    if head not in ALLOWED:
        raise Refused(f"'{head or sentence.text.strip()[:20]}' is not allowed: only "
                      "Definition/Fixpoint/Inductive, Require/Import of the standard library and "
                      "Open Scope may appear")
    if head in ("Definition", "Fixpoint") and ":=" not in sentence.text:
        raise Refused(f"{head} without ':=' (interactive definitions and proofs are not allowed)")
    if head == "Open" and not re.fullmatch(r"\s*Open\s+Scope\s+[A-Za-z_]+\s*", sentence.text):
        raise Refused(f"malformed Open Scope: {sentence.text.strip()!r}")
    if head in ("Require", "From", "Import"):
        _vet_import(sentence.text)


def _vet_import(text: str) -> None:
    words = text.split()
    if words[0] == "From":
        if len(words) < 3 or words[1] != "Coq" or words[2] != "Require":
            raise Refused("only 'From Coq Require ...' of the standard library is allowed")
        words = words[2:]
    if words[0] == "Require" and len(words) > 1 and words[1] in ("Import", "Export"):
        words = words[1:]
    modules = words[1:]
    if not modules:
        raise Refused(f"'{text.strip()}' names no module")
    for module in modules:
        plain = module.removeprefix("Coq.")
        if plain not in STDLIB:
            raise Refused(f"module {module} is not in the allowed standard-library modules")


def defined_names(parsed: list[Sentence]) -> list[str]:
    """Every name the sentences define, in order."""
    return [name for s in parsed for name in s.defined if _NAME.fullmatch(name)]


def plain_definitions(parsed: list[Sentence]) -> list[str]:
    """Names bound by non-recursive ``Definition`` sentences (safe to ``unfold`` in a proof)."""
    return [name for s in parsed if s.head == "Definition" for name in s.defined]
