"""Which template texts may share a generated module with others.

The invariant verifier places several templates' definitions in one checking module and one TLC
run (:mod:`speckernel_tla.invariants`). A template's text is the candidate's, and text can reach
past its own definition: a comment it opens swallows the next definition, a ``====`` ends the
module before it, a definition or declaration it holds is visible to the others (or clashes with
theirs), an ``ASSUME`` fails every run it is in, and a name the batcher generates is another
template's operator (``SkInv_A`` in B's body holds exactly when A shares B's module). A text
that holds none of these is an expression and nothing else: it cannot tell whether it is alone.
Any other text is checked in a run of its own, which is what its verdict must equal anyway.
"""

from __future__ import annotations

import re

GENERATED_NAME = re.compile(r"(?<!\w)(?:SkInv_|SkSafe_|SkMon|SkRest_|SkShape_|Speckernel)\w*")
"""The names the plugin generates for its own modules and definitions (``SkInv_``, ``SkSafe_``,
``SkMon...``, ``SkRest_``, ``SkShape_``, ``SpeckernelInvariants_``, ``SpeckernelMonitor_``,
``SpeckernelBudget...``) and any other name so begun: reserved, so a candidate never names one
(``tests/test_enclosure.py`` checks every prefix the plugin uses is here)."""

_REACHING = re.compile(
    r"\(\*|\*\)|\\\*|==|----"
    r"|\b(?:LET|CONSTANTS?|VARIABLES?|PARAMETERS?|ASSUME|ASSUMPTION|AXIOM|THEOREM|LEMMA"
    r"|PROPOSITION|COROLLARY|INSTANCE|EXTENDS|MODULE|LOCAL|RECURSIVE|USE|HIDE)\b")
"""Comment delimiters, definitions (``==``, so ``====`` and ``LET`` too), module separators,
and the keywords of declarations and module-level units."""


def enclosed(text: str) -> bool:
    """Whether ``text`` is an expression that cannot reach past its own definition in a module
    shared with other templates' definitions: no comment delimiter, module separator,
    definition, declaration, module-level keyword or generated name, anywhere (inside a string
    too: such a text only loses sharing a run)."""
    return _REACHING.search(text) is None and GENERATED_NAME.search(text) is None
