"""Syntax highlighting for the artifacts benchmarks ask for.

Pygments has Coq/Rocq, Rust, SQL and Java; these two it lacks are written here from the
languages' own definitions:

* ``TlaLexer``: TLA+ as defined in Lamport, *Specifying Systems* (2002), ch. 15 ("The Syntax of
  TLA+") and its table of ASCII operators (p. 268-273), plus the proof keywords of TLAPS;
* ``JmlLexer``: Java whose ``//@`` and ``/*@ ... @*/`` annotation comments hold JML (the JML
  Reference Manual, Leavens et al., sec. 4.4 "Annotation markers"), with JML's clause keywords
  and its ``\\result``-style expressions highlighted instead of greyed out as comments.

``lexer_for(name)`` picks a lexer from a file name or a Markdown fence's info string.
"""

from __future__ import annotations

import re

from pygments.lexer import Lexer, RegexLexer, bygroups, include, inherit, words
from pygments.lexers import JavaLexer, get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)
from pygments.util import ClassNotFound

_TLA_KEYWORDS = (
    "ACTION", "ASSUME", "ASSUMPTION", "AXIOM", "BY", "CASE", "CHOOSE", "CONSTANT", "CONSTANTS",
    "COROLLARY", "DEF", "DEFINE", "DEFS", "DOMAIN", "ELSE", "ENABLED", "EXCEPT", "EXTENDS",
    "HAVE", "HIDE", "IF", "IN", "INSTANCE", "LAMBDA", "LEMMA", "LET", "LOCAL", "MODULE", "NEW",
    "OBVIOUS", "OMITTED", "ONLY", "OTHER", "PICK", "PROOF", "PROPOSITION", "PROVE", "QED",
    "RECURSIVE", "STATE", "SUBSET", "SUFFICES", "TAKE", "TEMPORAL", "THEN", "THEOREM",
    "UNCHANGED", "UNION", "USE", "VARIABLE", "VARIABLES", "WITH", "WITNESS",
    # TLC configuration files (.cfg) share the highlighter
    "INIT", "NEXT", "SPECIFICATION", "INVARIANT", "INVARIANTS", "PROPERTY", "PROPERTIES",
    "SYMMETRY", "CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT", "VIEW", "CHECK_DEADLOCK",
)


class TlaLexer(RegexLexer):
    """TLA+ modules (and TLC configuration files)."""

    name = "TLA+"
    aliases = ["tla", "tlaplus", "tla+"]
    filenames = ["*.tla"]
    flags = re.MULTILINE

    tokens = {
        "root": [
            (r"\\\*.*?$", Comment.Single),
            (r"\(\*", Comment.Multiline, "comment"),
            (r"^(-{4,})(\s*)(MODULE)(\s+)(\w+)(\s*)(-{4,})",
             bygroups(Punctuation, Whitespace, Keyword.Namespace, Whitespace, Name.Namespace,
                      Whitespace, Punctuation)),
            (r"^={4,}", Punctuation),
            (r"^-{4,}", Punctuation),
            (r"\s+", Whitespace),
            (r'"', String, "string"),
            (r"(WF_|SF_)(\w+)", bygroups(Keyword, Name.Variable)),
            (r"(TRUE|FALSE)\b", Keyword.Constant),
            (r"(BOOLEAN|STRING|Nat|Int|Real|Seq)\b", Keyword.Type),
            (words(_TLA_KEYWORDS, suffix=r"\b"), Keyword),
            (r"\\[A-Za-z]+", Operator.Word),
            (r"<<|>>", Punctuation),
            (r"(\\/|/\\|<=>|=>|==|~>|-\+->|\|->|->|<-|\[\]|<>|:>|@@|\.\.|/=|=<|>=|<=|::=|"
             r"[#'~+\-*/%^=<>:!&|$])", Operator),
            (r"[\[\](){},.;@]", Punctuation),
            (r"\d+(\.\d+)?", Number),
            (r"[A-Za-z_]\w*", Name),
            (r".", Name),
        ],
        "comment": [
            (r"\(\*", Comment.Multiline, "#push"),
            (r"\*\)", Comment.Multiline, "#pop"),
            (r"[^(*]+", Comment.Multiline),
            (r"[(*]", Comment.Multiline),
        ],
        "string": [
            (r'\\.', String.Escape),
            (r'"', String, "#pop"),
            (r'[^"\\\n]+', String),
            (r"\n", String, "#pop"),
        ],
    }


_JML_KEYWORDS = (
    "accessible", "also", "assert", "assignable", "assume", "axiom", "behavior", "behaviour",
    "breaks", "callable", "code", "constraint", "continues", "decreases", "decreasing",
    "diverges", "ensures", "exceptional_behavior", "exceptional_behaviour", "forall", "ghost",
    "helper", "implies_that", "in", "initially", "instance", "invariant", "loop_invariant",
    "loop_writes", "maintaining", "measured_by", "model", "modifies", "non_null",
    "normal_behavior", "normal_behaviour", "nullable", "nullable_by_default", "old", "pure",
    "represents", "requires", "returns", "set", "signals", "signals_only", "spec_protected",
    "spec_public", "strictly_pure", "writes", "public", "protected", "private", "static",
    "final",
)


class JmlLexer(JavaLexer):
    """Java with JML annotation comments."""

    name = "Java with JML"
    aliases = ["jml"]
    filenames: list[str] = []

    tokens = {
        "root": [
            (r"//@", Comment.Special, "jml-line"),
            (r"/\*@", Comment.Special, "jml-block"),
            inherit,
        ],
        "jml-line": [
            (r"\n", Whitespace, "#pop"),
            include("jml"),
        ],
        "jml-block": [
            (r"@*\*/", Comment.Special, "#pop"),
            (r"^(\s*)(@+)", bygroups(Whitespace, Comment.Special)),
            (r"\n", Whitespace),
            include("jml"),
        ],
        "jml": [
            (r"[^\S\n]+", Whitespace),
            (r"//.*?$", Comment.Single),
            (words(_JML_KEYWORDS, suffix=r"\b"), Keyword.Pseudo),
            (r"\\[A-Za-z_]+", Name.Builtin),
            (r"(true|false|null|this|super)\b", Keyword.Constant),
            (r"(boolean|byte|char|double|float|int|long|short|void|bigint|real)\b",
             Keyword.Type),
            (r'"(\\\\|\\.|[^"\\\n])*"', String),
            (r"\d+[lL]?", Number.Integer),
            (r"[A-Za-z_$][\w$]*", Name),
            (r"(<==>|<=!=>|==>|<==|>>>|>>|<<|>=|<=|==|!=|&&|\|\||\+\+|--|[-+*/%=<>!&|^~?:])",
             Operator),
            (r"[\[\](){},.;@]", Punctuation),
        ],
    }


_OWN: dict[str, type[Lexer]] = {"tla": TlaLexer, "tlaplus": TlaLexer, "tla+": TlaLexer,
                                "jml": JmlLexer, "java": JmlLexer}
_BY_EXTENSION = {".tla": "tla", ".cfg": "tla", ".java": "java", ".jml": "jml", ".v": "coq",
                 ".rs": "rust", ".sql": "sql"}
"""The extensions the benchmarks use, decided here: ``.v`` is Rocq, not Verilog."""


def lexer_for(name: str) -> Lexer:
    """A lexer for a file name (``Spec.tla``) or a fence's info string (``tla``, ``coq``,
    ``rust``, ``tla file:Spin.tla``); plain text when nothing fits. Leading and trailing blank
    lines are kept, so line numbers are the file's."""
    words = name.split()
    word = words[-1].lower() if words else ""
    alias = next((a for ext, a in _BY_EXTENSION.items() if word.endswith(ext)), word)
    if alias in _OWN:
        return _OWN[alias](stripnl=False)
    for find, arg in ((get_lexer_by_name, alias), (get_lexer_for_filename, word)):
        if arg:
            try:
                return find(arg, stripnl=False)
            except ClassNotFound:
                pass
    return TextLexer(stripnl=False)
