"""The task's own test inputs, as JML constraints over the method's parameters.

A specification whose precondition no test input of the task satisfies verifies without saying
anything about the program's use (FormalBench issue 15: ``requires a.length > 1000`` on a method
its examples call with three elements). The inputs come from the task itself, never from the
candidate: a bundled task's test ``main`` (``Clamp.clamp(5, 0, 10)``, Java syntax) and a
FormalBench program's Javadoc examples (``> removeReplica([1, 1, 4])``, the Python-like notation
of MBPP). Each call becomes one line ``method<TAB>arity<TAB>constraint`` for the KeY driver,
which tries to refute the precondition together with every input (``java/KeyCheck.java``).

A constraint may say less than the input (a ``String`` or ``double`` argument is not
constrained; an array of strings only by its length): refuting a weaker constraint refutes the
input, so a spec is never called vacuous for what a constraint leaves out. A call whose arguments
cannot be read at all gives no line, and then neither do the other calls of its method (the
driver refutes the precondition alone for a method without inputs).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from speckernel_jml.javasource import Token, code_tokens

UNKNOWN = object()
"""An argument whose value the parsers cannot read."""

_INT_RANGES = {"byte": 8, "short": 16, "int": 32, "long": 64}
_CONSTANTS = {
    "Integer.MAX_VALUE": 2**31 - 1, "Integer.MIN_VALUE": -(2**31),
    "Long.MAX_VALUE": 2**63 - 1, "Long.MIN_VALUE": -(2**63),
    "Short.MAX_VALUE": 2**15 - 1, "Short.MIN_VALUE": -(2**15),
    "Byte.MAX_VALUE": 2**7 - 1, "Byte.MIN_VALUE": -(2**7),
}
_JAVADOC_CALL = re.compile(r"^\s*>\s*(?P<method>[A-Za-z_]\w*)\s*\((?P<args>.*)\)\s*$")
_MODIFIERS = frozenset({"public", "private", "protected", "static", "final", "synchronized",
                        "native", "abstract", "strictfp"})


@attrs.frozen
class Call:
    """One call of the task's method in its tests: the argument values (``UNKNOWN`` where
    unreadable)."""

    method: str
    args: tuple[Any, ...]


@attrs.frozen
class Parameter:
    type: str
    """The declared type, spaces removed (``int[]``, ``List<Integer>``)."""
    name: str


# --------------------------------------------------------------------------- finding the calls


def calls_in_test(test_source: str, class_name: str) -> list[Call]:
    """Every ``ClassName.method(args)`` call in a Java test program."""
    tokens = code_tokens(test_source)
    calls = []
    for index in range(len(tokens) - 3):
        if (tokens[index].text == class_name and tokens[index + 1].text == "."
                and tokens[index + 2].kind == "word" and tokens[index + 3].text == "("):
            closing = _closing(tokens, index + 3)
            if closing is None:
                continue
            args = tuple(_java_value(part) for part in _split(tokens[index + 4:closing]))
            calls.append(Call(tokens[index + 2].text, args))
    return calls


def calls_in_javadoc(description: str) -> list[Call]:
    """Every ``> method(args)`` example line of a FormalBench Javadoc (MBPP's notation: Python
    literals, sometimes Java array expressions)."""
    calls = []
    for line in description.splitlines():
        match = _JAVADOC_CALL.match(line.strip().lstrip("*").strip())
        if match is None:
            continue
        calls.append(Call(match["method"], _javadoc_args(match["args"])))
    return calls


def _javadoc_args(text: str) -> tuple[Any, ...]:
    if not text.strip():
        return ()
    try:
        value = ast.literal_eval(f"({text},)")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        tokens = code_tokens(text)
        return tuple(_java_value(part) for part in _split(tokens))
    return tuple(_from_python(v) for v in value)


def _from_python(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_from_python(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return UNKNOWN


def _closing(tokens: Sequence[Token], opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(tokens)):
        if tokens[index].text in "([{":
            depth += 1
        elif tokens[index].text in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _split(tokens: Sequence[Token]) -> list[list[Token]]:
    """``tokens`` split at the commas outside brackets."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.text in "([{":
            depth += 1
        elif token.text in ")]}":
            depth -= 1
        if token.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts if parts != [[]] else []


def _java_value(tokens: Sequence[Token]) -> Any:
    """The value of a Java literal expression: numbers, characters, strings, booleans, null,
    the MIN/MAX constants, and array creations with initialisers; ``UNKNOWN`` otherwise."""
    value, rest = _java_term(list(tokens))
    return value if not rest else UNKNOWN


def _java_term(tokens: list[Token]) -> tuple[Any, list[Token]]:
    if not tokens:
        return UNKNOWN, []
    first = tokens[0]
    if first.text == "(":
        closing = _closing(tokens, 0)
        if closing is None:
            return UNKNOWN, []
        return _java_value(tokens[1:closing]), tokens[closing + 1:]
    if first.text == "-" and len(tokens) > 1:
        value, rest = _java_term(tokens[1:])
        return (-value if isinstance(value, int | float) and not isinstance(value, bool)
                else UNKNOWN), rest
    if first.text == "new":
        opening = next((i for i, t in enumerate(tokens) if t.text == "{"), None)
        if opening is None or any(t.text not in ("[", "]") and t.kind != "word"
                                  for t in tokens[1:opening]):
            return UNKNOWN, []
        return _java_term(tokens[opening:])
    if first.text == "{":
        closing = _closing(tokens, 0)
        if closing is None:
            return UNKNOWN, []
        return [_java_value(part) for part in _split(tokens[1:closing])], tokens[closing + 1:]
    if first.kind == "number":
        return _number(first.text), tokens[1:]
    if first.kind == "char":
        text = _unquote(first.text)
        return (ord(text) if text is not None and len(text) == 1 else UNKNOWN), tokens[1:]
    if first.kind == "string":
        text = _unquote(first.text)
        return (text if text is not None else UNKNOWN), tokens[1:]
    if first.text in ("true", "false"):
        return first.text == "true", tokens[1:]
    if first.text == "null":
        return None, tokens[1:]
    if len(tokens) >= 3 and tokens[1].text == ".":
        constant = _CONSTANTS.get(f"{first.text}.{tokens[2].text}")
        if constant is not None:
            return constant, tokens[3:]
    return UNKNOWN, []


def _number(text: str) -> Any:
    digits = text.replace("_", "").rstrip("lL")
    try:
        if digits.lower().startswith("0x"):
            return int(digits, 16)
        if digits.lower().startswith("0b"):
            return int(digits, 2)
        if re.fullmatch(r"\d+", digits):
            return int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)
        return float(digits.rstrip("fFdD"))
    except ValueError:
        return UNKNOWN


def _unquote(literal: str) -> str | None:
    try:
        value = ast.literal_eval(literal if literal[0] == '"' else '"' + literal[1:-1] + '"')
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------- the method's side


def method_parameters(program: str) -> dict[tuple[str, int], tuple[Parameter, ...]]:
    """The parameters of every method ``program`` declares, by (name, arity)."""
    tokens = code_tokens(program)
    found: dict[tuple[str, int], tuple[Parameter, ...]] = {}
    for index in range(1, len(tokens) - 1):
        name, opening = tokens[index], tokens[index + 1]
        if name.kind != "word" or opening.text != "(":
            continue
        before = tokens[index - 1]
        if before.kind != "word" and before.text not in ("]", ">"):
            continue
        if before.text in ("new", "return", "else", "throw", "case", "."):
            continue
        closing = _closing(tokens, index + 1)
        if closing is None or closing + 1 >= len(tokens) or tokens[closing + 1].text not in (
                "{", "throws", ";"):
            continue
        params = _parameters(tokens[index + 2:closing])
        if params is not None:
            found.setdefault((name.text, len(params)), params)
    return found


def _parameters(tokens: Sequence[Token]) -> tuple[Parameter, ...] | None:
    """The parameters between a method's parentheses, or None when some part is not a
    ``type name`` declaration (a call's arguments, say)."""
    params: list[Parameter] = []
    for part in _split(tokens):
        words = _declared(part)
        if len(words) < 2 or words[-1].kind != "word":
            return None
        params.append(Parameter("".join(t.text for t in words[:-1]), words[-1].text))
    return tuple(params)


def _declared(part: Sequence[Token]) -> list[Token]:
    """One parameter's tokens without its modifiers and annotations (``@Name``, ``@a.b.Name``,
    each with an optional argument list), which are no part of its type."""
    kept: list[Token] = []
    index = 0
    while index < len(part):
        if part[index].text != "@":
            if part[index].text not in _MODIFIERS:
                kept.append(part[index])
            index += 1
            continue
        index += 2  # the @ and the annotation's first name
        while index + 1 < len(part) and part[index].text == ".":
            index += 2
        if index < len(part) and part[index].text == "(":
            closing = _closing(part, index)
            index = len(part) if closing is None else closing + 1
    return kept


def constraint(param_type: str, expression: str, value: Any) -> str | None:
    """A JML formula the value of ``expression`` (of ``param_type``) satisfies for this input,
    or None when nothing useful can be said."""
    if value is UNKNOWN:
        return None
    base = param_type.replace("final", "")
    if base in _INT_RANGES:
        bits = _INT_RANGES[base]
        if isinstance(value, int) and not isinstance(value, bool) and \
                -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            return f"{expression} == {value}{'L' if base == 'long' else ''}"
        return None
    if base == "char":
        if isinstance(value, str) and len(value) == 1:
            value = ord(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFF:
            return f"{expression} == {value}"
        return None
    if base == "boolean":
        return (expression if value else f"!{expression}") if isinstance(value, bool) else None
    if base.endswith("[]"):
        if value is None:
            return f"{expression} == null"
        if not isinstance(value, list):
            return None
        element = base[:-2]
        parts = [f"{expression} != null", f"{expression}.length == {len(value)}"]
        for position, item in enumerate(value):
            inner = constraint(element, f"{expression}[{position}]", item)
            if inner is not None:
                parts.append(inner)
        return " && ".join(parts)
    return None


def input_lines(program: str, calls: Iterable[Call]) -> str:
    """The driver's input lines for ``calls`` of methods ``program`` declares (see the module
    docstring for what is left out)."""
    parameters = method_parameters(program)
    lines: dict[tuple[str, int], list[str]] = {}
    unreadable: set[tuple[str, int]] = set()
    for call in calls:
        key = (call.method, len(call.args))
        params = parameters.get(key)
        if params is None:
            continue
        parts = [constraint(p.type, p.name, value)
                 for p, value in zip(params, call.args, strict=True)]
        known = [f"({part})" for part in parts if part is not None]
        if known:
            lines.setdefault(key, []).append(" && ".join(known))
        else:
            unreadable.add(key)
    return "".join(f"{name}\t{arity}\t{formula}\n"
                   for (name, arity), formulas in lines.items() if (name, arity) not in unreadable
                   for formula in dict.fromkeys(formulas))


_UNKNOWN_DATA = {"unknown": True}


def task_calls(metadata: Mapping[str, Any]) -> Iterator[Call]:
    """The calls a task's metadata records (``test_calls``, see :func:`calls_as_metadata`)."""
    for entry in metadata.get("test_calls") or ():
        method, args = entry
        yield Call(str(method), tuple(_from_data(a) for a in args))


def calls_as_metadata(calls: Iterable[Call]) -> list[list[Any]]:
    """``calls`` as plain data for a task's metadata: ``[method, [values]]`` pairs, an
    unreadable value as ``{"unknown": true}``."""
    return [[call.method, [_to_data(a) for a in call.args]] for call in calls]


def _to_data(value: Any) -> Any:
    if value is UNKNOWN:
        return dict(_UNKNOWN_DATA)
    if isinstance(value, list):
        return [_to_data(v) for v in value]
    return value


def _from_data(value: Any) -> Any:
    if value == _UNKNOWN_DATA:
        return UNKNOWN
    if isinstance(value, list):
        return [_from_data(v) for v in value]
    return value
