"""The audit's textual checks (notes §1.4 rule 2, and IDS App. F.3 patterns upstream leaves to an
LLM critic): spec integrity, the spec re-exported as the implementation, and a refinement
relation that is plain equality. Pure functions of file texts; comments and strings are blanked
by :func:`coqlex.blank_comments`, which reads them as coqc does. The commands a candidate may
use are :mod:`commands`'s allow-list."""

from __future__ import annotations

import re
from collections.abc import Mapping

from speckernel.model import Diagnostic

from speckernel_rocq_ids.coqlex import blank_comments
from speckernel_rocq_ids.sources import sha256


def spec_integrity(pinned: Mapping[str, str], files: Mapping[str, str]) -> list[Diagnostic]:
    """An error per file of ``files`` that a pin names and whose SHA-256 differs from the pin:
    a candidate that ships its own framework, spec or obligation. The build never uses such a
    file (it uses the task's), but the attempt is named."""
    found: list[Diagnostic] = []
    for name, text in sorted(files.items()):
        digest = pinned.get(name)
        if digest is not None and sha256(text) != digest:
            found.append(Diagnostic(f"{name} differs from the task's (sha256 {digest[:12]}...); "
                                    "the task's file is what is built", file=name,
                                    code="spec_integrity"))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def spec_aliases(text: str, spec_module: str, file: str) -> list[Diagnostic]:
    """Modules defined as, or including, the spec module: the spec passed off as the
    implementation, which upstream's audit accepts (notes §2.4)."""
    code = blank_comments(text)
    target = rf"(?:[\w.]*\.)?{re.escape(spec_module)}\b"
    pattern = re.compile(rf"\bModule\s+\w+\s*(?:<:\s*[\w.]+\s*)?:=\s*{target}"
                         rf"|\bInclude\s+{target}")
    return [Diagnostic(f"'{m.group(0)}' reuses the spec module as the implementation",
                       file=file, line=_line_of(code, m.start()), code="spec_alias")
            for m in pattern.finditer(code)]


_DEFINITION_R = re.compile(r"\bDefinition\s+R\b(?P<head>.*?):=(?P<body>.*?)\.(?=\s|$)",
                           re.DOTALL)
_BINDER = re.compile(r"\(\s*([\w\s]+?)\s*:")
_FUN = re.compile(r"^fun\s+(?P<binders>.*?)=>\s*(?P<body>.*)$", re.DOTALL)


def _binder_names(text: str) -> list[str]:
    names = [n for group in _BINDER.findall(text) for n in group.split()]
    return names or [w for w in text.split() if re.fullmatch(r"\w+", w)]


def _unparen(text: str) -> str:
    text = " ".join(text.split())
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text


def relation_is_equality(text: str, file: str) -> list[Diagnostic]:
    """The refinement relation ``R`` defined as equality (``eq``, ``@eq _``, ``fun a b => a =
    b``, or ``R a b := a = b``): a relation that compresses nothing (IDS App. F.3)."""
    code = blank_comments(text)
    found: list[Diagnostic] = []
    for match in _DEFINITION_R.finditer(code):
        head = match["head"].split(":")[0] if "(" not in match["head"] else match["head"]
        names = _binder_names(head) if head.strip() else []
        body = _unparen(match["body"])
        lam = _FUN.match(body)
        if lam is not None:
            names, body = names + _binder_names(lam["binders"]), _unparen(lam["body"])
        equal = re.fullmatch(r"@?eq(\s+\S+)*", body) is not None
        if len(names) >= 2:
            a, b = (re.escape(n) for n in names[-2:])
            equal = equal or re.fullmatch(rf"({a}\s*=\s*{b}|{b}\s*=\s*{a})", body) is not None
        if equal:
            found.append(Diagnostic("the refinement relation R is plain equality", file=file,
                                    line=_line_of(code, match.start()), code="relation_equality"))
    return found
