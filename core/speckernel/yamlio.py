"""YAML reading and writing (ruamel.yaml), with errors that name the file and line."""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from speckernel.errors import KernelError


def load_yaml(text: str, source: str) -> Any:
    """Parse ``text`` keeping line numbers (round-trip types); a syntax error is one line."""
    try:
        return YAML(typ="rt").load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KernelError(f"{where}: invalid YAML: {problem}") from exc


def key_line(mapping: Any, key: str, source: str) -> str:
    """``file:line`` of ``key`` in a mapping loaded by ``load_yaml`` (``file`` if unknown)."""
    try:
        return f"{source}:{mapping.lc.key(key)[0] + 1}"
    except (AttributeError, KeyError, TypeError):
        return source


def plain(value: Any) -> Any:
    """Round-trip YAML values as plain dict/list/scalars."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    for kind in (int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def dump_yaml(data: Any) -> str:
    yaml = YAML(typ="safe")
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()
