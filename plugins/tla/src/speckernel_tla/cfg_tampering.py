"""Whether a candidate's cfg tampers with what a verifier checks. Pure: text in, answer out.

The invariant and conformance verifiers run TLC on a module of their own that EXTENDS the
candidate's model, under a cfg built from the candidate's. TLC lets a cfg give a value to or
replace any definition of any module of the run (``CONSTANT SkStep <- AnyStep``), so the
candidate's cfg can reach the verifier's own definitions, and through a standard module's
operator (``TLCGet <- Zero``, ``Cardinality <- NoneOf``) the meaning of the verifier's checks.
Such a cfg makes the verdict meaningless: no TLC run starts and the verifier scores it 0. A cfg
replacing the model's own definitions is the model's business and stays legal.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence

import attrs

from speckernel_tla.actions import without_comments
from speckernel_tla.stdlib import BUNDLED
from speckernel_tla.tlc_config import IDENTIFIER, names_outside_checks, replaced_names

_DECLARED = re.compile(r"\bCONSTANTS?\b((?:\s*\w+(?:\s*\([^()]*\))?\s*,)*\s*\w+)")
"""A declaration of constants: their names, each with its arity if it is an operator."""
_VARIABLES = re.compile(r"\bVARIABLES?\b((?:\s*\w+\s*,)*\s*\w+)")
"""A declaration of variables: their names."""
_NAME = re.compile(rf"(?<!\w){IDENTIFIER.pattern}(?!\w)")
_CLOSING = {"(": ")", "[": "]", "{": "}"}
_BOUNDARY = re.compile(r"-{4,}\s*MODULE\s+(\w+)|={4,}")
"""A module's header (with its name) or its end."""
_USES = re.compile(r"\b(?:EXTENDS|INSTANCE)\b((?:\s*\w+\s*,)*\s*\w+)")
"""The modules a module extends or instantiates."""


def tampering(cfg: str, texts: Sequence[str], generated: Callable[[str], object],
              standard: frozenset[str]) -> str | None:
    """Why ``cfg`` tampers with the check of the model whose modules are ``texts`` (the model's
    own first; None if it does not): it names a name the verifier generates (``generated``)
    outside the INVARIANT and PROPERTY sections (the checks replace those), it replaces an
    operator a standard module defines (``standard``) and the modules SANY reads for the model
    (``modules_read``) neither define nor declare, or it replaces an
    operator symbol (``++ <- Nix``: neither the trace cfg's reading nor the criteria's reading of
    definitions follows symbols, so what TLC ran and what was judged parted)."""
    named = sorted(n for n in names_outside_checks(cfg) if generated(n))
    if named:
        return f"the cfg names {named[0]}, a name the verifier generates"
    read = modules_read(texts)
    own = defined_names(read) | declared_names(read)
    replaced = replaced_names(cfg)
    overridden = sorted((replaced & standard) - own)
    if overridden:
        return f"the cfg replaces {overridden[0]}, an operator of a standard module"
    symbols = sorted(name for name in replaced if not IDENTIFIER.fullmatch(name))
    if symbols:
        return f"the cfg replaces {symbols[0]}, an operator symbol"
    return None


def modules_read(texts: Sequence[str]) -> list[str]:
    """What SANY reads of the modules ``texts`` (the model's own first, comments dropped): each
    module from its header to its end, without the modules nested in it, for the model's module
    and the modules it extends or instantiates, transitively (by name; a name no text defines is
    a standard module). Text before a file's first header or after that module's end, an inner
    module nobody instantiates and a file nobody extends define nothing: a decoy ``Assert(a, b)
    == TRUE`` there cannot make ``Assert`` the model's own."""
    if not texts:
        return []
    bodies: dict[str, str] = {}
    root: str | None = None
    for index, text in enumerate(texts):
        found = _module_bodies(without_comments(text))
        if found and index == 0:
            root = next(iter(found))
        for name, body in found.items():
            bodies.setdefault(name, body)
    read: list[str] = []
    pending, seen = ([root] if root else []), set()
    while pending:
        name = pending.pop()
        if name in seen or name not in bodies:
            continue
        seen.add(name)
        read.append(bodies[name])
        pending += [used for match in _USES.finditer(bodies[name])
                    for used in IDENTIFIER.findall(match.group(1))]
    return read


def _module_bodies(plain: str) -> dict[str, str]:
    """The first module of ``plain`` (a text without comments) and the modules nested in it, by
    name, in the order of their headers (the outermost first): each one's text from its header
    to its end (or the text's end), the modules nested in it cut out. SANY reads nothing after
    the first module's end: a second module there is no module another file can extend."""
    bodies: dict[str, str] = {}
    open_modules: list[tuple[str, list[str], int]] = []  # name, finished pieces, piece start
    for match in _BOUNDARY.finditer(plain):
        if match.group(1) is not None:
            bodies.setdefault(match.group(1), "")  # its place in the order of headers
            if open_modules:
                _, pieces, start = open_modules[-1]
                pieces.append(plain[start:match.start()])
            open_modules.append((match.group(1), [], match.start()))
        elif open_modules:
            name, pieces, start = open_modules.pop()
            bodies[name] = bodies[name] or "".join([*pieces, plain[start:match.end()]])
            if not open_modules:
                break
            outer, outer_pieces, _ = open_modules.pop()
            open_modules.append((outer, outer_pieces, match.end()))
    for name, pieces, start in reversed(open_modules):  # never closed: runs to the end
        bodies[name] = bodies[name] or "".join([*pieces, plain[start:]])
    return bodies


def module_names(text: str) -> frozenset[str]:
    """Every name the module ``text`` introduces: its definitions, constants and variables."""
    variables = frozenset(name for match in _VARIABLES.finditer(without_comments(text))
                          for name in IDENTIFIER.findall(match.group(1)))
    return defined_names([text]) | declared_names([text]) | variables


def declared_names(texts: Sequence[str]) -> frozenset[str]:
    """Every constant some text declares (``CONSTANT N, Op(_, _)``), comments aside."""
    return frozenset(name for text in texts
                     for match in _DECLARED.finditer(without_comments(text))
                     for name in re.findall(r"\w+(?![^()]*\))", match.group(1)))


def defined_names(texts: Sequence[str]) -> frozenset[str]:
    """Every name that some text defines, ``Name == e``, ``Name(p) == e`` or ``Name[x \\in S] ==
    e`` (comments and strings aside; one bracketed group of any depth between), wherever it
    stands, after a module's end too: never fewer than the definitions a cfg could override."""
    return frozenset(name for text in texts for name, _ in _headers(without_comments(text)))


def _headers(plain: str) -> list[tuple[str, int]]:
    """Each definition's name in ``plain`` (a text without comments) and where it starts."""
    closing = _closings(plain)
    found: list[tuple[str, int]] = []
    for match in _NAME.finditer(plain):
        position = _after_blanks(plain, match.end())
        if position in closing:
            position = _after_blanks(plain, closing[position])
        if plain.startswith("==", position) and not plain.startswith("===", position):
            found.append((match.group(), match.start()))
    return found


@attrs.frozen
class Replacements:
    """The model's definitions a cfg replaces or gives a value to, the operators a module of the
    candidate's redefines by taking the name of a module the plugin ships (``SequencesExt``,
    ``FiniteSetsExt``: a model's own copy wins over the shipped one), and what each definition
    of the model reads: built once per model, asked once per criterion.

    TLC lets a cfg replace a definition of the model. One the behaviour never uses but a
    criterion reads (``Holders <- NoOne`` under ``Cardinality(Holders) <= 1``) changes what the
    criterion says and nothing else, and the evaluator never sees the cfg; a candidate's own
    ``SequencesExt`` with ``ToSet(s) == {}`` does the same to every criterion over ``ToSet``.
    What a definition reads is read generously: its text runs to the next definition at the
    margin, so a definition standing indented or inside a ``LET`` reads whatever its neighbours
    read."""

    replaced: frozenset[str]
    reads: Mapping[str, frozenset[str]]
    shadowed: frozenset[str] = frozenset()
    """Of ``replaced``, the operators of the candidate's modules named like shipped ones."""

    @classmethod
    def of(cls, cfg: str, texts: Sequence[str]) -> Replacements:
        """The replacements ``cfg`` and the candidate's modules ``texts`` make in the model (the
        texts are read only when the cfg replaces something or a text names a shipped
        module)."""
        replaced = replaced_names(cfg)
        if replaced:
            replaced &= defined_names(texts)
        shadowed = frozenset(
            name for text in texts if any(module in text for module in BUNDLED)
            for module, body in _module_bodies(without_comments(text)).items()
            if module in BUNDLED for name, _ in _headers(body))
        replaced |= shadowed
        if not replaced:
            return cls(frozenset(), {})
        reads: dict[str, set[str]] = {}
        for text in texts:
            plain = without_comments(text)
            headers = _headers(plain)
            cuts = sorted({0, len(plain), *(at for _, at in headers
                                             if at == 0 or plain[at - 1] in "\r\n")})
            for start, end in itertools.pairwise(cuts):
                words = set(_NAME.findall(plain, start, end))
                for name, at in headers:
                    if start <= at < end:
                        reads.setdefault(name, set()).update(words)
        return cls(frozenset(replaced), {name: frozenset(words) for name, words in reads.items()},
                   shadowed)

    def described(self, names: Sequence[str]) -> str:
        """What replaced ``names`` (some of ``read_by``'s answer), for a verdict's message."""
        by_cfg = [name for name in names if name not in self.shadowed]
        by_module = [name for name in names if name in self.shadowed]
        return " and ".join(
            [*([f"the cfg replaces {', '.join(by_cfg)}"] if by_cfg else []),
             *([f"a module of the candidate's named like a shipped one redefines "
                f"{', '.join(by_module)}"] if by_module else [])])

    def read_by(self, criteria: Sequence[str]) -> list[str]:
        """The replaced definitions that ``criteria`` (expressions the evaluator or the task
        wrote: invariants, a mapping) read, directly or through the model's definitions,
        sorted."""
        if not self.replaced:
            return []
        seen: set[str] = set()
        pending = {name for text in criteria for name in _NAME.findall(without_comments(text))}
        while pending:
            name = pending.pop()
            if name not in seen:
                seen.add(name)
                pending |= self.reads.get(name, frozenset()) - seen
        return sorted(seen & self.replaced)


def _after_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _closings(text: str) -> dict[int, int]:
    """For the index of every opening bracket of ``text``, the index after the bracket that
    closes it (the end of the text for one never closed), in one pass: a name before each of
    thousands of unclosed brackets costs no rescan of the rest."""
    found: dict[int, int] = {}
    open_at: list[int] = []
    for index, char in enumerate(text):
        if char in _CLOSING:
            open_at.append(index)
        elif open_at and char == _CLOSING[text[open_at[-1]]]:
            found[open_at.pop()] = index + 1
    return found | dict.fromkeys(open_at, len(text))
