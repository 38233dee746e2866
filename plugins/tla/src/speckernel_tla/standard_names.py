"""The operators the standard modules define: what a candidate's cfg may not replace.

TLC lets a cfg replace any definition (``Nat <- Small``, ``Cardinality <- NoneOf``,
``+ <- Minus``). Replacing a standard module's operator changes what every template means
(``Cardinality(holders) <= 1`` holds for any model once ``Cardinality`` is ``0``), so the
invariant verifier refuses such a cfg. The names are read from the standard modules themselves:
those of the jar in use (``tla2sany/StandardModules``) and the bundled ones.
"""

from __future__ import annotations

import functools
import re
import zipfile
from pathlib import Path

from speckernel_tla.stdlib import bundled_modules

_MODULES = "tla2sany/StandardModules/"
_IDENTIFIER = re.compile(r"^([A-Za-z_]\w*)(?:\(|\[|\s*==)", re.MULTILINE)
"""A definition starting a line (local definitions inside one are indented)."""
_INFIX = re.compile(r"^\w+\s*(\\[A-Za-z]+|\(\S\)|[^\w\s\\(]+)\s*\w+\s*==", re.MULTILINE)
_PREFIX = re.compile(r"^(-\.)\s*\w+\s*==", re.MULTILINE)
SYNONYMS = frozenset({"<=", "=<", ">=", "\\circ", "\\oplus", "\\ominus", "-"})
"""Other spellings of standard symbols (``\\leq``, ``\\geq``, ``\\o``, ``(+)``, ``(-)``, unary
``-.``) that a cfg may use."""


@functools.lru_cache(maxsize=4)
def standard_names(jar: Path) -> frozenset[str]:
    """Every operator, identifier or symbol, a standard module of ``jar`` or a bundled module
    defines at its top level (``LOCAL`` ones aside), with the symbols' other spellings."""
    texts = list(bundled_modules().values())
    try:
        with zipfile.ZipFile(jar) as archive:
            texts += [archive.read(name).decode("utf-8", "replace")
                      for name in archive.namelist()
                      if name.startswith(_MODULES) and name.endswith(".tla")]
    except (OSError, zipfile.BadZipFile):
        pass  # a jar that cannot be read leaves only the bundled modules' names
    names: set[str] = set(SYNONYMS)
    for text in texts:
        names |= {m.group(1) for m in _IDENTIFIER.finditer(text)} - {"LOCAL", "EXTENDS"}
        names |= {m.group(1) for m in _INFIX.finditer(text)}
        names |= {m.group(1) for m in _PREFIX.finditer(text)}
    return frozenset(names)
