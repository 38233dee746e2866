"""YAML reading and writing (ruamel.yaml), with errors that name the file and line.

Run files, ``-o KEY=VALUE`` values and ``run.yaml`` are read here, and all three may come from
someone else (a shared run file, a downloaded run). YAML aliases let a few lines stand for an
exponential number of values (the "billion laughs"): ruamel keeps an alias as a second reference
to one node, but turning the document into plain data expands every reference, which hung a run
whose ``options`` held such a bomb (issue 20). ``plain`` therefore counts the values it makes and
the depth it reaches, and the parser's own recursion on deep nesting is a one-line error too.
"""

from __future__ import annotations

import datetime
import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scanner import RoundTripScanner, ScannerError

from speckernel.errors import KernelError

MAX_VALUES = 100_000
"""Values one document may expand to, aliases counted each time they are used."""

MAX_DEPTH = 64
"""Nesting of mappings and sequences."""


class _DepthBoundScanner(RoundTripScanner):
    """Refuses a flow collection (``[`` or ``{``) nested deeper than ``MAX_DEPTH`` as soon as
    it opens. ruamel's scanner looks over every open flow level for each token, so ten thousand
    ``[`` took it 10-40 s to scan before the composer's recursion even failed."""

    def fetch_flow_collection_start(self, token_class: Any, to_push: str) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise ScannerError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                               self.reader.get_mark())
        super().fetch_flow_collection_start(token_class, to_push)


def load_yaml(text: str, source: str) -> Any:
    """Parse ``text`` keeping line numbers (round-trip types); a syntax error is one line."""
    yaml = YAML(typ="rt")
    yaml.Scanner = _DepthBoundScanner
    try:
        return yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KernelError(f"{where}: invalid YAML: {problem}") from exc
    except RecursionError:
        raise KernelError(f"{source}: invalid YAML: nested more than the parser can follow "
                          f"(at most {MAX_DEPTH} levels are accepted)") from None


def key_line(mapping: Any, key: str, source: str) -> str:
    """``file:line`` of ``key`` in a mapping loaded by ``load_yaml`` (``file`` if unknown)."""
    try:
        return f"{source}:{mapping.lc.key(key)[0] + 1}"
    except (AttributeError, KeyError, TypeError):
        return source


def plain(value: Any, source: str = "YAML") -> Any:
    """Round-trip YAML values as plain dict/list/scalars; a date becomes its ISO text (what a
    user writing ``since: 2024-01-01`` means). Raises ``KernelError`` naming ``source`` past
    ``MAX_VALUES`` values or ``MAX_DEPTH`` levels, or for a value plain data cannot hold (a
    ``!!binary`` or ``!!set``)."""
    budget = [MAX_VALUES]
    return _plain(value, 0, budget, source)


def _plain(value: Any, depth: int, budget: list[int], source: str) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise KernelError(f"{source}: more than {MAX_VALUES:,} values (aliases included)")
    if depth > MAX_DEPTH:
        raise KernelError(f"{source}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1, budget, source) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, depth + 1, budget, source) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    for kind in (int, float, str):
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise KernelError(f"{source}: unsupported YAML value of type {type(value).__name__} "
                      "(quote it to make it text)")


def dump_yaml(data: Any) -> str:
    yaml = YAML(typ="safe")
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()
