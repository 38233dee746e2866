"""How a validation module tells the verifier what TLC found: ``PrintT`` lines opened by a tag
drawn at random for each module.

A trace-validation module EXTENDS the candidate's model, so whatever the model prints with
``Print``/``PrintT`` lands in the same output as the module's facts. With a fixed tag a model
that printed ``<<"SkFact", "line", 1, 40, 0>>`` was credited with matching 40 lines of trace 1
(and a fact past a trace's end was a traceback). The tag is 96 random bits: the model cannot
name it, since it is in no file before the run, a TLA+ module cannot read the module extending
it, and the TLC jar installed here has no IOUtils to read files while it runs (a jar with the
CommunityModules' IOUtils would let a model read the module text; the plugin README says so).
TLC prints a string quoted with its line ends escaped, so nothing the model prints can start a
line the way a fact does unless it holds the tag.

The tag is short enough that a fact (tag, kind, three numbers of up to ten digits) stays on one
line: TLC breaks a printed tuple longer than 80 characters over several.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection, Iterator

TAG = re.compile(r"Sk[0-9a-f]{24}")
"""What a tag looks like."""


def new_tag() -> str:
    """A fresh tag: ``Sk`` and 24 random hexadecimal digits."""
    return "Sk" + secrets.token_hex(12)


def report(tag: str, kind: str, a: str, b: str, c: str) -> str:
    """The TLA+ expression printing one fact: ``kind`` (a TLA+ string expression) and three
    natural-number expressions."""
    if not TAG.fullmatch(tag):
        raise ValueError(f"not a fact tag: {tag!r}")
    return f'PrintT(<<"{tag}", {kind}, {a}, {b}, {c}>>)'


def read(output: str, tag: str, kinds: Collection[str]) -> Iterator[tuple[str, int, int, int]]:
    """The facts of ``kinds`` that lines of ``output`` print with ``tag``: (kind, a, b, c)."""
    if not TAG.fullmatch(tag):
        raise ValueError(f"not a fact tag: {tag!r}")
    pattern = re.compile(rf'^<<"{tag}", "({"|".join(map(re.escape, kinds))})", (\d+), (\d+), '
                         r"(\d+)>>\r?$", re.MULTILINE)
    for match in pattern.finditer(output):
        yield match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4))
