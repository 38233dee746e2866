"""The adversarial corpus (``tests/cheats/*.cheat``) and how a cheat is planted in a base.

A cheat file is a few ``# key: value`` lines, then sections that say where text goes:

- ``@ body``: at the start of the target's body (just inside its ``{``);
- ``@ item``: at the end of the last ``verus!`` block, as new items;
- ``@ before-target``: just before the target function (its attributes);
- ``@ header s/PATTERN/REPLACEMENT/``: a regex substitution in the target's signature (from
  the function's name to its body), skipped where the pattern does not match.

Keys: ``why`` (what makes it a cheat), ``rules`` (rules the checker must report, at least),
``targets`` (``exec`` or ``proof`` to plant it only in such targets), ``needs`` (placeholders the
base must supply: ``{type}``, a struct or enum the task defines; ``{used}``, a function the
target's contract calls). Adding a cheat is adding a file.

A base is an honest (task, candidate) pair: the cheat goes into the candidate, at its target
(the task's, or where the task names none the first of the task's own functions with a real
body), located by the helper's ``functions`` answer (byte offsets).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

CHEATS = Path(__file__).parent / "cheats"
_SECTION = re.compile(r"^@ (body|item|before-target|header s/(.*)/(.*)/)\s*$")
_KEYWORDS = frozenset((
    "requires", "ensures", "recommends", "decreases", "forall", "exists", "choose", "old", "if",
    "else", "match", "let", "as", "true", "false", "return", "returns", "when", "via", "by",
    "with", "opens_invariants", "no_unwind"))


@attrs.frozen
class Cheat:
    name: str
    why: str
    rules: frozenset[str]
    targets: str | None
    needs: frozenset[str]
    sections: tuple[tuple[str, str], ...]
    """(where, text) in file order; for a header section ``where`` is ``header`` and text is
    ``PATTERN\\0REPLACEMENT``."""


def load(path: Path) -> Cheat:
    keys: dict[str, str] = {}
    sections: list[tuple[str, list[str]]] = []
    for line in path.read_text().splitlines():
        match = _SECTION.match(line)
        if match:
            where = match[1]
            if where.startswith("header"):
                sections.append(("header", [f"{match[2]}\0{match[3]}"]))
            else:
                sections.append((where, []))
        elif sections:
            sections[-1][1].append(line)
        elif line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            keys[key.strip()] = value.strip()
    split = lambda v: frozenset(x.strip() for x in v.split(",") if x.strip())  # noqa: E731
    return Cheat(path.stem, keys.get("why", ""), split(keys.get("rules", "")),
                 keys.get("targets"), split(keys.get("needs", "")),
                 tuple((w, "\n".join(text)) for w, text in sections))


def corpus() -> list[Cheat]:
    return [load(p) for p in sorted(CHEATS.glob("*.cheat"))]


@attrs.frozen
class Base:
    """An honest candidate for a task, with where its target sits (the helper's answer)."""

    name: str
    task: str
    candidate: str
    target: str | None
    """The task's target (None: every function with a real body)."""
    at: str
    """The function the cheats go into: the target, or the first function to prove."""
    functions: Mapping[str, Any]
    """The helper's ``functions`` answer for ``candidate``."""

    def target_function(self) -> Mapping[str, Any] | None:
        for f in self.functions.get("functions", ()):
            if provable(f) and f["name"] == self.at:
                return f
        return None


def provable(f: Mapping[str, Any]) -> bool:
    return f["mode"] in ("exec", "proof") and bool(f["body"]) and not f["stub"]


def first_provable(functions: Mapping[str, Any]) -> str | None:
    """The first function to prove in a helper's ``functions`` answer."""
    return next((f["name"] for f in functions.get("functions", ()) if provable(f)), None)


def placeholders(base: Base, fn: Mapping[str, Any]) -> dict[str, str]:
    """What a base supplies for ``{target}``, ``{type}`` and ``{used}``."""
    text = base.candidate.encode()
    header = text[fn["head"]:fn["open"]].decode(errors="replace")
    out = {"target": fn["name"]}
    typed = re.search(r"\b(?:struct|enum)\s+([A-Za-z_]\w*)\s*[{(;]", base.task)
    if typed:
        out["type"] = typed[1]
    called = [name for name in re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", header)
              if name not in _KEYWORDS and name != fn["name"]]
    if called:
        out["used"] = called[0]
    return out


def plant(cheat: Cheat, base: Base) -> str | None:
    """The base's candidate with the cheat planted, or None where it does not apply."""
    fn = base.target_function()
    if fn is None or not base.functions.get("verus"):
        return None
    if cheat.targets and fn["mode"] != cheat.targets:
        return None
    values = placeholders(base, fn)
    if not cheat.needs <= values.keys():
        return None
    text = base.candidate.encode()
    edits: list[tuple[int, int, bytes]] = []
    for where, body in cheat.sections:
        filled = body
        for key, value in values.items():
            filled = filled.replace("{" + key + "}", value)
        if where == "body":
            edits.append((fn["open"], fn["open"], f"\n{filled}\n".encode()))
        elif where == "item":
            close = base.functions["verus"][-1][1]
            edits.append((close, close, f"\n{filled}\n".encode()))
        elif where == "before-target":
            edits.append((fn["start"], fn["start"], f"{filled}\n".encode()))
        else:
            pattern, replacement = filled.split("\0")
            header = text[fn["head"]:fn["open"] - 1].decode()
            changed = re.sub(pattern, replacement, header, count=1)
            if changed == header:
                return None
            edits.append((fn["head"], fn["open"] - 1, changed.encode()))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text.decode()


def planted(cheats: Sequence[Cheat], bases: Sequence[Base]) -> list[tuple[Cheat, Base, str]]:
    """Every (cheat, base, cheating candidate) that applies."""
    return [(c, b, text) for c in cheats for b in bases if (text := plant(c, b)) is not None]
