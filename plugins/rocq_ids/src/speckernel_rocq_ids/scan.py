"""The audit's textual checks (notes §1.4 rules 1-2, and IDS App. F.3 patterns upstream leaves to
an LLM critic): escape hatches, spec integrity, the spec re-exported as the implementation, and a
refinement relation that is plain equality. Pure functions of file texts."""

from __future__ import annotations

import re
from collections.abc import Mapping

from speckernel.model import Diagnostic

from speckernel_rocq_ids.sources import sha256

ESCAPE_HATCH = re.compile(
    r"\b(Admitted|admit|give_up|Axioms?|Conjectures?|Hypothes[ie]s|Parameters?|sorry"
    r"|bypass_check)\b|\bUnset\s+(?:\w+\s+)*?Checking\b")
"""Words that leave a hole or add an assumption, matched in comments too (as upstream does)."""


def escape_hatches(files: Mapping[str, str]) -> list[Diagnostic]:
    """One error per escape hatch in the candidate's files, located."""
    found: list[Diagnostic] = []
    for name, text in sorted(files.items()):
        for number, line in enumerate(text.splitlines(), 1):
            for match in ESCAPE_HATCH.finditer(line):
                found.append(Diagnostic(f"escape hatch '{match.group(0)}' is not allowed",
                                        file=name, line=number, column=match.start() + 1,
                                        code="escape_hatch"))
    return found


def spec_integrity(pinned: Mapping[str, str], files: Mapping[str, str]) -> list[Diagnostic]:
    """An error per pinned file that is missing or whose SHA-256 differs from the pin."""
    found: list[Diagnostic] = []
    for name, digest in sorted(pinned.items()):
        text = files.get(name)
        if text is None or sha256(text) != digest:
            found.append(Diagnostic(f"{name} differs from the task's (sha256 {digest[:12]}...)",
                                    file=name, code="spec_integrity"))
    return found


def strip_comments(text: str) -> str:
    """``text`` with Coq comments (nested) and string literals blanked to spaces, so that
    offsets and line numbers are unchanged."""
    out: list[str] = []
    depth, i, in_string = 0, 0, False
    while i < len(text):
        pair = text[i:i + 2]
        if in_string:
            in_string = text[i] != '"'
            out.append(text[i] if text[i] == "\n" else " ")
        elif pair == "(*":
            depth, i = depth + 1, i + 1
            out.append("  ")
        elif pair == "*)" and depth:
            depth, i = depth - 1, i + 1
            out.append("  ")
        elif depth:
            out.append(text[i] if text[i] == "\n" else " ")
        else:
            in_string = text[i] == '"'
            out.append(" " if in_string else text[i])
        i += 1
    return "".join(out)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def spec_aliases(text: str, spec_module: str, file: str) -> list[Diagnostic]:
    """Modules defined as, or including, the spec module: the spec passed off as the
    implementation, which upstream's audit accepts (notes §2.4)."""
    code = strip_comments(text)
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
    code = strip_comments(text)
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
