"""Rewriting a TLC configuration file: keep the model's behaviour, choose what TLC checks.

A ``.cfg`` is a sequence of sections, each a keyword (``SPECIFICATION``, ``CONSTANTS``,
``INVARIANTS``, ...) followed by its entries. The runtime and invariant checks keep the sections
that define the behaviour (specification or INIT/NEXT, constants, constraints, symmetry) and
replace those that name what to check (invariants, properties), so a model's own cfg serves as
the base, the way SysMoBench reuses the runtime cfg for its invariant runs (notes §4).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from speckernel.model import Diagnostic

KEYWORDS = (
    "CONSTANTS", "CONSTANT", "INIT", "NEXT", "SPECIFICATION", "INVARIANTS", "INVARIANT",
    "PROPERTIES", "PROPERTY", "CONSTRAINTS", "CONSTRAINT", "ACTION_CONSTRAINTS",
    "ACTION_CONSTRAINT", "SYMMETRY", "VIEW", "CHECK_DEADLOCK", "POSTCONDITION", "ALIAS",
    "TYPE_CONSTRAINT", "TYPE",
)
"""Every keyword of TLC's cfg grammar, ``TYPE`` and ``TYPE_CONSTRAINT`` among them (not knowing
those read their entries as the previous section's)."""
CHECK_SECTIONS = frozenset({"INVARIANTS", "INVARIANT", "PROPERTIES", "PROPERTY"})
"""Sections naming what TLC verifies rather than what the model does."""
BEHAVIOUR_SECTIONS = frozenset({"SPECIFICATION", "INIT", "NEXT"})
"""Sections naming the model's behaviours."""

REDUCING_SECTIONS = frozenset({"CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT",
                               "ACTION_CONSTRAINTS", "VIEW", "SYMMETRY"})
"""Sections that make TLC explore fewer states than the model reaches: constraints cut the
search, a view merges states, a symmetry identifies them."""


def reductions(cfg: str) -> list[str]:
    """The ``cfg``'s :data:`REDUCING_SECTIONS`, sorted: the runtime and invariant phases drop
    them (with them a candidate made every invariant hold by reaching no state past the first,
    and hid an action's runtime error behind a constraint), which the verdict notes."""
    return sorted({keyword for keyword, _ in sections(cfg) if keyword in REDUCING_SECTIONS})


def reductions_note(found: Sequence[str], config: str) -> Diagnostic:
    """The warning that the cfg's reductions ``found`` were not used."""
    return Diagnostic(f"the cfg's {', '.join(found)} would make TLC explore fewer states than "
                      f"the model reaches: not used (the task's budgets, or the default ones, "
                      f"bound the search)", "warning", config)

_STRING = r'"(?:[^"\\\r\n]|\\[^\r\n])*(?:"|(?=[\r\n])|\Z)'
"""A cfg string; one never closed ends with its line (TLC rejects the cfg; matched to the end of
the text instead, every later quote rescanned it)."""
_TOKEN = re.compile(
    r"(?P<comment>\\\*[^\r\n]*|\(\*(?:.*?\*\)|.*))"
    rf"|(?P<string>{_STRING})"
    rf"|(?P<keyword>\b(?:{'|'.join(KEYWORDS)})\b)",
    re.DOTALL,
)
"""Comments (a block comment never closed takes the rest of the text), strings and keywords."""


def sections(cfg: str) -> list[tuple[str, str]]:
    """The cfg's sections in order, as (keyword, entries text); comments are dropped and text
    before the first keyword is ignored (TLC rejects it anyway)."""
    found: list[tuple[str, str]] = []
    keyword: str | None = None
    body: list[str] = []
    position = 0
    for match in _TOKEN.finditer(cfg):
        if keyword is not None:
            body.append(cfg[position:match.start()])
        position = match.end()
        if match.group("string") is not None and keyword is not None:
            body.append(match.group())
        elif match.group("keyword") is not None:
            if keyword is not None:
                found.append((keyword, "".join(body).strip()))
            keyword, body = match.group(), []
    if keyword is not None:
        body.append(cfg[position:])
        found.append((keyword, "".join(body).strip()))
    return found


def with_checks(cfg: str, invariants: Sequence[str] = (), properties: Sequence[str] = ()) -> str:
    """``cfg`` with its INVARIANT and PROPERTY sections replaced by the given names."""
    kept = [f"{keyword} {body}".rstrip() for keyword, body in sections(cfg)
            if keyword not in CHECK_SECTIONS]
    kept += [f"INVARIANT {name}" for name in invariants]
    kept += [f"PROPERTY {name}" for name in properties]
    return "\n".join(kept) + "\n"


def without_sections(cfg: str, keywords: frozenset[str]) -> str:
    """``cfg`` without its ``keywords`` sections."""
    kept = [f"{keyword} {body}".rstrip() for keyword, body in sections(cfg)
            if keyword not in keywords]
    return "\n".join(kept) + "\n"


def with_behaviour(cfg: str, init: str, step: str) -> str:
    """``cfg`` with the behaviour given as ``INIT init`` and ``NEXT step`` instead of its own
    ``SPECIFICATION`` or ``INIT``/``NEXT`` (constants, constraints and the rest kept)."""
    kept = [f"{keyword} {body}".rstrip() for keyword, body in sections(cfg)
            if keyword not in BEHAVIOUR_SECTIONS]
    return "\n".join([*kept, f"INIT {init}", f"NEXT {step}"]) + "\n"


_ASSIGNED = re.compile(r"<-|=")
IDENTIFIER = re.compile(r"\w*[A-Za-z]\w*")
"""A TLA+ identifier (what a cfg replacement names when it is not an operator symbol)."""
_PARAMETERS = re.compile(r"(?<=\w)\s*\(\s*\w+(?:\s*,\s*\w+)*\s*\)$")
"""A replaced operator's parameter list, names only: ``(+)`` after a value on the line before
is the operator symbol being assigned (TLA+'s ASCII for ⊕), not parameters of that value."""


_ASSIGNMENT_START = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*(?:=|<-)")


def _masked(text: str) -> str:
    """``text`` with strings and bracketed values blanked, so only top-level ``=`` remain."""
    out, depth, quoted, escaped = [], 0, False, False
    for c in text:
        if quoted:
            escaped, quoted = not escaped and c == "\\", escaped or c != '"'
        elif c == '"':
            quoted = True
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth = max(depth - 1, 0)
        out.append(c if depth == 0 and not quoted and c not in '"}])' else " ")
    return "".join(out)


def assignments(section: str) -> Iterator[tuple[str, str]]:
    """A ``CONSTANT`` section's entries, as (name, the entry's text: ``N = 3``, ``C <- Def``);
    none for an empty section (which raised, from ``zip``, reading a cfg whose ``CONSTANTS``
    keyword had no entry)."""
    starts = list(_ASSIGNMENT_START.finditer(_masked(section)))
    for start, after in zip(starts, [*starts[1:], None][:len(starts)], strict=True):
        yield start.group(1), section[start.start(): after.start() if after else None].strip()


def with_constants(cfg: str, values: Mapping[str, str]) -> str | None:
    """``cfg`` with each constant of ``values`` given that value (``name = value``) in place of
    what the cfg gives it; None if an entry to replace is not a plain ``name = value`` or
    ``name <- Def`` (text before a section's first assignment, or an operator's replacement
    read into it, ``P(a) <- Q``, would go with it)."""
    kept = []
    for keyword, body in sections(cfg):
        if keyword not in ("CONSTANT", "CONSTANTS"):
            kept.append(f"{keyword} {body}".rstrip())
            continue
        entries = list(assignments(body))
        if body.strip() and not (entries and body.strip().startswith(entries[0][1])):
            return None
        for name, text in entries:
            if name in values and len(_ASSIGNED.findall(_masked(text))) != 1:
                return None
        others = [text for name, text in entries if name not in values]
        if others:
            kept.append(f"{keyword}\n" + "\n".join(f"    {text}" for text in others))
    kept += ["CONSTANTS", *(f"    {name} = {value}" for name, value in values.items())]
    return "\n".join(kept) + "\n"


def replaced_names(cfg: str) -> frozenset[str]:
    """The names the cfg's ``CONSTANT`` sections give a value (``N = 3``) or replace
    (``N <- Def``, ``P(a) <- Q``): declared constants, or definitions of the model TLC then
    overrides. Operator symbols count too, as the text before ``<-`` or ``=``: TLC takes
    ``++ <- Minus`` and ``++ = 5`` for a user-defined infix ``++``. Never fewer names than the
    cfg replaces, though a symbol holding ``=`` is read as its piece before it (``>=`` as ``>``),
    still a symbol."""
    names: set[str] = set()
    for keyword, body in sections(cfg):
        if keyword not in ("CONSTANT", "CONSTANTS"):
            continue
        plain = re.sub(_STRING, '""', body)
        after_last = 0  # only the text since the last assignment is read: linear in the cfg
        for assignment in _ASSIGNED.finditer(plain):
            before = plain[after_last:assignment.start()].rstrip()
            after_last = assignment.end()
            words = _PARAMETERS.sub("", before).split() or before.split()
            if words:
                names.add(words[-1])
    return frozenset(names)


def names_outside_checks(cfg: str) -> frozenset[str]:
    """Every identifier the cfg names outside its INVARIANT and PROPERTY sections (which the
    checks replace), strings aside."""
    return frozenset(name for keyword, body in sections(cfg) if keyword not in CHECK_SECTIONS
                     for name in IDENTIFIER.findall(re.sub(_STRING, '""', body)))


def first_name(cfg: str, keyword: str) -> str | None:
    """The name a ``keyword`` section (``SPECIFICATION``, ``INIT``, ``NEXT``) gives first."""
    for found, body in sections(cfg):
        if found == keyword and body.split():
            return body.split()[0]
    return None
