"""FormalBench's null semantics for KeY (issue 15, 1).

FormalBench runs OpenJML with ``--nullable-by-default`` (notes §A2): a reference parameter, result
or field may be null unless the specification says ``non_null``. JML's own default, and KeY's, is
the opposite: every reference is assumed non-null, so ``requires array == null`` contradicts an
implicit precondition and any postcondition verifies, and ``ensures true`` verifies on code that
dereferences an array nobody said was non-null.

KeY honours the class modifier ``nullable_by_default`` (``JMLInfoExtractor``: parameters, results
and fields of the class default to nullable), so the KeY backend gives it to every type the file
declares, as OpenJML's option does, right before the ``class``/``interface``/``enum`` keyword
where KeY reads it. A type whose own annotation says ``non_null_by_default`` keeps it (OpenJML
too lets a class-level modifier override the command-line default), and explicit ``non_null`` or
``nullable`` on a declaration win over either default in both tools. The modifier goes on the
keyword's line, so KeY's line numbers stay the file's.
"""

from __future__ import annotations

from speckernel_jml.javasource import tokenize

MODIFIER = "/*@ nullable_by_default @*/ "
_TYPE_KEYWORDS = frozenset({"class", "interface", "enum"})
_DECLARATION_MODIFIERS = frozenset({"public", "protected", "private", "static", "final",
                                    "abstract", "strictfp", "sealed", "non-sealed"})


def nullable_by_default(source: str) -> str:
    """``source`` with :data:`MODIFIER` before each type declaration that does not say
    ``non_null_by_default`` itself."""
    tokens = list(tokenize(source))
    inserts: list[int] = []
    for index, token in enumerate(tokens):
        if token.text not in _TYPE_KEYWORDS or token.kind != "word":
            continue
        if index + 1 >= len(tokens) or tokens[index + 1].kind != "word":
            continue
        before = index - 1
        while before >= 0 and tokens[before].is_comment and not tokens[before].is_jml:
            before -= 1
        if before >= 0 and tokens[before].text == ".":
            continue  # `X.class`
        declared_non_null = False
        while before >= 0 and (tokens[before].is_comment
                               or tokens[before].text in _DECLARATION_MODIFIERS):
            declared_non_null |= tokens[before].is_jml and \
                "non_null_by_default" in tokens[before].text
            before -= 1
        if not declared_non_null:
            inserts.append(token.start)
    parts: list[str] = []
    last = 0
    for offset in inserts:
        parts.append(source[last:offset] + MODIFIER)
        last = offset
    parts.append(source[last:])
    return "".join(parts)
